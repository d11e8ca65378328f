#!/usr/bin/env python3
"""Builds a WARC file and a WAT file of Common Crawl's size and shape from real pages.

No Common Crawl file can be downloaded here, so this writes files that look like one to a reader:
real HTML pages (the news pages of newspaper4k's test suite and the GIMP manual, fetched by
scripts/fetch_captions.sh into .tools/captions/) captured again and again under distinct URLs,

- the WARC: a warcinfo record, then per capture a `request`, a `response` (HTTP/1.1 headers and the
  page) and a `metadata` record, each its own gzip member, as Common Crawl writes them;
- the WAT: a warcinfo record, then per capture the three `metadata` records Common Crawl's WAT
  holds (for the request, the response and the metadata record), JSON in its layout
  (`Container`, `Envelope`, `WARC-Header-Metadata`, `Payload-Metadata`, and for a response
  `HTTP-Response-Metadata` / `HTML-Metadata` with `Head` and `Links`: `A@/href` with `text`,
  `IMG@/src` with `alt`, `LINK@/href`, `SCRIPT@/src`, `FORM@/action`), each its own gzip member.

Both hold the same captures, as Common Crawl's do: the WARC ends at the first capture past `--size`
compressed bytes and the WAT of those captures is about a third of it (`--kind wat` sizes the WAT
itself, `--kind warc` writes only the WARC). Common Crawl's WARC files are about 1 GB. A WAT
written without its WARC gives the WARC offsets (`Container / Offset`) from each page's first
capture's compressed size (later captures differ only in URL, date and record id), so they are
close, not exact. Deterministic: the same pages and size give the same bytes.

    scripts/fetch_captions.sh
    scripts/make_cc_archives.py OUT_DIR                     # a 1 GiB WARC and its WAT
    scripts/make_cc_archives.py OUT_DIR --size 100M --kind wat
"""

import argparse
import hashlib
import json
import os
import sys
import zlib
from html.parser import HTMLParser
from urllib.parse import urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAPTIONS = os.path.join(ROOT, ".tools", "captions")
WARC_NAME = "CC-SHAPED-20261126000000-00000.warc.gz"


class Page(HTMLParser):
    """What Common Crawl's WAT extractor keeps of an HTML page: the head and the links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.title, self.metas, self.head_links, self.scripts, self.links = "", [], [], [], []
        self.base, self.canonical = None, None
        self._in_title, self._anchor = False, None

    def handle_starttag(self, tag, attrs):
        a = {k: v for k, v in attrs if v is not None}
        if tag == "title":
            self._in_title = True
        elif tag == "meta" and ("name" in a or "property" in a):
            self.metas.append({k: a[k] for k in ("name", "property", "content") if k in a})
        elif tag == "base" and "href" in a:
            self.base = a["href"]
        elif tag == "link" and "href" in a:
            if a.get("rel") == "canonical":
                self.canonical = a["href"]
            self.head_links.append({"path": "LINK@/href", "url": a["href"], "rel": a.get("rel", "")})
        elif tag == "script" and "src" in a:
            self.scripts.append({"path": "SCRIPT@/src", "url": a["src"]})
        elif tag == "img" and "src" in a:
            link = {"path": "IMG@/src", "url": a["src"]}
            if "alt" in a:
                link["alt"] = a["alt"]
            if "title" in a:
                link["title"] = a["title"]
            self.links.append(link)
        elif tag == "a" and "href" in a:
            self._anchor = {"path": "A@/href", "url": a["href"], "text": ""}
            self.links.append(self._anchor)
        elif tag == "form" and "action" in a:
            self.links.append({"path": "FORM@/action", "url": a["action"], "method": a.get("method", "get")})

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        elif tag == "a" and self._anchor is not None:
            self._anchor["text"] = " ".join(self._anchor["text"].split())
            if not self._anchor["text"]:
                del self._anchor["text"]
            self._anchor = None

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        if self._anchor is not None:
            self._anchor["text"] += data


def pages():
    """(page URL, HTML bytes, parsed page) of every real page, in a fixed order."""
    news, gimp = os.path.join(CAPTIONS, "pages"), os.path.join(CAPTIONS, "gimp")
    if not (os.path.isdir(news) and os.path.isdir(gimp)):
        sys.exit(f"{news} or {gimp} is missing: run scripts/fetch_captions.sh")
    found = []
    for top, host in ((news, None), (gimp, "docs.gimp.org")):
        for directory, _, files in sorted(os.walk(top)):
            for name in sorted(files):
                if not name.endswith((".html", ".htm")):
                    continue
                path = os.path.join(directory, name)
                with open(path, "rb") as f:
                    html = f.read()
                page = Page()
                page.feed(html.decode("utf-8", errors="replace"))
                rel = os.path.relpath(path, top).replace(os.sep, "/")
                url = page.canonical if host is None else None
                if not url or not url.startswith(("http://", "https://")):
                    url = f"https://{host or 'news.example.com'}/{rel}"
                found.append((url, html, page))
    return found


def gzip_member(data: bytes) -> bytes:
    """One gzip member, as Common Crawl writes each record (deflate level 6, mtime 0)."""
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def warc_record(headers: list, block: bytes) -> bytes:
    head = "WARC/1.0\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers)
    head += f"Content-Length: {len(block)}\r\n\r\n"
    return head.encode() + block + b"\r\n\r\n"


def record_id(*parts) -> str:
    h = hashlib.sha1("/".join(map(str, parts)).encode()).hexdigest()
    return f"<urn:uuid:{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}>"


def date(n: int) -> str:
    return f"2026-11-{1 + n // 86400 % 28:02d}T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z"


class Writer:
    """Appends gzip members to a file and stops taking captures past the size."""

    def __init__(self, path, size):
        self.file, self.size, self.offset = open(path, "wb"), size, 0

    def add(self, record: bytes) -> tuple:
        member = gzip_member(record)
        start = self.offset
        self.file.write(member)
        self.offset += len(member)
        return start, len(member)

    def full(self) -> bool:
        return self.offset >= self.size


def copy_url(url: str, n: int) -> str:
    """The page's URL for its n-th capture: a query parameter, as crawls see the same page under."""
    return f"{url}{'&' if urlsplit(url).query else '?'}cc={n}"


