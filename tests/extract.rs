//! `altflow extract --html` finds every `<img>` with non-empty alt text, checked against an independent
//! parser (Python's html.parser) on every page of the sample site.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

/// Python's stdlib HTML parser: (absolute src, collapsed alt) for every <img> with a non-empty alt,
/// resolving against <base href> as browsers do.
const REFERENCE: &str = r#"
import sys, json
from html.parser import HTMLParser
from urllib.parse import urljoin
class P(HTMLParser):
    def __init__(self, base):
        super().__init__(); self.base = base; self.found = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "base" and a.get("href") and self.base == sys.argv[2]:
            self.base = urljoin(self.base, a["href"])
        if tag == "img":
            alt = " ".join((a.get("alt") or "").split())
            src = a.get("src") or ""
            if alt and src and not src.startswith("data:") and not src.lower().endswith(".svg"):
                self.found.append((urljoin(self.base, src), alt))
p = P(sys.argv[2]); p.feed(open(sys.argv[1], encoding="utf-8").read())
print(json.dumps(sorted(set(p.found))))
"#;

#[test]
fn extract_agrees_with_an_independent_parser_on_the_sample_site() {
    let site = common::root().join("examples/site");
    let mut pages = vec![site.join("index.html")];
    pages.extend(
        std::fs::read_dir(site.join("articles"))
            .unwrap()
            .map(|e| e.unwrap().path()),
    );
    assert!(pages.len() >= 6);
    let mut total = 0;
    for page in pages {
        let relative = page
            .strip_prefix(&site)
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let base = format!("http://127.0.0.1:8700/{relative}");
        let ours = common::stdout_of(Command::new(env!("CARGO_BIN_EXE_altflow")).args([
            "extract",
            "--html",
            page.to_str().unwrap(),
            "--base-url",
            &base,
        ]));
        let ours: BTreeSet<(String, String)> = String::from_utf8_lossy(&ours)
            .lines()
            .map(|line| {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                (
                    v["image_url"].as_str().unwrap().to_string(),
                    v["alt"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let reference = common::stdout_of(Command::new("python3").args([
            "-c",
            REFERENCE,
            page.to_str().unwrap(),
            &base,
        ]));
        let reference: Vec<(String, String)> = serde_json::from_slice(&reference).unwrap();
        let reference: BTreeSet<(String, String)> = reference.into_iter().collect();
        assert_eq!(ours, reference, "{relative}");
        total += ours.len();
    }
    assert!(
        total >= 20,
        "the site has more images with alt text than {total}"
    );
}
