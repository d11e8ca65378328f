#!/usr/bin/env python3
"""The data-quality report: what each filter preset does to real alt texts and to captions in the
style of COCO and CC3M, judged against decisions made by hand, and how well the crawler's dominance
flag finds the images hand-labelled as a page's subject.

    scripts/fetch_captions.sh                     # real alt texts and news pages (fetched)
    scripts/quality_report.py [--bin target/debug/altflow] [--before OLD_BINARY]

Inputs:
  .tools/captions/alts.txt          real <img alt> texts (fetched, never committed)
  .tools/captions/pages/*.html      the real news pages they partly come from (fetched)
  data/quality/coco_style.txt       captions written in the style of COCO annotations
  data/quality/cc3m_style.txt       captions written in the style of CC3M (hypernymised alt texts)
  data/quality/caption_labels.tsv   keep/drop by hand for 300 of them, keyed by the caption's
                                    SHA-256 (the real texts are not redistributed)
  data/quality/dominance_labels.tsv subject/decoration by hand for every image of the pages

Every caption goes through `altflow filter --preset P` as one stream (seeded interleaving), so the
stream-counted rules (rare words, boilerplate) see what they would see in a crawl of this size.
Prints Markdown: per preset the share of each source accepted, the share each rule rejects (any
failure, and as the only failure), precision and recall of "keep" against the hand labels, and the
captions where preset and hand disagree; then the dominance flag's precision and recall.
"""
import argparse
import hashlib
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ["cc3m", "cc12m", "alt200m", "lait"]


def key(caption: str) -> str:
    return hashlib.sha256(caption.encode()).hexdigest()[:16]


def lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.strip()]


def corpus() -> list[tuple[str, str]]:
    """(source, caption) in stream order: the three sources interleaved by a fixed seed."""
    alts = ROOT / ".tools/captions/alts.txt"
    if not alts.exists():
        sys.exit(f"{alts} is missing: run scripts/fetch_captions.sh")
    items = [("real", c) for c in lines(alts)]
    items += [("coco", c) for c in lines(ROOT / "data/quality/coco_style.txt")]
    items += [("cc3m", c) for c in lines(ROOT / "data/quality/cc3m_style.txt")]
    random.Random(17).shuffle(items)
    return items


def decide(binary: str, preset: str, captions: list[str]) -> list[dict]:
    stdin = "".join(json.dumps({"alt": c}) + "\n" for c in captions)
    done = subprocess.run([binary, "filter", "--preset", preset], input=stdin,
                          capture_output=True, text=True, check=True)
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(out) == len(captions), (len(out), len(captions))
    return out


def labels(path: Path) -> dict[str, str]:
    found = {}
    for line in lines(path)[1:]:
        fields = line.split("\t")
        found[fields[0]] = fields[1]
    return found


def precision_recall(pairs: list[tuple[bool, bool]]) -> tuple[float, float, int, int, int]:
    """(kept by the rules, kept by hand) pairs → precision, recall of keep, and the counts."""
    both = sum(1 for rule, hand in pairs if rule and hand)
    kept = sum(1 for rule, _ in pairs if rule)
    wanted = sum(1 for _, hand in pairs if hand)
    return both / max(kept, 1), both / max(wanted, 1), both, kept, wanted


def caption_report(binary: str, label_path: Path, show: int) -> dict:
    items = corpus()
    hand = labels(label_path)
    sources = Counter(s for s, _ in items)
    print(f"Stream: {len(items)} captions ({', '.join(f'{n} {s}' for s, n in sources.items())});"
          f" {len(hand)} labelled by hand.\n")
    summary = {}
    for preset in PRESETS:
        decisions = decide(binary, preset, [c for _, c in items])
        accepted = Counter(s for (s, _), d in zip(items, decisions) if d["decision"] == "accept")
        failing, only = Counter(), Counter()
        for d in decisions:
            failing.update(d["reasons"])
            if len(d["reasons"]) == 1:
                only.update(d["reasons"])
        pairs, wrong = [], []
        for (source, caption), d in zip(items, decisions):
            label = hand.get(key(caption))
            if label is None:
                continue
            rule, person = d["decision"] == "accept", label == "keep"
            pairs.append((rule, person))
            if rule != person:
                wrong.append((source, caption, label, d["reasons"]))
        p, r, both, kept, wanted = precision_recall(pairs)
        summary[preset] = (p, r)
        print(f"### {preset}\n")
        print("accepted: " + ", ".join(
            f"{s} {accepted[s]}/{n} ({accepted[s] / n:.0%})" for s, n in sources.items()))
        print(f"\nhand-labelled ({len(pairs)}): precision of keep {p:.3f} ({both}/{kept}), "
              f"recall {r:.3f} ({both}/{wanted})\n")
        print("| rule | fails | only failure |\n|---|---|---|")
        for reason, n in failing.most_common():
            print(f"| `{reason}` | {n} ({n / len(items):.1%}) | {only[reason]} |")
        if wrong:
            print(f"\nDisagreements (first {show} of {len(wrong)}):\n")
            for source, caption, label, reasons in wrong[:show]:
                print(f"- [{source}] hand {label}, rules {','.join(reasons) or 'keep'}: "
                      f"{caption[:100]!r}")
        print()
    return summary


def dominance_report(binary: str, label_path: Path) -> None:
    pages = ROOT / ".tools/captions/pages"
    if not pages.is_dir():
        sys.exit(f"{pages} is missing: run scripts/fetch_captions.sh")
    hand = {}
    for line in lines(label_path)[1:]:
        page, position, url_key, label = line.split("\t")[:4]
        hand[(page, int(position))] = (url_key, label)
    pairs, per_page = [], Counter()
    for page in sorted({p for p, _ in hand}):
        done = subprocess.run([binary, "extract", "--html", str(pages / page), "--base-url",
                               "https://example.com/a/"], capture_output=True, text=True,
                              check=True)
        for line in done.stdout.splitlines():
            c = json.loads(line)
            url_key, label = hand[(page, c["position"])]
            assert url_key == key(c["image_url"]), f"{page} #{c['position']}: another image"
            pairs.append((c["dominant"], label == "subject"))
            per_page[page] += 1
    assert len(pairs) == len(hand), (len(pairs), len(hand))
    p, r, both, kept, wanted = precision_recall(pairs)
    print(f"### Dominant images\n\n{len(pairs)} images on {len(per_page)} real pages, "
          f"{wanted} of them the page's subject by hand: the `dominant` flag's precision "
          f"{p:.3f} ({both}/{kept}), recall {r:.3f} ({both}/{wanted}).\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=str(ROOT / "target/debug/altflow"))
    parser.add_argument("--before", help="an older altflow binary to report side by side")
    parser.add_argument("--show", type=int, default=15, help="disagreements listed per preset")
    args = parser.parse_args()
    quality = ROOT / "data/quality"
    runs = [("before", args.before)] if args.before else []
    runs.append(("now", args.bin))
    summaries = {}
    for name, binary in runs:
        print(f"## {name}: {binary}\n")
        summaries[name] = caption_report(binary, quality / "caption_labels.tsv", args.show)
    print("## Precision / recall of keep\n")
    print("| preset | " + " | ".join(name for name, _ in runs) + " |")
    print("|---|" + "---|" * len(runs))
    for preset in PRESETS:
        print(f"| {preset} | " + " | ".join(
            "{:.2f} / {:.2f}".format(*summaries[name][preset]) for name, _ in runs) + " |")
    print()
    dominance_report(args.bin, quality / "dominance_labels.tsv")


if __name__ == "__main__":
    main()
