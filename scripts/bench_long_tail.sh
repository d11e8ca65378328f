#!/usr/bin/env bash
# Wall time on a web with the real web's long tail, against the ideal bound (scripts/long_tail_web.py:
# N images on 32 hosts on 127.0.0.x, most answers in tens of milliseconds, some in seconds, a few at
# 6 s, some 404s and 429s with Retry-After). Runs `altflow run` (filter → fetch → write) with the
# default politeness (16 connections, 2 per host, 500 ms between a host's starts) and relaxed
# (64 connections, no per-host limit), then img2dataset with as many requests in flight; prints wall
# time, images written, the ideal bound and their ratio, CPU time and peak RSS of each.
#
#   scripts/bench_long_tail.sh                 # N=2000
#   N=500 SKIP_IMG2DATASET=1 scripts/bench_long_tail.sh
#   BIN=/tmp/altflow-old scripts/bench_long_tail.sh   # another build (nothing is built)
#   MIX=fast ONLY=relaxed scripts/bench_long_tail.sh  # every answer in 20–100 ms; one altflow run
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-2000}
bin=${BIN:-target/release/altflow}
[ -n "${BIN:-}" ] || cargo build --release --quiet
python3 -c "import PIL" 2>/dev/null || python3 -m pip install --quiet pillow
if [ -z "${SKIP_IMG2DATASET:-}" ] && ! command -v img2dataset >/dev/null; then
  python3 -m pip install --quiet img2dataset
fi
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$work"' EXIT
port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
web="python3 scripts/long_tail_web.py"
$web plan --dir "$work" --images "$N" --port "$port" --mix "${MIX:-long-tail}"

# A fresh server for each run: a URL answers 429 only on its first request.
start_server() {
  [ -n "$server" ] && { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
  $web serve --plan "$work/plan.json" --port "$port" > "$work/server.log" 2>&1 &
  server=$!
  for _ in $(seq 100); do grep -q serving "$work/server.log" 2>/dev/null && return; sleep 0.1; done
  echo "the synthetic web did not start" >&2; exit 1
}

report() { # name written wall user sys rss_kb ideal
  python3 - "$@" <<'PY'
import sys
name, written, wall, user, sys_, rss, ideal = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:6]), int(sys.argv[6]), float(sys.argv[7])
print(f"{name:<34} {written:>5} images  {wall:7.1f} s wall  ideal {ideal:6.1f} s  ratio {wall / ideal:4.2f}  "
      f"{written / wall:6.1f} images/s  {user + sys_:6.1f} CPU-s  peak RSS {rss / 1024:4.0f} MiB")
PY
}

run_altflow() { # name concurrency per_host delay_ms
  local name=$1 conc=$2 per_host=$3 delay=$4
  cat > "$work/$name.toml" <<TOML
stages = ["filter", "fetch", "write"]
[bus]
kind = "embedded"
partitions = 4
[http]
allow_networks = ["127.0.0.0/8"]
concurrency = $conc
per_host_concurrency = $per_host
min_host_delay = "${delay}ms"
[fetch]
max_side = 512
[write]
output = "$work/out-$name"
max_records = 1000
[[url_lists]]
path = "$work/list.csv"
TOML
  start_server
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$bin" run "$work/$name.toml" > "$work/funnel-$name" 2> "$work/log-$name"
  read -r wall user sys rss < "$work/time"
  written=$(awk '$1 == "write" {print $3}' "$work/funnel-$name")
  ideal=$($web ideal --plan "$work/plan.json" --concurrency "$conc" --per-host "$per_host" --delay "$(python3 -c "print($delay/1000)")" | python3 -c "import json,sys; print(json.load(sys.stdin)['ideal_s'])")
  report "altflow $name ($conc in flight)" "$written" "$wall" "$user" "$sys" "$rss" "$ideal"
  [ -n "${VERBOSE:-}" ] && cat "$work/funnel-$name"
  return 0
}

$web ideal --plan "$work/plan.json" --concurrency 64 --per-host 64 --delay 0
[ "${ONLY:-default}" = default ] && run_altflow default 16 2 500
[ "${ONLY:-relaxed}" = relaxed ] && run_altflow relaxed 64 64 0

if [ -z "${SKIP_IMG2DATASET:-}" ]; then
  for threads in 64 16; do
    start_server
    rm -rf "$work/img2dataset"
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" img2dataset --url_list "$work/list.csv" \
      --input_format csv --url_col url --caption_col caption --output_format webdataset \
      --output_folder "$work/img2dataset" --processes_count 1 --thread_count "$threads" \
      --image_size 512 --resize_mode keep_ratio --resize_only_if_bigger True \
      --number_sample_per_shard 1000 --retries 2 --enable_wandb False > "$work/img2dataset.log" 2>&1
    read -r wall user sys rss < "$work/time"
    written=$(python3 -c "import json,glob; print(sum(json.load(open(f))['successes'] for f in glob.glob('$work/img2dataset/*_stats.json')))")
    ideal=$($web ideal --plan "$work/plan.json" --concurrency "$threads" --per-host "$threads" --delay 0 | python3 -c "import json,sys; print(json.load(sys.stdin)['ideal_s'])")
    report "img2dataset ($threads threads)" "$written" "$wall" "$user" "$sys" "$rss" "$ideal"
  done
fi
