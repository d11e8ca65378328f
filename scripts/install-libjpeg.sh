#!/usr/bin/env bash
# Installs libjpeg-turbo's headers where they are missing, with apt-get (Debian, Ubuntu). build.rs
# builds the JPEG encoder on them; without them altflow falls back to a slower pure-Rust encoder,
# which CI must not measure or test in its place. Run it before the first cargo command: cargo
# remembers what build.rs found.
set -euo pipefail
if printf '#include <stdio.h>\n#include <jpeglib.h>\n' | cc -E -x c - >/dev/null 2>&1; then
  exit 0
fi
command -v apt-get >/dev/null || {
  echo "libjpeg-turbo's headers are missing; install them (e.g. brew install jpeg-turbo)" >&2
  exit 1
}
apt-get install -y -q libjpeg-dev >/dev/null 2>&1 ||
  { apt-get update -q >/dev/null && apt-get install -y -q libjpeg-dev >/dev/null; }
