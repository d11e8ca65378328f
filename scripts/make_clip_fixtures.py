#!/usr/bin/env python3
"""Generates the tiny random-weight CLIP checkpoints in tests/fixtures/clip/ and the outputs
Hugging Face transformers computes with them, which altflow's CLIP (candle) must reproduce.

No real CLIP weights can be had here, so the tests prove the loader and the forward pass on small
random models that keep every piece of the real architecture: the real CLIP BPE tokenizer (49,408
tokens, built from open-clip-torch's merges file), 77 text positions, the ViT patch embedding and
class token, pre/post layer norms, projections, and both activations in use (`quick_gelu` in
OpenAI's checkpoints, `gelu` in OpenCLIP's converted to HF layout).

Weights are stored as float16 to keep the fixtures small; the reference outputs are computed in
float32 from the same float16-rounded weights, so they are exactly what a float32 load computes.

Usage (needs torch, transformers, safetensors, pillow; about 6 GB of wheels):
    python -m venv /tmp/venv && /tmp/venv/bin/pip install torch transformers safetensors pillow
    /tmp/venv/bin/python scripts/make_clip_fixtures.py
The result is committed; CI only loads it.
"""

import gzip
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import torch
from PIL import Image
from safetensors.torch import save_file
from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel, CLIPTokenizer

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "clip")
OPEN_CLIP = "open-clip-torch==3.3.0"

# Captions the parity tests embed: plain, punctuation, digits, accents, an apostrophe, upper case,
# and one longer than 77 tokens (truncation).
TEXTS = [
    "a photo of a cat",
    "A red double-decker bus on Oxford Street, London (2019).",
    "Café au lait & croissants — isn't breakfast great?",
    "3 dogs playing with 12 tennis balls",
    " ".join(["word"] * 100),
]


def bytes_to_unicode():
    """GPT-2's byte-to-printable-character table, which CLIP's BPE vocabulary is written in."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


def clip_tokenizer(out_dir):
    """The real CLIP tokenizer, from open-clip-torch's merges (the vocabulary OpenAI published)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, OPEN_CLIP],
            check=True,
        )
        wheel = next(f for f in os.listdir(tmp) if f.endswith(".whl"))
        with zipfile.ZipFile(os.path.join(tmp, wheel)) as z:
            merges_gz = z.read("open_clip/bpe_simple_vocab_16e6.txt.gz")
    lines = gzip.decompress(merges_gz).decode("utf-8").split("\n")
    # As open_clip's SimpleTokenizer: the first line is a header; 49152 − 256 − 2 merges are used.
    merges = lines[1 : 49152 - 256 - 2 + 1]
    symbols = list(bytes_to_unicode().values())
    vocab = symbols + [s + "</w>" for s in symbols]
    vocab += ["".join(m.split()) for m in merges]
    vocab += ["<|startoftext|>", "<|endoftext|>"]
    assert len(vocab) == 49408, len(vocab)
    pairs = [tuple(m.split()) for m in merges]
    tokenizer = CLIPTokenizer(vocab={t: i for i, t in enumerate(vocab)}, merges=pairs)
    tokenizer.model_max_length = 77
    tokenizer.save_pretrained(out_dir)
    for extra in ["tokenizer_config.json", "special_tokens_map.json", "vocab.json", "merges.txt"]:
        path = os.path.join(out_dir, extra)
        if os.path.exists(path):
            os.remove(path)
    return tokenizer


