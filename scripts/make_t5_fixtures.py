#!/usr/bin/env python3
"""Generates the tiny random-weight T5 checkpoints in tests/fixtures/t5/ and the outputs Hugging
Face transformers computes with them, which altflow's T5 (candle, src/qgen/t5.rs) must reproduce.

No T5, question-generation or QA weights can be had here, so the tests prove the loader, the
forward pass and generation on small random models with every piece of the architecture:
relative-position buckets (bidirectional in the encoder, unidirectional in the decoder), tied and
untied output projections, relu and gated-gelu feed-forward layers, different encoder and decoder
depths, padded batches. The tokenizer is a Unigram (SentencePiece-style) model trained here with
the `tokenizers` library on caption-like sentences, with a Metaspace pre-tokenizer and `</s>`
appended, as T5's tokenizer.json is laid out.

Usage (needs torch, transformers, safetensors, tokenizers; a few GB of wheels):
    python -m venv /tmp/t5venv && /tmp/t5venv/bin/pip install torch transformers safetensors tokenizers
    /tmp/t5venv/bin/python scripts/make_t5_fixtures.py              # tests/fixtures/t5 (committed)
    /tmp/t5venv/bin/python scripts/make_t5_fixtures.py --small DIR  # a T5-small-shaped random model
                                                                    # for benches (not committed)
"""

import argparse
import json
import os
import sys

import torch
from safetensors.torch import save_file
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import T5Config, T5ForConditionalGeneration

ROOT = os.path.join(os.path.dirname(__file__), "..")
OUT = os.path.join(ROOT, "tests", "fixtures", "t5")

SUBJECTS = ["a man", "a woman", "two dogs", "a cat", "three people", "a young boy", "a girl",
            "an elephant", "a red bus", "a black and white cat", "PERSON"]
VERBS = ["riding", "holding", "eating", "playing with", "sitting on", "walking along",
         "standing next to", "throwing", "looking at"]
OBJECTS = ["a horse", "an umbrella", "a slice of pizza", "a ball", "a bench", "the river",
           "a tree", "a frisbee", "the camera"]
PLACES = ["on a dirt road", "in the snow", "in the park", "on the beach", "in a kitchen",
          "at the station", "in LOC"]


def corpus():
    lines = []
    for s in SUBJECTS:
        for v in VERBS:
            for o in OBJECTS[:5]:
                lines.append(f"{s} {v} {o} {PLACES[(len(s) + len(v)) % len(PLACES)]}")
    for o in OBJECTS:
        lines.append(f"answer: {o} context: a man holding {o}")
        lines.append(f"question: what is the man holding? context: a man holding {o}")
    lines += ["who is riding a horse?", "where are the dogs playing?", "how many dogs are there?",
              "what color is the bus?", "is the man riding a horse? yes", "no", "yes"]
    return lines