def warcinfo(filename: str) -> bytes:
    fields = (b"software: altflow scripts/make_cc_archives.py\r\nformat: WARC File Format 1.0\r\n"
              b"isPartOf: CC-SHAPED\r\n")
    return warc_record([("WARC-Type", "warcinfo"), ("WARC-Date", date(0)), ("WARC-Filename", filename),
                        ("WARC-Record-ID", record_id(filename, "info")),
                        ("Content-Type", "application/warc-fields")], fields)


def capture(url: str, html: bytes, n: int, page_index: int):
    """The request, response and metadata records of one capture (WARC bytes)."""
    host = urlsplit(url).netloc
    path = urlsplit(url).path or "/"
    request = (f"GET {path} HTTP/1.1\r\nUser-Agent: CCBot/2.0 (https://commoncrawl.org/faq/)\r\n"
               f"Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
               f"Accept-Language: en-US,en;q=0.5\r\nAccept-Encoding: br,gzip\r\nHost: {host}\r\n"
               f"Connection: Keep-Alive\r\n\r\n").encode()
    response = (f"HTTP/1.1 200 OK\r\nDate: Thu, 26 Nov 2026 00:00:00 GMT\r\n"
                f"Content-Type: text/html; charset=UTF-8\r\nX-Crawler-Content-Length: {len(html)}\r\n"
                f"Content-Length: {len(html)}\r\n\r\n").encode() + html
    metadata = f"fetchTimeMs: {20 + page_index * 37 % 900}\r\ncharset-detected: UTF-8\r\n".encode()
    common = [("WARC-Date", date(n)), ("WARC-Target-URI", url), ("WARC-IP-Address", "192.0.2.1")]
    return (
        ("request", request, common + [("WARC-Type", "request"),
                                       ("WARC-Record-ID", record_id(n, "request")),
                                       ("Content-Type", "application/http; request=GET")]),
        ("response", response, common + [("WARC-Type", "response"),
                                         ("WARC-Record-ID", record_id(n, "response")),
                                         ("Content-Type", "application/http; msgtype=response"),
                                         ("WARC-Identified-Payload-Type", "text/html")]),
        ("metadata", metadata, common + [("WARC-Type", "metadata"),
                                         ("WARC-Record-ID", record_id(n, "metadata")),
                                         ("Content-Type", "application/warc-fields")]),
    )