def make(name, tokenizer, text, vision, projection_dim, act, image_size, patch_size, resample, seed):
    out = os.path.join(ROOT, name)
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(seed)
    config = CLIPConfig(
        text_config=dict(
            vocab_size=49408,
            max_position_embeddings=77,
            hidden_act=act,
            bos_token_id=49406,
            eos_token_id=49407,
            pad_token_id=1,
            **text,
        ),
        vision_config=dict(image_size=image_size, patch_size=patch_size, hidden_act=act, **vision),
        projection_dim=projection_dim,
    )
    model = CLIPModel(config).eval()
    # Random init of transformers is small and near-identical across tokens; widen it so that
    # embeddings differ clearly between inputs (a parity test on near-constant outputs proves little).
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2:
                p.normal_(0.0, 0.2)
        # float16 storage; outputs are computed from the rounded weights.
        for p in model.parameters():
            p.copy_(p.half().float())
    state = {k: v.half().contiguous() for k, v in model.state_dict().items() if "position_ids" not in k}
    save_file(state, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
    config.save_pretrained(out)
    processor = CLIPImageProcessor(
        size={"shortest_edge": image_size},
        crop_size={"height": image_size, "width": image_size},
        resample=resample,
    )
    processor.save_pretrained(out)
    # Every fixture shares the one tokenizer file.
    link = os.path.join(out, "tokenizer.json")
    if not os.path.lexists(link):
        os.symlink("../tokenizer/tokenizer.json", link)

    ids = [tokenizer(t, truncation=True, max_length=77)["input_ids"] for t in TEXTS]
    reference = {}
    with torch.no_grad():
        text_embeds = []
        for row in ids:
            e = model.get_text_features(input_ids=torch.tensor([row])).pooler_output
            text_embeds.append(torch.nn.functional.normalize(e, dim=-1)[0])
        reference["text_embeds"] = torch.stack(text_embeds)
        g = torch.Generator().manual_seed(seed + 1)
        # Stored as float16 (small fixtures); the model sees exactly the rounded values.
        pixels = torch.randn(2, 3, image_size, image_size, generator=g).half().float()
        reference["pixel_values"] = pixels
        e = model.get_image_features(pixel_values=pixels).pooler_output
        reference["image_embeds"] = torch.nn.functional.normalize(e, dim=-1)
        photo = Image.open(os.path.join(ROOT, "photo.jpg")).convert("RGB")
        processed = processor(images=photo, return_tensors="pt")["pixel_values"]
        reference["photo_pixel_values"] = processed
        e = model.get_image_features(pixel_values=processed).pooler_output
        reference["photo_embeds"] = torch.nn.functional.normalize(e, dim=-1)
        reference["photo_similarity"] = reference["photo_embeds"] @ reference["text_embeds"].T
        reference["logit_scale"] = model.logit_scale.exp().reshape(1)
    stored = {k: v.float().contiguous() for k, v in reference.items()}
    stored["pixel_values"] = stored["pixel_values"].half()
    save_file(stored, os.path.join(out, "reference.safetensors"))
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump({"texts": TEXTS, "input_ids": ids}, f, ensure_ascii=False, indent=1)
    print(name, "written:", sorted(os.listdir(out)))


def main():
    os.makedirs(ROOT, exist_ok=True)
    tokenizer = clip_tokenizer(os.path.join(ROOT, "tokenizer"))
    if not os.path.exists(os.path.join(ROOT, "photo.jpg")):
        sys.exit("tests/fixtures/clip/photo.jpg is missing (a copy of examples/site/img/harbour-boats.jpg, CC0)")
    common = dict(num_hidden_layers=2, num_attention_heads=4, layer_norm_eps=1e-5)
    # OpenAI-style: quick_gelu, ViT-B/32 geometry (224 px, 32 px patches), bicubic.
    make(
        "openai-tiny",
        tokenizer,
        text=dict(hidden_size=32, intermediate_size=64, **common),
        vision=dict(hidden_size=48, intermediate_size=96, **common),
        projection_dim=24,
        act="quick_gelu",
        image_size=224,
        patch_size=32,
        resample=3,
        seed=1,
    )
    # OpenCLIP-style converted to HF layout: exact gelu, another geometry.
    make(
        "openclip-tiny",
        tokenizer,
        text=dict(hidden_size=16, intermediate_size=40, **common),
        vision=dict(hidden_size=32, intermediate_size=64, **common),
        projection_dim=16,
        act="gelu",
        image_size=64,
        patch_size=16,
        resample=3,
        seed=2,
    )


if __name__ == "__main__":
    main()
