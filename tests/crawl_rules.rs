//! The crawler as a web citizen, against a real HTTP server on 127.0.0.1: robots.txt is obeyed for
//! pages and images, `noai` opt-outs (header or meta tag) are honoured, each under its reason code,
//! and a transient failure goes through the retry topic and succeeds on its second try.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

/// A canned response: status, extra headers, body.
type Response = (u16, Vec<(&'static str, &'static str)>, Vec<u8>);

/// Serves a fixed site on a background thread; returns its port. Paths starting with `/flaky/`
/// answer 500 the first time they are asked for.
fn serve(routes: BTreeMap<&'static str, Response>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut failed_once = std::collections::HashSet::<String>::new();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request_line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            // Drain the headers.
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let path = request_line
                .split_whitespace()
                .nth(1)
                .unwrap_or("/")
                .to_string();
            let (status, headers, body) = if path.starts_with("/flaky/")
                && failed_once.insert(path.clone())
            {
                (500, vec![], b"try again".to_vec())
            } else {
                routes
                    .get(path.as_str())
                    .cloned()
                    .unwrap_or((404, vec![], b"not found".to_vec()))
            };
            let mut response = format!(
                "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                response += &format!("{name}: {value}\r\n");
            }
            response += "\r\n";
            let _ = stream.write_all(response.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    port
}

#[test]
fn robots_txt_and_ai_opt_outs_are_obeyed() {
    let jpeg = std::fs::read(common::root().join("examples/site/img/red-boat.jpg")).unwrap();
    let html = |body: &str| {
        (
            200,
            vec![("content-type", "text/html")],
            body.as_bytes().to_vec(),
        )
    };
    let image = |headers: Vec<(&'static str, &'static str)>| (200, headers, jpeg.clone());
    let routes = BTreeMap::from([
        (
            "/robots.txt",
            (
                200,
                vec![],
                b"User-agent: *\nDisallow: /private/\nDisallow: /img/secret\n".to_vec(),
            ),
        ),
        (
            "/index.html",
            html(
                r#"<a href="/private/page.html">p</a> <a href="/noai.html">n</a> <a href="/img/ok.jpg">full size</a>
                <img src="/img/ok.jpg" alt="a red boat on a lake">
                <img src="/img/secret.jpg" alt="a boat nobody may fetch">
                <img src="/img/tagged.jpg" alt="a boat that opts out">
                <img src="/flaky/boat.jpg" alt="a boat behind a flaky server">"#,
            ),
        ),
        (
            "/private/page.html",
            html(r#"<img src="/img/ok2.jpg" alt="a private boat picture">"#),
        ),
        (
            "/noai.html",
            html(
                r#"<meta name="robots" content="noai"><img src="/img/ok3.jpg" alt="a boat on an opted out page">"#,
            ),
        ),
        ("/img/ok.jpg", image(vec![("content-type", "image/jpeg")])),
        ("/img/ok2.jpg", image(vec![])),
        ("/img/ok3.jpg", image(vec![])),
        ("/img/secret.jpg", image(vec![])),
        (
            "/img/tagged.jpg",
            image(vec![("x-robots-tag", "noimageai")]),
        ),
        ("/flaky/boat.jpg", image(vec![])),
    ]);
    let port = serve(routes);

    let dir = tempfile::tempdir().unwrap();
    let pipeline = dir.path().join("p.toml");
    std::fs::write(
        &pipeline,
        format!(
            r#"stages = ["crawl", "filter", "fetch", "write", "retry"]
[bus]
kind = "embedded"
[crawl]
seeds = ["http://127.0.0.1:{port}/index.html"]
max_depth = 1
[http]
allow_networks = ["127.0.0.0/8"]
[retry]
base_delay = "200ms"
[write]
output = {:?}
flush_after = "1s"
"#,
            dir.path().join("out").to_str().unwrap()
        ),
    )
    .unwrap();
    let funnel = common::run_funnel(&pipeline);
    let row = |stage: &str| common::funnel_row(&funnel, stage).join(" ");
    // Pages: the private one is refused by robots.txt, the opted-out one yields no candidate.
    assert!(row("crawl").contains("robots=1"), "{funnel}");
    assert!(row("crawl").contains("noai=1"), "{funnel}");
    // A link to an image is not a page.
    assert!(row("crawl").contains("not_html=1"), "{funnel}");
    // Images: one refused by robots.txt, one by its X-Robots-Tag; one failing once with a 500 is
    // parked on the retry topic and fetched again; two written.
    assert!(row("fetch").contains("robots=1"), "{funnel}");
    assert!(row("fetch").contains("noai=1"), "{funnel}");
    assert!(row("fetch").contains("retry:http_5xx=1"), "{funnel}");
    let retried = common::funnel_row(&funnel, "retry");
    assert_eq!(
        retried[1..3],
        ["1", "1"],
        "one record in and back out: {funnel}"
    );
    assert_eq!(
        common::funnel_row(&funnel, "write")[2],
        "2",
        "two samples written: {funnel}"
    );
}
