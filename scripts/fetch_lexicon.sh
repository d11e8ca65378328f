#!/usr/bin/env bash
# Rebuilds data/lexicon/ (compiled into altflow for the filter's tagger, vocabulary and name lists)
# from the PyPI and Debian packages it comes from. The files are committed, so a build needs no network; this
# script documents where they come from and refreshes them.
#
#   textblob 0.20.1 (MIT; data from pattern, BSD, and TweetNLP, CC-BY 3.0):
#     en-lexicon.txt (Brill lexicon), en-context.txt (Brill contextual rules),
#     en-morphology.txt (suffix rules), en-entities.txt (names of people, places, organisations),
#     en-spelling.txt (word counts from Norvig's big.txt)
#   names 0.3.0 (MIT; US Census 1990 name frequencies, public domain):
#     first-names.txt, last-names.txt (one lowercase name per line, most frequent first)
#   Debian's wamerican-large 2020.12.07 (SCOWL size 70, Kevin Atkinson's permissive license):
#     en-words.txt (the dictionary's words lower-cased, without possessives), LICENSE-scowl
#   Debian's wordnet-base 3.0 (Princeton's WordNet 3.0 license, permissive, notice in LICENSE-wordnet):
#     en-concrete-nouns.txt (nouns of en-words.txt whose most frequent WordNet sense is a physical
#     thing: an animal, artifact, body part, food, place, natural object, person, phenomenon,
#     plant, shape or substance), en-happening-nouns.txt (nouns of en-words.txt whose most frequent
#     sense is an event or a process: "flow", "accretion", "eruption"), en-person-nouns.txt (nouns
#     of en-words.txt whose most frequent sense is a kind of person — not one named person, and
#     seen so in the semantic concordance unless every sense is a person — and that en-lexicon.txt
#     tags as a noun or does not know: "villager", "astronaut"), LICENSE-wordnet
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps -d "$work" textblob==0.20.1 names==0.3.0
python3 - "$work" data/lexicon <<'PY'
import sys, tarfile, zipfile
from pathlib import Path
work, out = Path(sys.argv[1]), Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
with zipfile.ZipFile(next(work.glob("textblob-*.whl"))) as wheel:
    for name in ["en-lexicon.txt", "en-context.txt", "en-morphology.txt", "en-entities.txt", "en-spelling.txt"]:
        (out / name).write_bytes(wheel.read(f"textblob/en/{name}"))
    license = next(n for n in wheel.namelist() if n.endswith("dist-info/licenses/LICENSE"))
    (out / "LICENSE-textblob").write_bytes(wheel.read(license))
with tarfile.open(next(work.glob("names-*.tar.gz"))) as sdist:
    def names(member):
        text = sdist.extractfile(next(m for m in sdist.getmembers() if m.name.endswith(member))).read().decode()
        return [line.split()[0].lower() for line in text.splitlines() if line.strip()]
    first = list(dict.fromkeys(names("dist.male.first") + names("dist.female.first")))
    (out / "first-names.txt").write_text("\n".join(first) + "\n")
    (out / "last-names.txt").write_text("\n".join(names("dist.all.last")) + "\n")
