#!/usr/bin/env bash
# The test command: installs what the tests need (skipping what is there), then runs every test.
#
#   scripts/test.sh            # all tests, including those against a real Kafka-protocol broker
#
# Needs: a Rust toolchain, Python 3 with pip. Installs: tansu (the broker, into .tools/), pyarrow (for
# the independent shard checker). The tests start and stop the broker themselves.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

"$root/scripts/install-broker.sh"
if ! python3 -c 'import pyarrow' 2>/dev/null; then
  python3 -m pip install --quiet 'pyarrow>=14'
fi

# Tests that need the broker fail, rather than skip, when it is missing.
export ALTFLOW_REQUIRE_KAFKA=1
export ALTFLOW_TANSU="$root/.tools/bin/tansu"
cargo test --all-targets "$@"