def make_tokenizer():
    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    trainer = trainers.UnigramTrainer(
        vocab_size=400, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>")
    tok.train_from_iterator(corpus(), trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", 1)])
    assert tok.token_to_id("<pad>") == 0 and tok.token_to_id("</s>") == 1
    return tok


PROMPTS = [
    "answer: a horse context: a man riding a horse on a dirt road",
    "question: what is the man riding? context: a man riding a horse",
    "answer: yes context: two dogs are playing in the snow",
]


def model(name, tok, **config):
    torch.manual_seed(sum(map(ord, name)))
    cfg = T5Config(vocab_size=tok.get_vocab_size(), pad_token_id=0, eos_token_id=1,
                   decoder_start_token_id=0, dropout_rate=0.0, **config)
    m = T5ForConditionalGeneration(cfg).eval()
    with torch.no_grad():
        # transformers' init is tuned for training; a wider spread makes the argmax and beams
        # depend on every weight instead of ties, and the relative-position tables matter.
        for p in m.parameters():
            p.normal_(0.0, 0.18 if p.dim() > 1 else 0.1)
        for n, p in m.named_parameters():
            if "layer_norm" in n:
                p.fill_(1.0).add_(torch.randn_like(p) * 0.1)
        if name == "tiny-untied":
            # Make the end token likely, so that generation ends mid-sequence and the tests cover
            # finished hypotheses.
            m.lm_head.weight[1] = m.lm_head.weight.mean(0) + m.lm_head.weight[1] * 0.3 + 0.4
    return m


def save(m, tok, name):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    m.config.save_pretrained(d)
    # (transformers 5 sizes its decoder cache by the encoder depth: a deeper decoder than encoder
    # fails in `generate`, so the untied model has the deeper encoder.)
    tensors = {k: v.detach().clone().contiguous() for k, v in m.state_dict().items()
               if not k.endswith("embed_tokens.weight")}
    if m.config.scale_decoder_outputs:
        # Original T5: tied and scaled; no lm_head tensor in the checkpoint.
        tensors.pop("lm_head.weight", None)
    else:
        # T5 v1.1 / flan-T5 as their checkpoints are laid out: `tie_word_embeddings: false`, no
        # `scale_decoder_outputs` key (transformers 5 derives it from the former), and their own
        # `lm_head.weight` (transformers 5 ties it to the embedding, so it equals `shared` here).
        with open(os.path.join(d, "config.json")) as f:
            config = json.load(f)
        config.pop("scale_decoder_outputs", None)
        config["tie_word_embeddings"] = False
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(config, f, indent=2)
    save_file(tensors, os.path.join(d, "model.safetensors"))
    tok.save(os.path.join(d, "tokenizer.json"))

    enc = [tok.encode(p).ids for p in PROMPTS]
    s = max(map(len, enc))
    ids = torch.tensor([e + [0] * (s - len(e)) for e in enc])
    mask = torch.tensor([[1] * len(e) + [0] * (s - len(e)) for e in enc])
    g = torch.Generator().manual_seed(7)
    decoder = torch.randint(3, tok.get_vocab_size(), (len(PROMPTS), 27), generator=g)
    decoder[:, 0] = 0
    with torch.no_grad():
        logits = m(input_ids=ids, attention_mask=mask, decoder_input_ids=decoder).logits
        greedy = m.generate(input_ids=ids, attention_mask=mask, max_new_tokens=20, do_sample=False,
                            num_beams=1)
        beam = m.generate(input_ids=ids, attention_mask=mask, max_new_tokens=20, do_sample=False,
                          num_beams=4)

    def strip(rows):
        # Without the decoder start token and the padding after the end token.
        out = []
        for r in rows.tolist():
            r = r[1:]
            if 1 in r:
                r = r[: r.index(1) + 1]
            out.append(r)
        return out

    reference = {
        "prompts": PROMPTS,
        "input_ids": enc,
        "decoder_input_ids": decoder.tolist(),
        "greedy": strip(greedy),
        "beam4": strip(beam),
    }
    with open(os.path.join(d, "reference.json"), "w") as f:
        json.dump(reference, f)
    save_file({"logits": logits.contiguous()}, os.path.join(d, "reference.safetensors"))
    print(name, "greedy", reference["greedy"], "beam", reference["beam4"], file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", help="write a T5-small-shaped random model here instead")
    args = ap.parse_args()
    tok = make_tokenizer()
    if args.small:
        torch.manual_seed(0)
        cfg = T5Config(vocab_size=32128, d_model=512, d_kv=64, d_ff=2048, num_layers=6,
                       num_heads=8, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
        m = T5ForConditionalGeneration(cfg).eval()
        os.makedirs(args.small, exist_ok=True)
        m.config.save_pretrained(args.small)
        tensors = {k: v.contiguous() for k, v in m.state_dict().items()
                   if not k.endswith("embed_tokens.weight") and k != "lm_head.weight"}
        save_file(tensors, os.path.join(args.small, "model.safetensors"))
        tok.save(os.path.join(args.small, "tokenizer.json"))
        return
    save(model("tiny-tied", tok, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4,
               relative_attention_num_buckets=32, relative_attention_max_distance=20,
               feed_forward_proj="relu", tie_word_embeddings=True), tok, "tiny-tied")
    save(model("tiny-untied", tok, d_model=48, d_kv=8, d_ff=96, num_layers=3,
               num_decoder_layers=2, num_heads=6, relative_attention_num_buckets=16,
               relative_attention_max_distance=24, feed_forward_proj="gated-gelu",
               tie_word_embeddings=False), tok, "tiny-untied")


if __name__ == "__main__":
    main()
