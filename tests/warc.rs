//! The WARC reader on real captures (pywb's sample archives, fetched by scripts/test.sh into
//! .tools/warcs; not committed): record counts per WARC-Type and the decoded HTML payloads agree with
//! warcio, and `altflow extract --warc` finds the same image candidates as Python's html.parser applying
//! the same rules.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use sha2::{Digest, Sha256};

/// warcio's view of a file: counts per type, and SHA-256 of every HTML response payload by record
/// index; html.parser's view of the images with alt text (same rules as altflow: widest srcset, src,
/// lazy attributes; no data:, SVG or declared ≤2×2 pixels), and how many <img alt> it saw before them.
const REFERENCE: &str = r##"
import sys, json, hashlib
from urllib.parse import urljoin
from html.parser import HTMLParser
from warcio.archiveiterator import ArchiveIterator

class Images(HTMLParser):
    def __init__(self, base):
        super().__init__(); self.base = base; self.based = False; self.found = []; self.raw = 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "base" and a.get("href") and not self.based:
            self.base = urljoin(self.base, a["href"]); self.based = True
        if tag != "img":
            return
        alt = " ".join((a.get("alt") or "").split())
        if not alt:
            return
        self.raw += 1
        def widest(srcset):
            best = None
            for entry in (srcset or "").split(","):
                parts = entry.split()
                if not parts: continue
                d = parts[1] if len(parts) > 1 else ""
                try:
                    w = float(d[:-1]) if d.endswith("w") else float(d[:-1]) / 1e6 if d.endswith("x") else 1e-6
                except ValueError:
                    continue
                if best is None or w > best[1]: best = (parts[0], w)
            return best[0] if best else None
        src = widest(a.get("srcset"))
        if not src and (a.get("src") or "").strip() and not a["src"].strip().startswith("data:"):
            src = a["src"]
        for lazy in ("data-src", "data-lazy-src", "data-original", "data-url"):
            if not src and a.get(lazy): src = a[lazy]
        if not src: src = widest(a.get("data-srcset"))
        if not src or src.strip().startswith("data:"): return
        url = urljoin(self.base, src.strip()).split("#")[0]
        def px(v):
            v = (v or "").strip().removesuffix("px").strip()
            return int(v) if v.isdigit() else 0
        w, h = px(a.get("width")), px(a.get("height"))
        if url.lower().split("?")[0].endswith(".svg") or (0 < w <= 2 and 0 < h <= 2): return
        if url.startswith("http") and (url, alt) not in self.found: self.found.append((url, alt))

counts, bodies, images, raw = {}, {}, [], 0
with open(sys.argv[1], "rb") as fh:
    for index, record in enumerate(ArchiveIterator(fh)):
        counts[record.rec_type] = counts.get(record.rec_type, 0) + 1
        if record.rec_type != "response" or not record.http_headers:
            continue
        if "html" not in (record.http_headers.get_header("Content-Type") or "").lower():
            continue
        body = record.content_stream().read()
        bodies[str(index)] = hashlib.sha256(body).hexdigest()
        if record.http_headers.get_statuscode() != "200":
            continue
        page = record.rec_headers.get_header("WARC-Target-URI").strip("<>")
        p = Images(page); p.feed(body.decode("utf-8", "replace"))
        raw += p.raw
        images += [[page, u, a] for (u, a) in p.found]
print(json.dumps({"counts": counts, "bodies": bodies, "images": sorted(images), "raw": raw}))
"##;

fn warcs() -> Vec<PathBuf> {
    let dir = common::root().join(".tools/warcs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn warc_reader_agrees_with_warcio_on_real_captures() {
    let files = warcs();
    let have_warcio = Command::new("python3")
        .args(["-c", "import warcio"])
        .status()
        .is_ok_and(|s| s.success());
    if files.is_empty() || !have_warcio {
        assert!(
            std::env::var("ALTFLOW_REQUIRE_SERVICES").as_deref() != Ok("1"),
            "no sample WARCs or no warcio: run scripts/test.sh"
        );
        eprintln!(
            "SKIPPED: no sample WARCs in .tools/warcs or no warcio (scripts/test.sh fetches them)"
        );
        return;
    }
    let mut raw_images = 0;
    let mut html_payloads = 0;
    for file in &files {
        let altflow = || Command::new(env!("CARGO_BIN_EXE_altflow"));
        let reference =
            common::stdout_of(Command::new("python3").args(["-c", REFERENCE]).arg(file));
        let reference: serde_json::Value = serde_json::from_slice(&reference).unwrap();

        let counted =
            common::stdout_of(altflow().args(["extract", "--counts", "--warc"]).arg(file));
        let counted: serde_json::Value = serde_json::from_slice(&counted).unwrap();
        assert_eq!(
            counted["types"],
            reference["counts"],
            "record counts of {}",
            file.display()
        );

        // HTML payloads, de-chunked and decompressed, byte for byte.
        let mut bodies = BTreeMap::new();
        for (index, record) in altflow::web::warc::open(file, 64 << 20)
            .unwrap()
            .enumerate()
        {
            let record = record.unwrap();
            if record.kind() != "response" {
                continue;
            }
            let Some(response) = altflow::web::warc::parse_http_response(&record.block, 64 << 20)
            else {
                continue;
            };
            if response
                .header("Content-Type")
                .is_some_and(|t| t.to_ascii_lowercase().contains("html"))
            {
                bodies.insert(
                    index.to_string(),
                    serde_json::json!(hex::encode(Sha256::digest(&response.body))),
                );
            }
        }
        html_payloads += bodies.len();
        assert_eq!(
            serde_json::Value::Object(bodies.into_iter().collect()),
            reference["bodies"],
            "HTML payloads of {}",
            file.display()
        );

        let extracted = common::stdout_of(altflow().args(["extract", "--warc"]).arg(file));
        let mut ours: Vec<serde_json::Value> = String::from_utf8_lossy(&extracted)
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                serde_json::json!([v["page_url"], v["image_url"], v["alt"]])
            })
            .collect();
        ours.sort_by_key(|v| v.to_string());
        let mut expected = reference["images"].as_array().unwrap().clone();
        expected.sort_by_key(|v| v.to_string());
        assert_eq!(ours, expected, "image candidates of {}", file.display());
        raw_images += reference["raw"].as_u64().unwrap();
    }
    // The samples hold real pages with <img alt> (all SVG logos and maps, which the rules drop).
    assert!(
        html_payloads >= 20,
        "{html_payloads} HTML payloads compared"
    );
    assert!(raw_images >= 10, "only {raw_images} <img alt> seen");
}
