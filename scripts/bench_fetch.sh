#!/usr/bin/env bash
# Fetch throughput, measured as a user sees it: `altflow run` downloads N 640x480 JPEGs from a web
# server on 127.0.0.1 (a separate process, so its CPU is not counted), decodes, checks, resizes to
# 512 px, re-encodes, hashes and writes them to shards. Prints images per CPU-second of altflow
# (user + system time of the whole process, start-up and writer included), wall time and peak RSS.
#
#   scripts/bench_fetch.sh            # N=3000 images
#   N=10000 scripts/bench_fetch.sh
#   BIN=/tmp/altflow-old scripts/bench_fetch.sh   # another build (nothing is built), for side-by-side comparisons
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-3000}
bin=${BIN:-target/release/altflow}
[ -n "${BIN:-}" ] || cargo build --release --quiet
python3 -c "import PIL" 2>/dev/null || python3 -m pip install --quiet pillow
work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/site"

# Eight 640x480 JPEGs (quality 90) drawn from the sample site's pictures; the list asks for each
# under N/8 different URLs (the server ignores the query), so every download is a distinct sample.
python3 - "$work" "$N" <<'PY'
import csv, sys
from pathlib import Path
from PIL import Image
work, n = Path(sys.argv[1]), int(sys.argv[2])
sources = sorted(Path("examples/site/img").glob("*.jpg"))[:8]
for i, src in enumerate(sources):
    Image.open(src).convert("RGB").resize((640, 480), Image.LANCZOS).save(work / "site" / f"{i}.jpg", quality=90)
with open(work / "list.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["url", "caption"])
    for k in range(n):
        w.writerow([f"http://127.0.0.1:PORT/{k % len(sources)}.jpg?n={k}", f"a picture of the sample site, number {k}"])
PY
port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
sed -i "s/PORT/$port/" "$work/list.csv"
# The server is altflow's own static server (hyper), in its own process.
cat > "$work/serve.toml" <<TOML
stages = ["fetch"]
[bus]
kind = "embedded"
[write]
output = "$work/unused"
[sample_site]
dir = "$work/site"
listen = "127.0.0.1:$port"
TOML
"$bin" serve-site --pipeline "$work/serve.toml" 2>/dev/null &
server=$!
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$port))" 2>/dev/null && break; sleep 0.1; done

cat > "$work/bench.toml" <<TOML
stages = ["filter", "fetch", "write"]
[bus]
kind = "embedded"
partitions = 4
[http]
allow_networks = ["127.0.0.0/8"]
per_host_concurrency = 64
concurrency = 64
min_host_delay = "0ms"
[fetch]
max_side = 512
jpeg_quality = 90
[write]
output = "$work/out"
max_records = 1000
[[url_lists]]
path = "$work/list.csv"
TOML

${PROFILE:-} /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$bin" run "$work/bench.toml" > "$work/funnel"
read -r wall user sys rss_kb < "$work/time"
written=$(awk '$1 == "write" {print $3}' "$work/funnel")
cat "$work/funnel"
python3 - "$written" "$wall" "$user" "$sys" "$rss_kb" <<'PY'
import sys
written, wall, user, sys_, rss = int(sys.argv[1]), *map(float, sys.argv[2:5]), int(sys.argv[5])
cpu = user + sys_
print(f"{written} images, {wall:.2f} s wall, {cpu:.2f} CPU-s (user {user:.2f}, sys {sys_:.2f}), "
      f"{written / cpu:.0f} images per CPU-second, {written / wall:.0f} images/s wall, peak RSS {rss / 1024:.0f} MiB")
PY
