#!/usr/bin/env bash
# Memory while crawling: `altflow run` crawls PAGES pages of a synthetic site on 127.0.0.1 (a
# separate Python process generating pages on the fly) and the script samples the process's RSS
# against the number of pages crawled so far (from the Prometheus endpoint).
#
# Page N links to pages N+1 … N+16 (most already known: the seen-filter's work) and back to page 0
# and N/2, and holds three images with alt text: its own, one shared by its neighbours, and a logo
# repeated on every page (the repeat counter's work). Only the crawl stage runs; the candidates it
# emits are dropped by the bus beyond its capacity, so what grows is the crawler's own state.
#
#   scripts/bench_crawl_memory.sh                 # 100000 pages
#   PAGES=20000 scripts/bench_crawl_memory.sh
#   BIN=/tmp/altflow-old scripts/bench_crawl_memory.sh   # another build (nothing is built)
set -euo pipefail
cd "$(dirname "$0")/.."
PAGES=${PAGES:-100000}
bin=${BIN:-target/release/altflow}
[ -n "${BIN:-}" ] || cargo build --release --quiet
work=$(mktemp -d)
trap 'kill $server $crawler 2>/dev/null || true; rm -rf "$work"' EXIT
free_port() { python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"; }
port=$(free_port)
metrics=$(free_port)

python3 - "$port" "$PAGES" <<'PY' &
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
port, pages = int(sys.argv[1]), int(sys.argv[2])
class Site(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def do_GET(self):
        if self.path == "/robots.txt":
            body = b"User-agent: *\nDisallow: /private/\n"
        elif self.path.startswith("/p/"):
            n = int(self.path[3:].split(".")[0])
            links = [m for m in range(n + 1, n + 17) if m < pages] + [0, n // 2]
            body = ("<html lang=en><title>Page %d</title><body><header><img src=/logo.png alt='the site logo'></header>" % n
                    + "".join("<a href=/p/%d.html>page %d</a> " % (m, m) for m in links)
                    + "<figure><img src=/img/%d.jpg width=800 height=600 alt='a photograph of scene number %d'>"
                      "<figcaption>Scene %d</figcaption></figure>" % (n, n, n)
                    + "<p>Some text around the pictures, long enough to be context.</p>"
                    + "<img src=/img/shared-%d.jpg alt='a picture shared by neighbouring pages'>" % (n // 10)
                    + "</body></html>").encode()
        else:
            self.send_response(404); self.send_header("content-length", "0"); self.end_headers(); return
        self.send_response(200)
        self.send_header("content-type", "text/html" if self.path.startswith("/p/") else "text/plain")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
ThreadingHTTPServer(("127.0.0.1", port), Site).serve_forever()
PY
server=$!
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$port))" 2>/dev/null && break; sleep 0.1; done

cat > "$work/crawl.toml" <<TOML
stages = ["crawl"]
[bus]
kind = "embedded"
[crawl]
seeds = ["http://127.0.0.1:$port/p/0.html"]
max_depth = 1000000
max_pages_per_host = 1000000
[http]
allow_networks = ["127.0.0.0/8"]
per_host_concurrency = 32
concurrency = 64
min_host_delay = "0ms"
[write]
output = "$work/out"
[metrics]
listen = "127.0.0.1:$metrics"
TOML

"$bin" run "$work/crawl.toml" > "$work/funnel" 2> "$work/log" &
crawler=$!
echo "pages_crawled rss_mib"
while kill -0 $crawler 2>/dev/null; do
  sleep 5
  crawled=$(python3 -c "
import urllib.request
text = urllib.request.urlopen('http://127.0.0.1:$metrics/metrics').read().decode()
print(sum(int(float(l.split()[-1])) for l in text.splitlines() if l.startswith('altflow_records_in_total{stage=\"crawl\"}')))
" 2>/dev/null || echo "?")
  rss=$(awk '/VmRSS/ {printf "%.1f", $2 / 1024}' /proc/$crawler/status 2>/dev/null || echo "?")
  echo "$crawled $rss"
done
wait $crawler || true
cat "$work/funnel"
