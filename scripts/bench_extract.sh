#!/usr/bin/env bash
# One core's speed at reading Common Crawl files, side by side with cc2dataset's extraction.
#
# Builds (once, into .tools/cc-shaped/) a WAT of Common Crawl's size and shape and a WARC from real
# pages (scripts/make_cc_archives.py), then, pinned to one core and interleaved RUNS times:
#   - `gzip -dc` of the WAT to /dev/null: inflating alone, the floor;
#   - `altflow extract --warc` on the WAT (candidates as JSON lines to /dev/null);
#   - cc2dataset's `extract_documents_from_wat` on the WAT (scripts/cc2dataset_extract.py: only the
#     extraction is timed, the file is read into memory first as cc2dataset does);
#   - `altflow extract --warc` on the WARC (HTML parsed).
# Prints each one's median, the ratio to cc2dataset, and the image links each found.
#
#   scripts/bench_extract.sh                     # a 1 GiB WAT and a 1 GiB WARC, 3 runs
#   SIZE=100M RUNS=5 scripts/bench_extract.sh
#   BIN=/tmp/altflow-old scripts/bench_extract.sh   # another build (nothing is built)
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${SIZE:-1G}
RUNS=${RUNS:-3}
CORE=${CORE:-0}
bin=${BIN:-target/release/altflow}
[ -n "${BIN:-}" ] || cargo build --release --quiet
python3 -c "import fastwarc, simdjson, loguru, fsspec" 2>/dev/null ||
  python3 -m pip install --quiet fastwarc pysimdjson loguru fsspec
# cc2dataset without its Spark dependencies (scripts/cc2dataset_extract.py says why).
python3 -c "import importlib.util, sys; sys.exit(not importlib.util.find_spec('cc2dataset'))" ||
  python3 -m pip install --quiet --no-deps 'cc2dataset==1.5.0'
scripts/fetch_captions.sh >/dev/null
dir=.tools/cc-shaped/$SIZE
wat=$dir/wat/CC-SHAPED-20261126000000-00000.warc.wat.gz
warc=$dir/warc/CC-SHAPED-20261126000000-00000.warc.gz
[ -f "$wat" ] || python3 scripts/make_cc_archives.py "$dir/wat" --size "$SIZE" --kind wat
[ -f "$warc" ] || python3 scripts/make_cc_archives.py "$dir/warc" --size "$SIZE" --kind warc
ls -l "$wat" "$warc"
echo "inflated WAT: $(gzip -dc "$wat" | wc -c) bytes"

pin() { taskset -c "$CORE" "$@"; }
seconds() { # command… : wall seconds of one run, output discarded
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  python3 -c "print(round($end - $start, 3))"
}
declare -A times
for run in $(seq "$RUNS"); do
  times[gzip]+="$(seconds pin gzip -dc "$wat") "
  times[altflow_wat]+="$(seconds pin "$bin" extract --warc "$wat") "
  times[cc2dataset_wat]+="$(pin python3 scripts/cc2dataset_extract.py "$wat" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["seconds"])') "
  times[altflow_warc]+="$(seconds pin "$bin" extract --warc "$warc") "
  echo "run $run: ${times[*]}" >&2
done
ours=$("$bin" extract --warc "$wat" | wc -l)
theirs=$(python3 scripts/cc2dataset_extract.py "$wat" | python3 -c 'import json,sys; print(json.load(sys.stdin)["links"])')
warc_ours=$("$bin" extract --warc "$warc" | wc -l)
python3 - "$(stat -c %s "$wat")" "$ours" "$theirs" "$warc_ours" "$(stat -c %s "$warc")" \
  "${times[gzip]}" "${times[altflow_wat]}" "${times[cc2dataset_wat]}" "${times[altflow_warc]}" <<'PY'
import statistics, sys
wat_bytes, ours, theirs, warc_ours, warc_bytes = map(int, sys.argv[1:6])
names = ["gzip -dc (WAT)", "altflow extract (WAT)", "cc2dataset (WAT)", "altflow extract (WARC)"]
medians = [statistics.median(map(float, t.split())) for t in sys.argv[6:10]]
cc = medians[2]
for name, m in zip(names, medians):
    # The WARC holds other captures than the WAT: its speed is compared with nothing.
    size = warc_bytes if "WARC" in name else wat_bytes
    versus = "" if "WARC" in name else f"  {cc / m:5.2f}x cc2dataset's speed"
    print(f"{name:<24} median {m:7.2f} s  {size / m / 2**20:7.1f} MiB/s compressed{versus}")
print(f"image links with alt: altflow {ours} (WAT), cc2dataset {theirs} (WAT), altflow {warc_ours} (WARC)")
PY
