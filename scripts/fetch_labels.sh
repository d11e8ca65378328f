#!/usr/bin/env bash
# Writes label vocabularies for zero-shot labels (`score.labels`) into .tools/labels/:
# coco.txt (80 names), imagenet.txt (1,000 names) and coco+imagenet.txt (both, without repeats),
# one name per line, taken from torchvision's class-name lists in Debian's python3-torchvision
# package (BSD-3). Fetched, not committed.
#
#   scripts/fetch_labels.sh && grep -c . .tools/labels/coco+imagenet.txt
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/.tools/labels"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download python3-torchvision >/dev/null 2>&1)
dpkg-deb -x "$tmp"/python3-torchvision_*.deb "$tmp/x"
meta="$(find "$tmp/x" -name _meta.py -path '*torchvision/models/*' | head -n1)"
mkdir -p "$out"
python3 - "$meta" "$out" <<'PY'
import ast, os, sys
meta, out = sys.argv[1], sys.argv[2]
lists = {}
for node in ast.parse(open(meta, encoding="utf-8").read()).body:
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
        lists[node.targets[0].id] = node.value
def names(key):
    return [n for n in ast.literal_eval(lists[key])]
# torchvision's COCO list keeps the dataset's 91 ids: gaps are "N/A", the background "__background__".
coco = [n for n in names("_COCO_CATEGORIES") if n not in ("N/A", "__background__")]
imagenet = names("_IMAGENET_CATEGORIES")
assert len(coco) == 80 and len(imagenet) == 1000, (len(coco), len(imagenet))
both = list(dict.fromkeys(coco + imagenet))
for name, items in [("coco", coco), ("imagenet", imagenet), ("coco+imagenet", both)]:
    with open(os.path.join(out, name + ".txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(items) + "\n")
    print(f"{out}/{name}.txt: {len(items)} labels")
PY