PY
# SCOWL through Debian's package (apt's download needs no root and installs nothing).
(cd "$work" && apt-get download wamerican-large >/dev/null)
dpkg-deb -x "$work"/wamerican-large_*.deb "$work/scowl"
cp "$work/scowl/usr/share/doc/wamerican-large/copyright" data/lexicon/LICENSE-scowl
python3 - "$work/scowl/usr/share/dict/american-english-large" data/lexicon/en-words.txt <<'PY'
import sys
words = (line.strip().lower() for line in open(sys.argv[1], encoding="utf-8"))
words = dict.fromkeys(w for w in words if w and "'" not in w)
open(sys.argv[2], "w", encoding="utf-8").write("\n".join(words) + "\n")
PY
(cd "$work" && apt-get download wordnet-base >/dev/null)
dpkg-deb -x "$work"/wordnet-base_*.deb "$work/wordnet"
cp "$work/wordnet/usr/share/doc/wordnet-base/copyright" data/lexicon/LICENSE-wordnet
python3 - "$work/wordnet/usr/share/wordnet" data/lexicon/en-words.txt data/lexicon/en-concrete-nouns.txt data/lexicon/en-happening-nouns.txt data/lexicon/en-person-nouns.txt <<'PY'
import re, sys
wordnet, words, out, happening_out, person_out = sys.argv[1:]
# Lexicographer files of physical things (WordNet's lexnames): 05 animal, 06 artifact, 08 body,
# 13 food, 15 location, 17 object, 18 person, 19 phenomenon, 20 plant, 25 shape, 27 substance.
physical = {5, 6, 8, 13, 15, 17, 18, 19, 20, 25, 27}
# 11 event, 22 process: what happens to things, which a figure or a photograph can show happening.
happenings = {11, 22}
# 18 person: a kind of person, unless the synset is an instance ("@i": one named person, whose
# surname is a lemma of its own: "tubman", "hughes").
person = 18
lexname, instance, capitalised = {}, set(), set()
for line in open(f"{wordnet}/data.noun", encoding="latin-1"):
    if not line.startswith("  "):
        offset, file = line.split(" ", 2)[:2]
        lexname[offset] = int(file)
        if " @i " in line:
            instance.add(offset)
        # The synset's words as written: one a lemma has only capitalised names a people, a
        # faith, a party or a myth's figure ("Bornean", "Democrat"), more often an adjective
        # or a name in a caption than a person seen.
        f = line.split()
        for i in range(int(f[3], 16)):
            word = f[4 + 2 * i]
            if word != word.lower():
                capitalised.add((offset, word.lower()))
known = set(open(words, encoding="utf-8").read().split())
# The tagger's lexicon: a word it tags as an adjective or a verb first ("native", "white",
# "senior", "suspect"), or knows only capitalised ("Korean", "Archer"), is too often no person.
tag = dict(line.split()[:2] for line in open("data/lexicon/en-lexicon.txt", encoding="utf-8")
           if len(line.split()) >= 2)
# How often each noun sense was seen in the semantic concordance: among senses never seen there
# WordNet's order is arbitrary, so a word with other senses counts as a person only when its
# first sense was seen at least twice ("whale", first "a very large person", seen once;
# "jumper", "avatar" and "stud" never) and its person senses more often than the others ("ward"
# of a hospital, "spirit"). Two-letter lemmas are abbreviations ("da", "gp").
tagged, seen_as = {}, {}
for line in open(f"{wordnet}/cntlist.rev", encoding="latin-1"):
    sense_key, number, count = line.split()
    lemma, sense = sense_key.split("%", 1)
    if sense.startswith("1:"):
        if number == "1":
            tagged[lemma] = int(count)
        is_person = int(sense.split(":")[1]) == person
        seen = seen_as.setdefault(lemma, [0, 0])
        seen[is_person] += int(count)
# Words whose first sense in the web's alt text is no person though WordNet's is: an "avatar"
# is a user's picture (a sense newer than WordNet 3.0), a "speaker" in a shop a loudspeaker.
web_senses = {"avatar", "speaker"}
found, happening, people = [], [], []
for line in open(f"{wordnet}/index.noun", encoding="latin-1"):
    if line.startswith("  "):
        continue
    f = line.split()
    lemma, pointers = f[0], int(f[3])
    # Synsets are listed most frequent sense first (by the semantic concordance's counts).
    first = f[6 + pointers]
    if re.fullmatch(r"[a-z][a-z-]*", lemma) and lemma in known:
        if lexname[first] in physical:
            found.append(lemma)
        elif lexname[first] in happenings:
            happening.append(lemma)
        senses = f[6 + pointers:]
        if (lexname[first] == person and first not in instance and len(lemma) > 2
                and lemma not in web_senses and (first, lemma) not in capitalised
                and (all(lexname[s] == person for s in senses)
                     or (tagged.get(lemma, 0) >= 2 and seen_as[lemma][1] > seen_as[lemma][0]))):
            t = tag.get(lemma)
            if (t or "NN").startswith("NN") and not (t is None and (
                    lemma.capitalize() in tag or lemma.upper() in tag)):
                people.append(lemma)
open(out, "w", encoding="utf-8").write("\n".join(found) + "\n")
open(happening_out, "w", encoding="utf-8").write("\n".join(happening) + "\n")
open(person_out, "w", encoding="utf-8").write("\n".join(people) + "\n")
PY
ls -l data/lexicon
