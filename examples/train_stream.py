#!/usr/bin/env python3
"""Train a small contrastive image–text model from altflow's stream while the crawl writes it.

    pip install ./python torch pillow confluent-kafka
    python3 examples/train_stream.py --output out                          # list the output
    python3 examples/train_stream.py --output s3://b/out --brokers host:9092 --topic altflow.shards

The model is CLIP's recipe in miniature: a small CNN over 64×64 images, a bag of hashed words for
the caption, both projected to 64 dimensions, and the symmetric InfoNCE loss over the batch. It is
here to show the loop a real trainer needs — data-loader workers splitting the stream, the reader's
progress saved with the model, resume after a crash, throughput logged — not to be a good model.
Runs on CPU here and on a GPU unchanged (`--device cuda`, the default when one is there). Under
`torchrun` every rank reads its own share of the shards.
"""
import argparse
import os
import re
import time
import zlib

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from altflow_reader import AltflowDataset, Progress

SIDE = 64
VOCAB = 1 << 15
WORD = re.compile(r"[a-z0-9]+")


def words(caption: str) -> torch.Tensor:
    """A caption as hashed word ids (at most 32), 0-padded."""
    ids = [1 + zlib.crc32(w.encode()) % (VOCAB - 1) for w in WORD.findall(caption.lower())][:32]
    return torch.tensor(ids + [0] * (32 - len(ids)), dtype=torch.long)


def prepare(sample: dict) -> dict:
    """Runs in the data-loader workers: the decoded image to a normalised tensor, the caption to
    word ids; the keys `Progress` counts pass through."""
    image = sample["image"].resize((SIDE, SIDE))
    pixels = torch.frombuffer(bytearray(image.tobytes()), dtype=torch.uint8)
    pixels = pixels.view(SIDE, SIDE, 3).permute(2, 0, 1).float().div(255).sub(0.5).div(0.25)
    return {"pixels": pixels, "words": words(sample["caption"]),
            **{k: sample[k] for k in ("__shard__", "__index__", "__rows__", "__epoch__")}}


def collate(samples):
    return {
        "pixels": torch.stack([s["pixels"] for s in samples]),
        "words": torch.stack([s["words"] for s in samples]),
        **{k: [s[k] for s in samples] for k in ("__shard__", "__index__", "__rows__", "__epoch__")},
    }


class Contrastive(nn.Module):
    def __init__(self, dim: int = 64):
        super().__init__()
        self.image = nn.Sequential(
            nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, dim))
        self.text = nn.EmbeddingBag(VOCAB, dim, mode="mean", padding_idx=0)
        self.scale = nn.Parameter(torch.tensor(2.659))  # log(1/0.07), CLIP's initial temperature

    def forward(self, pixels, word_ids):
        images = F.normalize(self.image(pixels), dim=-1)
        texts = F.normalize(self.text(word_ids), dim=-1)
        logits = images @ texts.t() * self.scale.exp().clamp(max=100)
        target = torch.arange(len(logits), device=logits.device)
        return (F.cross_entropy(logits, target) + F.cross_entropy(logits.t(), target)) / 2


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", help="the pipeline's output (directory or URL) to list")
    parser.add_argument("--brokers", help="Kafka-protocol brokers: follow the shards topic")
    parser.add_argument("--topic", default="altflow.shards", help="the shards topic's full name")
    parser.add_argument("--checkpoint", default="train-checkpoint.pt")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--idle-timeout", type=float, default=60,
                        help="an epoch ends when no shard has come for this long (s)")
    parser.add_argument("--shuffle-buffer", type=int, default=256)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--log-every", type=float, default=5.0, help="seconds between log lines")
    args = parser.parse_args()

    torch.manual_seed(0)
    model = Contrastive().to(args.device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    state = torch.load(args.checkpoint) if os.path.exists(args.checkpoint) else None
    if state:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        print(f"resumed: epoch {state['progress']['epoch']}, "
              f"{state['progress']['samples']} samples in")
    progress = Progress(state["progress"] if state else None)

    data = AltflowDataset(args.output, brokers=args.brokers, topic=args.topic,
                          idle_timeout=args.idle_timeout, shuffle_buffer=args.shuffle_buffer,
                          decode="pil", columns=["caption"], transform=prepare,
                          resume=progress.state_dict() if state else None)
    loader = DataLoader(data, batch_size=args.batch_size, num_workers=args.workers,
                        collate_fn=collate, persistent_workers=False)
    for epoch in range(progress.epoch, args.epochs):
        data.set_epoch(epoch)
        started = last = time.monotonic()
        seen_at_last, steps = progress.samples, 0
        for batch in loader:
            if len(batch["pixels"]) < 2:
                progress.update(batch)  # a contrastive loss needs a negative: skipped, counted
                continue
            loss = model(batch["pixels"].to(args.device), batch["words"].to(args.device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            progress.update(batch)
            steps += 1
            now = time.monotonic()
            if now - last >= args.log_every:
                rate = (progress.samples - seen_at_last) / (now - last)
                print(f"epoch {epoch} step {steps}: loss {loss.item():.3f}, {rate:.0f} samples/s, "
                      f"{len(progress.complete)} shards consumed", flush=True)
                last, seen_at_last = now, progress.samples
                save(args.checkpoint, model, optimizer, progress)
        save(args.checkpoint, model, optimizer, progress)
        elapsed = time.monotonic() - started
        print(f"epoch {epoch} done: {steps} steps, {len(progress.complete)} shards, "
              f"{elapsed:.1f} s (the last {args.idle_timeout:g} s waiting for more)", flush=True)


def save(path, model, optimizer, progress):
    """Model, optimiser and reader position in one file, replaced atomically."""
    tmp = path + ".tmp"
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "progress": progress.state_dict()}, tmp)
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