def wat_json(kind, headers, block, page, offset, length):
    """A WAT metadata record's JSON for one WARC record, in Common Crawl's layout."""
    warc_headers = dict(headers)
    warc_headers["Content-Length"] = str(len(block))
    payload = {"Actual-Content-Type": warc_headers.get("Content-Type", "")}
    if kind == "response":
        head, _, body = block.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        status = lines[0].split(" ", 2)
        html = {"Head": {"Title": " ".join(page.title.split()), "Metas": page.metas,
                         "Link": page.head_links, "Scripts": page.scripts},
                "Links": page.links}
        if page.base:
            html["Head"]["Base"] = page.base
        payload["HTTP-Response-Metadata"] = {
            "Response-Message": {"Version": status[0], "Status": status[1], "Reason": status[2]},
            "Headers": dict(line.split(": ", 1) for line in lines[1:]),
            "Headers-Length": str(len(head) + 4), "Entity-Length": str(len(body)),
            "Entity-Trailing-Slop-Length": "0",
            "Entity-Digest": "sha1:" + hashlib.sha1(body).hexdigest().upper(),
            "HTML-Metadata": html}
    elif kind == "request":
        head = block.decode().split("\r\n")
        method, path, version = head[0].split(" ")
        payload["HTTP-Request-Metadata"] = {
            "Request-Message": {"Method": method, "Path": path, "Version": version},
            "Headers": dict(line.split(": ", 1) for line in head[1:] if line),
            "Headers-Length": str(len(block)), "Entity-Length": "0"}
    else:
        payload["WARC-Metadata-Metadata"] = {"Metadata-Records": [
            {"Name": k, "Value": v} for k, v in
            (line.split(": ", 1) for line in block.decode().split("\r\n") if line)]}
    payload["Block-Digest"] = "sha1:" + hashlib.sha1(block).hexdigest().upper()
    return {"Container": {"Filename": WARC_NAME, "Compressed": True, "Offset": str(offset),
                          "Gzip-Metadata": {"Deflate-Length": str(length)}},
            "Envelope": {"Format": "WARC",
                         "Actual-Content-Length": str(len(block)),
                         "WARC-Header-Metadata": warc_headers, "Payload-Metadata": payload}}


def parse_size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1:].upper() in units else int(text)


# Stand-ins for what differs between captures of one page, replaced in its cached WAT JSON.
URL, DATE, ID, OFFSET, LENGTH = (f"\x01{name}\x01" for name in ("url", "date", "id", "offset", "length"))


def json_token(token: str) -> str:
    return json.dumps(token)[1:-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="folder to write the files into")
    parser.add_argument("--size", default="1G",
                        help="compressed size of the WARC, or of the WAT with --kind wat (default 1G)")
    parser.add_argument("--kind", choices=("wat", "warc", "both"), default="both")
    args = parser.parse_args()
    size = parse_size(args.size)
    os.makedirs(args.out, exist_ok=True)
    found = pages()
    want_warc, want_wat = args.kind in ("warc", "both"), args.kind in ("wat", "both")
    warc = Writer(os.path.join(args.out, WARC_NAME), size) if want_warc else None
    wat_path = os.path.join(args.out, WARC_NAME.replace(".warc.gz", ".warc.wat.gz"))
    wat = Writer(wat_path, size) if want_wat else None
    if warc:
        warc.add(warcinfo(WARC_NAME))
    if wat:
        wat.add(warcinfo(os.path.basename(wat_path)))
    # Per (page, record kind): the WAT JSON with stand-ins, and the WARC member's size.
    templates, member_sizes = {}, {}
    warc_offset = len(gzip_member(warcinfo(WARC_NAME)))
    captures = images = 0
    while not (warc.full() if warc else wat.full()):
        index = captures % len(found)
        url, html, page = found[index]
        url = copy_url(url, captures // len(found))
        for kind, block, headers in capture(url, html, captures, index):
            key = (index, kind)
            if warc:
                offset, length = warc.add(warc_record(headers, block))
            else:
                if key not in member_sizes:
                    member_sizes[key] = len(gzip_member(warc_record(headers, block)))
                offset, length = warc_offset, member_sizes[key]
                warc_offset += length
            if not wat:
                continue
            if key not in templates:
                generic = [(k, {"WARC-Date": DATE, "WARC-Target-URI": URL, "WARC-Record-ID": ID}.get(k, v))
                           for k, v in headers]
                doc = wat_json(kind, generic, block, page, OFFSET, LENGTH)
                templates[key] = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
            fields = dict(headers)
            body = templates[key]
            for token, value in ((URL, url), (DATE, fields["WARC-Date"]), (ID, fields["WARC-Record-ID"]),
                                 (OFFSET, str(offset)), (LENGTH, str(length))):
                body = body.replace(json_token(token), json_token(value))
            wat.add(warc_record([("WARC-Type", "metadata"), ("WARC-Target-URI", url),
                                 ("WARC-Date", date(captures)),
                                 ("WARC-Record-ID", record_id(captures, kind, "wat")),
                                 ("WARC-Refers-To", fields["WARC-Record-ID"]),
                                 ("Content-Type", "application/json")], body.encode()))
        images += sum(1 for link in page.links if link["path"] == "IMG@/src")
        captures += 1
    names = []
    for writer in (warc, wat):
        if writer:
            writer.file.close()
            names.append(writer.file.name)
    print(json.dumps({"captures": captures, "pages": len(found), "img_links": images,
                      "files": {os.path.basename(n): os.path.getsize(n) for n in names}}))


if __name__ == "__main__":
    main()
