#!/usr/bin/env bash
# The soak, by hand: 30 minutes of a Kafka pipeline (two members per stage) fed continuously from a
# synthetic long-tail web, a member SIGKILLed or SIGSTOPped every minute, qgen added in front of the
# writers halfway, the broker killed and restarted at three quarters, two trainer ranks reading.
# See scripts/soak.py for what it checks and reports; its short version runs in the tests
# (python/tests/test_soak.py).
#
#   scripts/soak.sh                 # 30 minutes
#   scripts/soak.sh --seconds 600   # any of soak.py's options
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scripts/install-broker.sh >/dev/null
python3 -c 'import pyarrow' 2>/dev/null || python3 -m pip install --quiet 'pyarrow>=14'
python3 -m pip install --quiet "$root/python[kafka]"
command -v moto_server >/dev/null || python3 -m pip install --quiet 'moto[server]>=5'
cargo build --quiet
exec python3 scripts/soak.py --seconds 1800 --report soak-report.json "$@"
