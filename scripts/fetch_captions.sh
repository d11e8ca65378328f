#!/usr/bin/env bash
# Fetches real alt texts for the filter benchmark and the PERSON measurement into
# .tools/captions/alts.txt (one distinct alt text per line, in order of first appearance), and keeps
# the news pages themselves in .tools/captions/pages/ for the dominance labels of
# scripts/quality_report.py, and the GIMP manual's pages in .tools/captions/gimp/ for the Common
# Crawl-shaped archives of scripts/make_cc_archives.py.
#
# No registry reachable here ships a web caption corpus (CC3M, CC12M, COCO captions), so this takes
# the real `<img alt>` attributes of two sources, fetched, never committed:
#   - newspaper4k 0.9.6 (PyPI, sdist): the news pages of its test suite (CNN, Wired, Time, …);
#     about 290 distinct alt texts of photos, names included;
#   - gimp-help-en (Debian): the GIMP manual's HTML; about 1,240 distinct alt texts of
#     screenshots and filter examples (GFDL).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/.tools/captions"
[ -s "$out/alts.txt" ] && [ -d "$out/pages" ] && [ -d "$out/gimp" ] && { echo "$out/alts.txt is there"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
python3 -m pip download --quiet --no-deps --no-binary :all: -d "$tmp" 'newspaper4k==0.9.6'
tar xzf "$tmp"/newspaper4k-0.9.6.tar.gz -C "$tmp"
mkdir -p "$out/pages"
cp "$tmp"/newspaper4k-0.9.6/tests/data/html/*.html "$out/pages/"
(cd "$tmp" && apt-get download gimp-help-en >/dev/null 2>&1 \
  || { apt-get update >/dev/null && apt-get download gimp-help-en >/dev/null; })
dpkg-deb -x "$tmp"/gimp-help-en_*.deb "$tmp/gimp"
rm -rf "$out/gimp"
cp -r "$tmp/gimp/usr/share/gimp/2.0/help/en" "$out/gimp"
python3 - "$tmp/newspaper4k-0.9.6/tests/data/html" "$tmp/gimp/usr/share/gimp/2.0/help/en" \
  > "$out/alts.txt" <<'PY'
import os, sys
from html.parser import HTMLParser

class Alts(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.alts = []
    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.alts += [" ".join(v.split()) for k, v in attrs if k == "alt" and v and v.strip()]

found = []
for top in sys.argv[1:]:
    for directory, _, files in sorted(os.walk(top)):
        for name in sorted(files):
            if name.endswith((".html", ".htm")):
                parser = Alts()
                with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as f:
                    parser.feed(f.read())
                found += parser.alts
print("\n".join(dict.fromkeys(found)))
PY
wc -l "$out/alts.txt"
