#!/usr/bin/env python3
"""Every labelled set judged with a description gate trained without it, and what a change does
to each set's Q/A (issue 29's per-stop check).

    scripts/fetch_web_alts.sh                                     # the real alt texts (fetched)
    scripts/qgen_left_out.py --bin target/release/altflow --gates /tmp/gates [--out /tmp/run]
    scripts/qgen_left_out.py --bin NEW --gates /tmp/gates --against OLD   # Q/A gone and come

The gates (one per set of scripts/train_gate.py's SETS, each trained without that set by
`train_gate.py --leave-out`) are written to --gates when missing, from --bin; train them once on
the code you compare against and keep them, so that a change's figures move only with the rules.
Prints, per set and pooled: valid Q/A of the labelled ones (data/qgen/judged_real.tsv), how many
are unlabelled, hand-labelled descriptions with fewer than 3 Q/A, and the gate's precision and
recall of "describes". With --out: OUT.tsv holds the unlabelled Q/A (to judge), OUT.bad the
labelled invalid ones, OUT.few the short descriptions. With --against OLD: each caption whose Q/A
or verdict differ between OLD and --bin, the Q/A marked with their labels ([1], [0], [?]).
"""
import argparse
import collections
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import qgen_real as q  # noqa: E402
from train_gate import SETS  # noqa: E402


def gate(gates: Path, name: str, binary: str) -> Path:
    path = gates / f"{name}.tsv"
    if not path.exists():
        gates.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(q.ROOT / "scripts/train_gate.py"), "--bin", binary,
                        "--leave-out", name, "--out", str(path)], check=True,
                       stdout=subprocess.DEVNULL)
    return path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/altflow")
    ap.add_argument("--gates", required=True, help="folder of the left-out gates (made if missing)")
    ap.add_argument("--out", default="", help="prefix of the TSV files to write")
    ap.add_argument("--against", default="", help="an older binary: list the Q/A that differ")
    args = ap.parse_args()

    described = q.labels(q.ROOT / "data/qgen/descriptions.tsv")
    judged = q.labels(q.ROOT / "data/qgen/judged_real.tsv")
    total = collections.Counter()
    unlabelled, bad, few = [], [], []
    for name, sources in SETS.items():
        if not sources:
            continue
        qgen = ["qgen", "--gate-model", str(gate(Path(args.gates), name, args.bin))]
        _, kept = q.kept_captions(args.bin, sources)
        captions = [c for _, c in kept]
        outputs = q.run(args.bin, qgen, "text", captions)
        n = collections.Counter()
        for (source, caption), o in zip(kept, outputs):
            hand = described.get(q.key(caption), ["?"])[0]
            passed = "not_description" not in o
            if hand != "?":
                n["tp"] += passed and hand == "1"
                n["fp"] += passed and hand == "0"
                n["fn"] += not passed and hand == "1"
                if hand == "1":
                    n["described"] += 1
                    if len(o["qa"]) < 3:
                        n["few"] += 1
                        few.append((name, source, str(len(o["qa"])),
                                    o.get("not_description", "passed"), caption))
            for qa in o["qa"]:
                k = q.key(caption, qa["question"], qa["answer"])
                n["qa"] += 1
                if k not in judged:
                    unlabelled.append((k, source, caption, qa["question"], qa["answer"],
                                       qa["answer_type"]))
                elif judged[k][0] == "1":
                    n["valid"] += 1
                else:
                    n["invalid"] += 1
                    bad.append((name, judged[k][1] if len(judged[k]) > 1 else "", caption,
                                qa["question"], qa["answer"]))
        total.update(n)
        report(name, n)
        if args.against:
            older = q.run(args.against, qgen, "text", captions)
            differences(name, captions, older, outputs, judged)
    report("pooled", total)
    if args.out:
        with open(args.out + ".tsv", "w") as f:
            f.write("key\tsource\tcaption\tquestion\tanswer\ttype\n")
            f.writelines("\t".join(r) + "\n" for r in dict.fromkeys(unlabelled))
        with open(args.out + ".bad", "w") as f:
            f.writelines(" | ".join(r) + "\n" for r in sorted(bad))
        with open(args.out + ".few", "w") as f:
            f.writelines(" | ".join(r) + "\n" for r in few)
    return 0


def share(a: int, b: int) -> str:
    return f"{a}/{b} ({a / b:.1%})" if b else f"{a}/{b}"


def report(name: str, n: collections.Counter) -> None:
    """One line of a set's figures."""
    labelled = n["valid"] + n["invalid"]
    print(f"{name:12s} valid {share(n['valid'], labelled)}, unlabelled {n['qa'] - labelled}, "
          f"fewer than 3 Q/A {n['few']}/{n['described']}, gate precision "
          f"{share(n['tp'], n['tp'] + n['fp'])} recall {share(n['tp'], n['tp'] + n['fn'])}")


def differences(name, captions, older, newer, judged) -> None:
    """The captions whose verdict or Q/A differ between the older and the newer output."""
    for caption, a, b in zip(captions, older, newer):
        before = [(x["question"], x["answer"]) for x in a["qa"]]
        after = [(x["question"], x["answer"]) for x in b["qa"]]
        if a.get("not_description") != b.get("not_description"):
            print(f"  [{name}] verdict {a.get('not_description')} -> "
                  f"{b.get('not_description')}: {caption[:120]}")
        changed = [("-", t) for t in before if t not in after] + \
                  [("+", t) for t in after if t not in before]
        if changed:
            print(f"  [{name}] {caption[:150]}")
            for sign, (question, answer) in changed:
                label = judged.get(q.key(caption, question, answer), ["?"])[0]
                print(f"     {sign} [{label}] {question} — {answer}")


if __name__ == "__main__":
    sys.exit(main())
