#!/usr/bin/env python3
"""Reader throughput: altflow_reader against plain `webdataset` over the same shards, side by side.

    python3 scripts/bench_reader.py [--bin target/debug/altflow] [--images 2000] [--rounds 3]

Writes IMAGES samples (scripts/long_tail_web.py's 640×480 JPEGs resized to 512 on the long side,
200 per shard) with a real `altflow run`, into a directory and into an S3 bucket on moto_server,
then reads every sample in one process (one data-loader worker's share) with each reader, rounds
interleaved, and prints samples/s medians and ratios. On S3, webdataset streams each tar through
boto3 (registered as its `s3://` opener: webdataset has none of its own), altflow_reader through
pyarrow's S3 client.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "python"), str(ROOT / "python/tests")]

import webdataset as wds  # noqa: E402

from altflow_reader import AltflowDataset, list_shards  # noqa: E402
from conftest import S3_ENV, Web, free_port, pipeline, stop, wait_for_port  # noqa: E402


def altflow(output, decode):
    return sum(1 for _ in AltflowDataset(output, follow=False, decode=decode))


def open_s3(url, mode="rb", bufsize=8192):
    """webdataset's opener for s3:// URLs: boto3's streaming GET."""
    import boto3

    bucket, _, key = url[len("s3://"):].partition("/")
    client = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT"])
    return client.get_object(Bucket=bucket, Key=key)["Body"]


sys.modules["webdataset.gopen"].gopen_schemes["s3"] = open_s3


def webdataset(urls, decode):
    data = wds.WebDataset(urls, shardshuffle=False, empty_check=False)
    if decode:
        data = data.decode("pil")
    return sum(1 for _ in data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=str(ROOT / "target/debug/altflow"))
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        port = free_port()
        moto = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(port)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        web = None
        try:
            wait_for_port(port, moto, "moto_server")
            endpoint, bucket = f"http://127.0.0.1:{port}", f"b-{uuid.uuid4().hex[:8]}"
            urllib.request.urlopen(urllib.request.Request(f"{endpoint}/{bucket}", method="PUT"))
            os.environ.update(S3_ENV, AWS_ENDPOINT=endpoint)
            web = Web(work / "web", args.images)
            urls = web.url_list("all", 0, args.images)
            outputs = {"local": str(work / "out"), "s3": f"s3://{bucket}/out"}
            for output in outputs.values():
                pipe = pipeline(work / "p.toml", urls, output, max_side=512, max_records=200)
                subprocess.run([args.bin, "run", str(pipe)], check=True, cwd=work,
                               capture_output=True)
            shards = list_shards(outputs["local"])
            tars = {"local": [s.url for s in shards],
                    "s3": [s.url for s in list_shards(outputs["s3"])]}
            size = sum(os.path.getsize(u) for u in tars["local"])
            print(f"{args.images} samples in {len(shards)} shards, {size / 1e6:.0f} MB")
            cases = [(where, decode) for where in ("local", "s3") for decode in (None, "pil")]
            results = {}
            for where, decode in cases:
                ours, theirs = [], []
                for _ in range(args.rounds):
                    t = time.monotonic()
                    n = altflow(outputs[where], decode)
                    ours.append(n / (time.monotonic() - t))
                    t = time.monotonic()
                    m = webdataset(tars[where], decode)
                    theirs.append(m / (time.monotonic() - t))
                    assert n == m == args.images, (n, m)
                a, b = statistics.median(ours), statistics.median(theirs)
                name = f"{where}, {'decoded (PIL)' if decode else 'bytes'}"
                results[name] = {"altflow_reader": round(a), "webdataset": round(b),
                                 "ratio": round(a / b, 2)}
                print(f"{name:>22}: altflow_reader {a:.0f}/s, webdataset {b:.0f}/s, "
                      f"ratio {a / b:.2f}", flush=True)
            print(json.dumps(results))
        finally:
            if web is not None:
                stop(web.proc)
            stop(moto)


if __name__ == "__main__":
    main()
