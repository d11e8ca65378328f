//! robots.txt as site owners test it: every allow/deny assertion of Google's reference parser's
//! test suite (`robots_test.cc` of github.com/google/robotstxt, transcribed as data into
//! `tests/fixtures/robots/google_robots_test.json`; see the README there), run through altflow's
//! parser and matcher. Also the suite's pattern-escaping pairs.
//!
//! What the suite gives the matcher is a URL; Google's caller passes its path, parameters and query
//! as they are written (no percent-encoding of its own: the suite's `ID_Encoding` expects a raw
//! `ツ` in a URL not to match the same character in a rule). [`path_of`] does the same here; in the
//! crawler, the `url` crate percent-encodes the path first, as RFC 9309 asks.

use altflow::web::robots::{Robots, escape_pattern};
use serde_json::Value;

fn suite() -> Value {
    serde_json::from_str(include_str!("fixtures/robots/google_robots_test.json")).unwrap()
}

/// The path, parameters and query of `url` as Google's matcher is given them: after the scheme
/// and authority (if any), from the first `/`, `?` or `;`, without the fragment; `/` if empty.
fn path_of(url: &str) -> String {
    let start = if url.starts_with("//") { 2 } else { 0 };
    let first_path_char = |from: usize| url[from..].find(['/', '?', ';']).map(|i| i + from);
    let early = first_path_char(start);
    let after_scheme = match url[start..].find("://").map(|i| i + start) {
        // A `/`, `?` or `;` before `://` means it is no scheme separator.
        Some(scheme) if early.is_none_or(|e| e > scheme) => scheme + 3,
        _ => start,
    };
    let Some(path) = first_path_char(after_scheme) else {
        return "/".into();
    };
    let fragment = url[start..].find('#').map(|i| i + start);
    if fragment.is_some_and(|f| f < path) {
        return "/".into();
    }
    let rest = &url[path..fragment.unwrap_or(url.len())];
    if rest.starts_with('/') {
        rest.to_string()
    } else {
        format!("/{rest}")
    }
}

/// The suite's (input, expected) pairs under `key`, the input in field `input`.
fn pairs(key: &str, input: &str) -> Vec<(String, String)> {
    suite()[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|pair| {
            let field = |name: &str| pair[name].as_str().unwrap().to_string();
            (field(input), field("expected"))
        })
        .collect()
}

#[test]
fn the_path_is_taken_from_a_url_as_googles_matcher_takes_it() {
    for (url, expected) in pairs("path_params_query", "url") {
        assert_eq!(path_of(&url), expected, "path of {url:?}");
    }
}

#[test]
fn rules_are_percent_encoded_as_googles_parser_encodes_them() {
    for (input, expected) in pairs("escape_pattern", "input") {
        assert_eq!(escape_pattern(&input), expected, "escape of {input:?}");
    }
}

#[test]
fn every_verdict_of_googles_robots_test_suite() {
    let suite = suite();
    let cases = suite["cases"].as_array().unwrap();
    let mut wrong = Vec::new();
    for case in cases {
        let robots = case["robots"].as_str().unwrap();
        let agent = case["agent"].as_str().unwrap();
        let url = case["url"].as_str().unwrap();
        let expected = case["allowed"].as_bool().unwrap();
        if Robots::parse(robots, agent).allowed(&path_of(url)) != expected {
            let shown: String = robots.chars().take(300).collect();
            let url: String = url.chars().take(120).collect();
            wrong.push(format!(
                "{}: {agent:?} {url:?} should be {}\n{shown}",
                case["test"].as_str().unwrap(),
                if expected { "allowed" } else { "disallowed" },
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} verdicts differ from Google's:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n---\n")
    );
    assert_eq!(
        cases.len(),
        145,
        "the transcription holds every verdict of the suite"
    );
}
