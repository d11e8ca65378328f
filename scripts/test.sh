#!/usr/bin/env bash
# The test command: installs what the tests need (skipping what is there), then runs every test.
#
#   scripts/test.sh            # all tests, including those against a real Kafka-protocol broker
#
# Needs: a Rust toolchain, Python 3 with pip. Installs what is missing: tansu (the Kafka-protocol broker,
# into .tools/), pyarrow (for the independent shard checker) and moto's S3 server (for the s3:// output
# test). The tests start and stop these servers themselves, on 127.0.0.1.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

"$root/scripts/install-broker.sh"
if ! python3 -c 'import pyarrow' 2>/dev/null; then
  python3 -m pip install --quiet 'pyarrow>=14'
fi
if ! command -v moto_server >/dev/null; then
  python3 -m pip install --quiet 'moto[server]>=5'
fi

# Tests that need the broker or the S3 server fail, rather than skip, when it is missing.
export ALTFLOW_REQUIRE_SERVICES=1
export ALTFLOW_TANSU="$root/.tools/bin/tansu"
cargo test --all-targets "$@"
