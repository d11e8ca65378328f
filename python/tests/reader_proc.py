"""A trainer's loop for the stream test: reads its rank's samples and checkpoints after every step
the progress *and* the keys it trained on, in one atomic write (as a trainer saves model and
reader state together), so the keys of a killed and restarted run are exactly what it trained on.

    reader_proc.py CHECKPOINT --rank R --world-size W --output URL --brokers B --topic T
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from altflow_reader import AltflowDataset, Progress  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("checkpoint")
    parser.add_argument("--rank", type=int, required=True)
    parser.add_argument("--world-size", type=int, required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--brokers", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--idle-timeout", type=float, default=15)
    parser.add_argument("--step", type=float, default=0.03, help="seconds per training step")
    args = parser.parse_args()
    path = Path(args.checkpoint)
    saved = json.loads(path.read_text()) if path.exists() else {"progress": None, "keys": []}
    progress = Progress(saved["progress"])
    keys = saved["keys"]
    data = AltflowDataset(args.output, brokers=args.brokers, topic=args.topic, rank=args.rank,
                          world_size=args.world_size, idle_timeout=args.idle_timeout,
                          shuffle_buffer=8, seed=7, resume=saved["progress"])
    batch = []
    started = time.time()

    def step():
        time.sleep(args.step)  # the "training step"
        progress.update(batch)
        keys.extend(s["__key__"] for s in batch)
        for s in batch:
            assert s["jpg"][:2] == b"\xff\xd8", s["__key__"]
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"progress": progress.state_dict(), "keys": keys,
                                   "started": started}))
        os.replace(tmp, path)
        batch.clear()

    for sample in data:
        batch.append(sample)
        if len(batch) == 3:
            step()
    if batch:
        step()
    print(json.dumps({"rank": args.rank, "samples": len(keys)}))


if __name__ == "__main__":
    main()
