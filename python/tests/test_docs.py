"""The documentation's links: every relative link in README.md and docs/*.md names a file or
directory that exists, and every anchor a heading (GitHub's slugs) or an explicit `<a id/name>` of
its target page. Standard library only; needs no altflow binary and no service."""
import re
import urllib.parse
from pathlib import Path

import pytest

from conftest import ROOT

README_MAX_LINES = 250

FENCE = re.compile(r"^\s{0,3}(```+|~~~+)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
# [text](target) or ![alt](target), with an optional "title"; the text may hold one level of [].
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_ANCHOR = re.compile(r"<a\s+[^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def doc_files(root: Path) -> list:
    return [root / "README.md"] + sorted((root / "docs").glob("*.md"))


def prose_lines(text: str):
    """(line number, line) of every line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                continue
            yield number, line
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                and not line.strip()[len(m.group(1)):].strip():
            fence = None


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text: the rendered text (links, code and emphasis marks
    removed), lower case, punctuation removed except hyphens and underscores, spaces to hyphens."""
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path: Path) -> set:
    """The anchors a markdown page defines: one per heading (duplicates numbered -1, -2, … as
    GitHub does), and every explicit <a id="…"> or <a name="…">."""
    found, seen = set(), {}
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        found.update(HTML_ANCHOR.findall(line))
        m = HEADING.match(line)
        if m:
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(path: Path):
    """(line number, target) of every link outside code blocks and code spans."""
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        for m in LINK.finditer(CODE_SPAN.sub("", line)):
            yield number, m.group(1)


def broken_links(path: Path, root: Path) -> list:
    """Every relative link of `path` whose file or anchor is missing, as 'FILE:LINE: TARGET (why)'."""
    problems, cache = [], {}
    for number, target in links(path):
        scheme = urllib.parse.urlsplit(target).scheme
        if scheme:  # http, https, mailto, …: not checked here
            continue
        where = f"{path.relative_to(root)}:{number}: {target}"
        file_part, _, anchor = target.partition("#")
        dest = path if not file_part else (path.parent / urllib.parse.unquote(file_part))
        if not dest.exists():
            problems.append(f"{where} (no such file)")
            continue
        if not anchor or dest.is_dir() or dest.suffix.lower() != ".md":
            continue
        key = dest.resolve()
        if key not in cache:
            cache[key] = anchors(dest)
        if urllib.parse.unquote(anchor) not in cache[key]:
            problems.append(f"{where} (no anchor #{anchor} in {dest.name})")
    return problems


@pytest.mark.parametrize("page", doc_files(ROOT), ids=lambda p: str(p.relative_to(ROOT)))
def test_links_resolve(page):
    assert broken_links(page, ROOT) == []


def test_readme_is_a_short_front_door():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move detail into docs/"


def test_every_docs_page_is_linked_from_the_readme():
    linked = {(ROOT / t.partition("#")[0]).resolve() for _, t in links(ROOT / "README.md")}
    missing = [p.name for p in doc_files(ROOT)[1:] if p.resolve() not in linked]
    assert missing == []


def test_the_checker_finds_what_is_broken(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "README.md").write_text(
        "# Top\n\n## A `code` heading: with punctuation!\n\n## Twice\n\n## Twice\n\n"
        "<a id=\"explicit\"></a>\n\n"
        "[ok](#a-code-heading-with-punctuation) [ok](#twice-1) [ok](#explicit) [ok](src)\n"
        "[ok](docs/page.md#page_title--x) [web](https://example.com/nowhere#x) [mail](mailto:a@b)\n"
        "[bad](#twice-2) [bad](docs/missing.md) [bad](docs/page.md#nope)\n"
        "`[not a link](nowhere.md)`\n\n"
        "```\n# Not a heading\n[not a link](nowhere.md)\n```\n\n[bad](#not-a-heading)\n")
    (tmp_path / "docs/page.md").write_text("# Page_title → x\n\n[ok](../README.md#top) [bad](../nope)\n")
    problems = broken_links(tmp_path / "README.md", tmp_path)
    problems += broken_links(tmp_path / "docs/page.md", tmp_path)
    assert [p.split(": ", 1)[1] for p in problems] == [
        "#twice-2 (no anchor #twice-2 in README.md)",
        "docs/missing.md (no such file)",
        "docs/page.md#nope (no anchor #nope in page.md)",
        "#not-a-heading (no anchor #not-a-heading in README.md)",
        "../nope (no such file)",
    ]
