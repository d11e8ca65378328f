#!/usr/bin/env python3
"""Question generation on a caption file, checked the way issue 14 asks.

Runs `altflow qgen` over the captions (examples/qgen/captions.txt by default) and reports:
- Q/A per caption, answer types and sources, yes/no balance;
- the mechanical checks: every question ends with "?" and starts with a question word or an
  auxiliary; every non-boolean answer is a span of its caption (numbers as digits) and not printed
  inside its question;
- how many questions link-grammar (Debian's python3-link-grammar, English dictionary) parses with
  no null links, when it is installed;
- with --sample N, a seeded random sample of N Q/A written as TSV for judging by hand.

Usage:
    /usr/bin/python3 scripts/qgen_report.py [--bin target/release/altflow] [--captions FILE]
        [--sample 100 --seed 1 --out /tmp/judge.tsv]
Exit status 1 when a mechanical check fails.
"""

import argparse
import collections
import json
import random
import re
import subprocess
import sys

QUESTION_STARTS = {"what", "who", "where", "how", "is", "are", "does", "do", "did", "was", "were"}
NUMBERS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
           "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12"}


def words(text):
    return re.findall(r"[\w'’-]+", text.lower())


def digits(ws):
    return [NUMBERS.get(w, w) for w in ws]


def is_span(answer, caption):
    a, c = digits(words(answer)), digits(words(caption))
    return any(c[i:i + len(a)] == a for i in range(len(c) - len(a) + 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/altflow")
    ap.add_argument("--captions", default="examples/qgen/captions.txt")
    ap.add_argument("--pipeline")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="/tmp/qgen-judge.tsv")
    args = ap.parse_args()

    captions = [l.strip() for l in open(args.captions) if l.strip() and not l.startswith("#")]
    cmd = [args.bin, "qgen"] + (["--pipeline", args.pipeline] if args.pipeline else [])
    stdin = "".join(json.dumps({"text": c}) + "\n" for c in captions)
    out = subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True).stdout
    results = [json.loads(l)["qa"] for l in out.splitlines()]
    assert len(results) == len(captions), "one output line per caption"

    try:
        from linkgrammar import Dictionary, ParseOptions, Sentence
        dictionary = Dictionary("en")
        options = ParseOptions(min_null_count=0, max_null_count=0, verbosity=0)
        parses = lambda q: len(Sentence(q, dictionary, options).parse()) > 0
    except ImportError:
        parses = None

    types, sources, failures = collections.Counter(), collections.Counter(), []
    grammatical, pairs = 0, []
    for caption, qa in zip(captions, results):
        for q in qa:
            types[q["answer_type"]] += 1
            sources[q["source"]] += 1
            pairs.append((caption, q))
            first = words(q["question"])[0] if words(q["question"]) else ""
            if not q["question"].endswith("?") or first not in QUESTION_STARTS:
                failures.append(("question form", caption, q))
            if q["answer_type"] != "boolean" and q["source"] != "how_many_zero":
                if not is_span(q["answer"], caption):
                    failures.append(("answer not a span", caption, q))
                if f" {' '.join(words(q['answer']))} " in f" {' '.join(words(q['question']))} ":
                    failures.append(("answer inside question", caption, q))
            if parses and parses(q["question"]):
                grammatical += 1
    n = sum(len(r) for r in results)
    answers = collections.Counter(q["answer"] for _, q in pairs if q["answer_type"] == "boolean")
    print(f"captions: {len(captions)}, Q/A: {n}, per caption: {n / len(captions):.2f}")
    print(f"captions with none: {sum(1 for r in results if not r)}")
    print("answer types:", dict(sorted(types.items())))
    print("sources:", dict(sorted(sources.items())))
    print(f"yes: {answers['yes']}, no: {answers['no']}, zero counts: {sources['how_many_zero']}")
    if parses:
        print(f"link-grammar parses with no null links: {grammatical}/{n} ({grammatical / n:.1%})")
    else:
        print("link-grammar: not installed (apt install python3-link-grammar), not checked")
    for what, caption, q in failures:
        print(f"FAIL {what}: {caption!r}: {q['question']!r} -> {q['answer']!r}")
    if args.sample:
        rng = random.Random(args.seed)
        with open(args.out, "w") as f:
            f.write("valid\tcaption\tquestion\tanswer\tanswer_type\n")
            for caption, q in rng.sample(pairs, min(args.sample, len(pairs))):
                f.write(f"\t{caption}\t{q['question']}\t{q['answer']}\t{q['answer_type']}\n")
        print(f"sample of {args.sample} for judging: {args.out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
