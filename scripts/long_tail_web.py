#!/usr/bin/env python3
"""A synthetic web with the real web's long tail, for scripts/bench_long_tail.sh.

`plan` writes the URL list (url,caption CSV) and a plan (JSON: per URL its host, latency, status)
drawn from a seeded generator; `serve` answers the plan's URLs on HOSTS loopback addresses
(127.0.0.1 … 127.0.0.HOSTS, one port); `ideal` prints the lower bound on the wall time of fetching
the plan with a given politeness.

The mix, per URL: 85 % answer in 20–100 ms, 10 % in 0.5–2 s, 4 % in 3 s, 1 % in 6 s; 3 % are 404;
3 % answer their first request with 429 and `Retry-After: 2`, and the image on the next. With
`--mix fast` every URL answers its image in 20–100 ms (where a fetcher's CPU, not the web, decides). URLs go to
hosts with Zipf-like weights (rank^-0.5), as a crawl's hosts are uneven. Images are 640x480 JPEGs
(the sample site's pictures); every URL is a distinct sample.
"""
import argparse
import asyncio
import csv
import io
import json
import random
import sys
from pathlib import Path


def plan(args):
    rng = random.Random(args.seed)
    weights = [1 / (rank + 1) ** 0.5 for rank in range(args.hosts)]
    rows = []
    for k in range(args.images):
        host = rng.choices(range(args.hosts), weights)[0] + 1
        draw = 0.0 if args.mix == "fast" else rng.random()
        if draw < 0.85:
            latency = rng.uniform(0.02, 0.1)
        elif draw < 0.95:
            latency = rng.uniform(0.5, 2.0)
        elif draw < 0.99:
            latency = 3.0
        else:
            latency = 6.0
        kind = 1.0 if args.mix == "fast" else rng.random()
        status = 404 if kind < 0.03 else 429 if kind < 0.06 else 200
        rows.append({"host": host, "path": f"/img/{k}.jpg", "latency": round(latency, 4),
                     "status": status, "picture": k % 8})
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "plan.json").write_text(json.dumps(rows))
    with open(out / "list.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["url", "caption"])
        for k, row in enumerate(rows):
            w.writerow([f"http://127.0.0.{row['host']}:{args.port}{row['path']}",
                        f"a picture of the long tail, number {k}"])


def ideal(args):
    """Lower bound on the wall time: the busiest of the member's connections, and each host's
    politeness (starts `delay` apart, at most `per_host` at once, a 429's Retry-After)."""
    rows = json.loads(Path(args.plan).read_text())
    # A throttled URL costs its 429, the host's pause and the retried download.
    cost = lambda r: r["latency"] * (2 if r["status"] == 429 else 1) + (2.0 if r["status"] == 429 else 0.0)
    total = sum(cost(r) for r in rows)
    bound = max(total / args.concurrency, max(cost(r) for r in rows))
    per_host = {}
    for r in rows:
        per_host.setdefault(r["host"], []).append(r)
    worst = 0.0
    for host_rows in per_host.values():
        n = len(host_rows) + sum(r["status"] == 429 for r in host_rows)
        busy = sum(cost(r) for r in host_rows) / min(args.per_host, args.concurrency)
        spaced = (n - 1) * args.delay + min(r["latency"] for r in host_rows)
        worst = max(worst, busy, spaced)
    images = sum(r["status"] != 404 for r in rows)
    print(json.dumps({"ideal_s": round(max(bound, worst), 2), "connections_bound_s": round(bound, 2),
                      "politeness_bound_s": round(worst, 2), "images": images,
                      "sum_latency_s": round(total, 1)}))


async def serve(args):
    from PIL import Image
    rows = json.loads(Path(args.plan).read_text())
    by_key = {(f"127.0.0.{r['host']}", r["path"]): r for r in rows}
    pictures = []
    for src in sorted(Path(args.pictures).glob("*.jpg"))[:8]:
        buf = io.BytesIO()
        Image.open(src).convert("RGB").resize((640, 480)).save(buf, "JPEG", quality=90)
        pictures.append(buf.getvalue())
    throttled = set()

    async def handle(reader, writer):
        local = writer.get_extra_info("sockname")[0]
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                path = head.split(b" ", 2)[1].decode()
                row = by_key.get((local, path))
                if row is None:
                    status, headers, body = 404, "", b"not found"
                else:
                    await asyncio.sleep(row["latency"])
                    if row["status"] == 404:
                        status, headers, body = 404, "", b"gone"
                    elif row["status"] == 429 and (local, path) not in throttled:
                        throttled.add((local, path))
                        status, headers, body = 429, "retry-after: 2\r\n", b""
                    else:
                        status, headers, body = 200, "content-type: image/jpeg\r\n", pictures[row["picture"]]
                reason = {200: "OK", 404: "Not Found", 429: "Too Many Requests"}[status]
                writer.write(f"HTTP/1.1 {status} {reason}\r\n{headers}content-length: {len(body)}\r\n\r\n".encode() + body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, IndexError):
            pass
        finally:
            writer.close()

    servers = [await asyncio.start_server(handle, f"127.0.0.{h}", args.port, backlog=1024)
               for h in range(1, args.hosts + 1)]
    print("serving", flush=True)
    await asyncio.gather(*(s.serve_forever() for s in servers))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("plan")
    a.add_argument("--dir", required=True)
    a.add_argument("--images", type=int, default=2000)
    a.add_argument("--hosts", type=int, default=32)
    a.add_argument("--port", type=int, required=True)
    a.add_argument("--seed", type=int, default=13)
    a.add_argument("--mix", choices=["long-tail", "fast"], default="long-tail")
    a = sub.add_parser("ideal")
    a.add_argument("--plan", required=True)
    a.add_argument("--concurrency", type=int, required=True)
    a.add_argument("--per-host", type=int, required=True)
    a.add_argument("--delay", type=float, required=True)
    a = sub.add_parser("serve")
    a.add_argument("--plan", required=True)
    a.add_argument("--hosts", type=int, default=32)
    a.add_argument("--port", type=int, required=True)
    a.add_argument("--pictures", default="examples/site/img")
    args = p.parse_args()
    if args.cmd == "plan":
        plan(args)
    elif args.cmd == "ideal":
        ideal(args)
    else:
        asyncio.run(serve(args))


if __name__ == "__main__":
    sys.exit(main())
