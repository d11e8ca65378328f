//! The crawler as a web citizen, against a real HTTP server on 127.0.0.1: robots.txt is obeyed for
//! pages and images, `noai` opt-outs (header or meta tag) are honoured, each under its reason code,
//! and a transient failure goes through the retry topic and succeeds on its second try.

mod common;

use std::collections::BTreeMap;

use common::{jpeg, serve, site_pipeline};

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
                <img src="/flaky/boat.jpg" alt="a boat behind a flaky server">
                <img src="/img/moved.jpg" alt="a boat that moved somewhere forbidden">"#,
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
        (
            "/img/moved.jpg",
            (302, vec![("location", "/img/secret-moved.jpg")], Vec::new()),
        ),
        ("/img/secret-moved.jpg", image(vec![])),
    ]);
    let port = serve(routes);

    let dir = tempfile::tempdir().unwrap();
    let pipeline = site_pipeline(
        dir.path(),
        port,
        r#""crawl", "filter", "fetch", "write", "retry""#,
        r#"max_depth = 1
[http]
allow_networks = ["127.0.0.0/8"]
[retry]
base_delay = "200ms"
"#,
        r#"flush_after = "1s"
"#,
    );
    let funnel = common::run_funnel(&pipeline);
    let row = |stage: &str| common::funnel_row(&funnel, stage).join(" ");
    // Pages: the private one is refused by robots.txt, the opted-out one yields no candidate.
    assert!(row("crawl").contains("robots=1"), "{funnel}");
    assert!(row("crawl").contains("noai=1"), "{funnel}");
    // A link to an image is not a page.
    assert!(row("crawl").contains("not_html=1"), "{funnel}");
    // Images: one refused by robots.txt, one redirected to a place robots.txt forbids, one refused
    // by its X-Robots-Tag; one failing once with a 500 is parked on the retry topic and fetched
    // again; two written.
    assert!(row("fetch").contains("robots=2"), "{funnel}");
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

/// Every failure the crawl and fetch stages can meet on the web ends under its own reason code in
/// the funnel, each provoked for real against a server on 127.0.0.1 (or an address that must never
/// be reached).
#[test]
fn every_failure_has_its_reason_code() {
    let html = |body: String| (200, vec![("content-type", "text/html")], body.into_bytes());
    let image = |bytes: Vec<u8>| (200, vec![], bytes);
    // A PNG cut after its header: the size is readable, the pixels are not (JPEG decoders are
    // lenient with truncation and fill in grey).
    let mut truncated = std::io::Cursor::new(Vec::new());
    image::RgbImage::from_fn(400, 300, |x, y| image::Rgb([x as u8, y as u8, 7]))
        .write_to(&mut truncated, image::ImageFormat::Png)
        .unwrap();
    let mut truncated = truncated.into_inner();
    truncated.truncate(truncated.len() / 3);
    // A GIF header declaring 65535 x 65535 pixels around a 1x1 image.
    let mut bomb = std::io::Cursor::new(Vec::new());
    image::RgbImage::from_pixel(1, 1, image::Rgb([1, 2, 3]))
        .write_to(&mut bomb, image::ImageFormat::Gif)
        .unwrap();
    let mut bomb = bomb.into_inner();
    bomb[6..10].copy_from_slice(&[0xff; 4]);
    // Nothing listens on this port: bound, then closed.
    let closed = common::free_port();
    // A plain HTTP server, asked for https.
    let plain = serve(BTreeMap::new());

    let page = format!(
        r#"<a href="/private/page.html">robots</a> <a href="/noai.html">noai</a>
        <a href="/img/ok.jpg">not html</a> <a href="/gone.html">404</a> <a href="/slow/page.html">slow</a>
        <img src="/img/ok.jpg" alt="a fine picture that passes">
        <img src="/img/ok.jpg" alt="two words">
        <img src="http://nonexistent.invalid/a.jpg" alt="a host that does not exist">
        <img src="http://127.0.0.1:{closed}/a.jpg" alt="a port nobody listens on">
        <img src="https://127.0.0.1:{plain}/a.jpg" alt="a secure request to a plain server">
        <img src="/img/ok.jpg" alt="une photo de la tour au bord de la mer">
        <img src="/img/missing.jpg" alt="an image that is not there">
        <img src="/err/a.jpg" alt="an image behind a broken server">
        <img src="/img/secret.jpg" alt="an image robots.txt forbids">
        <img src="/img/tagged.jpg" alt="an image that opts out of AI">
        <img src="http://10.1.2.3/a.jpg" alt="an image on a private network">
        <img src="/img/big.jpg" alt="an image larger than allowed">
        <img src="/img/page.jpg" alt="a page pretending to be an image">
        <img src="/img/truncated.png" alt="a PNG cut in the middle">
        <img src="/img/bomb.gif" alt="a decompression bomb of a GIF">
        <img src="/img/small.jpg" alt="an image that is too small">
        <img src="/img/wide.jpg" alt="an image that is too wide">
        <img src="/slow/a.jpg" alt="an image from a slow server">
        <img src="/loop.jpg" alt="an image that redirects to itself">"#
    );
    let routes = BTreeMap::from([
        (
            "/robots.txt",
            (
                200,
                vec![],
                b"User-agent: *\nDisallow: /private/\nDisallow: /img/secret\n".to_vec(),
            ),
        ),
        ("/index.html", html(page)),
        ("/private/page.html", html("<p>private</p>".into())),
        (
            "/noai.html",
            html(r#"<meta name="robots" content="noai">"#.into()),
        ),
        ("/slow/page.html", html("<p>late</p>".into())),
        (
            "/img/ok.jpg",
            (200, vec![("content-type", "image/jpeg")], jpeg(400, 300)),
        ),
        ("/img/secret.jpg", image(jpeg(400, 300))),
        (
            "/img/tagged.jpg",
            (200, vec![("x-robots-tag", "noai")], jpeg(400, 300)),
        ),
        ("/err/a.jpg", (500, vec![], b"broken".to_vec())),
        ("/img/big.jpg", image(vec![0xff; 300_000])),
        ("/img/page.jpg", html("<html>not an image</html>".into())),
        ("/img/truncated.png", image(truncated)),
        ("/img/bomb.gif", image(bomb)),
        ("/img/small.jpg", image(jpeg(100, 100))),
        ("/img/wide.jpg", image(jpeg(900, 300))),
        ("/slow/a.jpg", image(jpeg(400, 300))),
        (
            "/loop.jpg",
            (302, vec![("location", "/loop.jpg")], Vec::new()),
        ),
    ]);
    let port = serve(routes);

    let dir = tempfile::tempdir().unwrap();
    let pipeline = site_pipeline(
        dir.path(),
        port,
        r#""crawl", "filter", "fetch", "write", "retry""#,
        r#"max_depth = 1
[http]
allow_networks = ["127.0.0.0/8"]
timeout = "1s"
per_host_concurrency = 32
min_host_delay = "0ms"
[retry]
max_attempts = 1
[fetch]
max_image_bytes = 200000
[filter]
min_side = 200
max_aspect = 2.5
rare_word_min_count = 0
formats = []
"#,
        r#"flush_after = "1s"
"#,
    );
    let funnel = common::run_funnel(&pipeline);
    let codes = |stage: &str| -> BTreeMap<String, String> {
        common::funnel_row(&funnel, stage)
            .into_iter()
            .filter_map(|w| {
                w.split_once('=')
                    .map(|(k, v)| (k.to_string(), v.to_string()))
            })
            .collect()
    };
    let expect = |stage: &str, expected: &[&str]| {
        let found = codes(stage);
        for code in expected {
            assert_eq!(
                found.get(*code).map(String::as_str),
                Some("1"),
                "{stage} {code}:\n{funnel}"
            );
        }
    };
    expect(
        "crawl",
        &["robots", "noai", "not_html", "http_4xx", "timeout"],
    );
    expect("filter", &["too_few_words", "language"]);
    expect(
        "fetch",
        &[
            "dns",
            "connect",
            "tls",
            "http_4xx",
            "http_5xx",
            "robots",
            "noai",
            "blocked_address",
            "too_large",
            "not_image",
            "decode_error",
            "too_many_pixels",
            "too_small",
            "aspect",
            "timeout",
            "redirects",
        ],
    );
    assert_eq!(common::funnel_row(&funnel, "write")[2], "1", "{funnel}");
}

/// A run keeps its crawl and fetch failures (with their records) next to the shards; a later run
/// re-drives only those, filtered by reason code, and this time the flaky image gets through.
#[test]
fn a_later_run_redrives_only_the_failures() {
    let routes = BTreeMap::from([
        (
            "/index.html",
            (
                200,
                vec![("content-type", "text/html")],
                br#"<img src="/flaky/a.jpg" alt="a picture behind a flaky server">
                <img src="/img/small.jpg" alt="a picture that is too small">
                <img src="/img/ok.jpg" alt="a picture that works at once">
                <img src="/img/ok.jpg" alt="two words">"#
                    .to_vec(),
            ),
        ),
        ("/flaky/a.jpg", (200, vec![], jpeg(400, 300))),
        ("/img/ok.jpg", (200, vec![], jpeg(400, 300))),
        ("/img/small.jpg", (200, vec![], jpeg(100, 100))),
    ]);
    let port = serve(routes);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let pipeline = site_pipeline(
        dir.path(),
        port,
        r#""crawl", "filter", "fetch", "write", "retry", "failures""#,
        r#"[http]
allow_networks = ["127.0.0.0/8"]
min_host_delay = "0ms"
[retry]
max_attempts = 1
[filter]
min_side = 200
rare_word_min_count = 0
"#,
        r#"flush_after = "500ms"
"#,
    );
    let first = common::run_funnel(&pipeline);
    let fetch = common::funnel_row(&first, "fetch").join(" ");
    assert!(
        fetch.contains("http_5xx=1") && fetch.contains("too_small=1"),
        "{first}"
    );
    assert_eq!(common::funnel_row(&first, "write")[2], "1", "{first}");

    // Only the two fetch failures carry a record; the text rejection does not.
    let runs: Vec<_> = std::fs::read_dir(out.join("failures")).unwrap().collect();
    assert_eq!(runs.len(), 1, "one run's folder");

    let second = common::stdout_of(
        std::process::Command::new(env!("CARGO_BIN_EXE_altflow"))
            .arg("run")
            .arg(&pipeline)
            .args(["--redrive", "--reason", "http_5xx"]),
    );
    let second = String::from_utf8_lossy(&second);
    assert_eq!(
        common::funnel_row(&second, "crawl")[1],
        "0",
        "no page crawled: {second}"
    );
    assert_eq!(
        common::funnel_row(&second, "fetch")[1],
        "1",
        "only the 5xx: {second}"
    );
    assert_eq!(common::funnel_row(&second, "write")[2], "1", "{second}");
    // Nothing failed this time, so the newest run with failures is still the first: re-driving
    // every reason now gives the too-small image again, and the flaky one, already written.
    let third = common::stdout_of(
        std::process::Command::new(env!("CARGO_BIN_EXE_altflow"))
            .arg("run")
            .arg(&pipeline)
            .arg("--redrive"),
    );
    let third = String::from_utf8_lossy(&third);
    assert_eq!(common::funnel_row(&third, "fetch")[1], "2", "{third}");
    assert!(
        common::funnel_row(&third, "fetch")
            .join(" ")
            .contains("too_small=1"),
        "{third}"
    );
    assert!(
        common::funnel_row(&third, "write")
            .join(" ")
            .contains("duplicate=1"),
        "{third}"
    );
}

/// A robots.txt far past 500 KiB (10 MiB: a long comment after the first rules, as real sites
/// have) is read to 500 KiB and its rules there are obeyed; what comes after is ignored, and the
/// site is not refused as a whole (before: `too_large`, every URL of the site refused).
#[tokio::test]
async fn a_robots_txt_past_500_kib_is_read_to_its_limit_and_the_rest_ignored() {
    use altflow::config::HttpConfig;
    use altflow::reason::Reason;
    use altflow::web::http::HttpClient;
    use altflow::web::robots::{MAX_ROBOTS_BYTES, RobotsCache};

    let mut body = b"User-agent: *\nDisallow: /early\n# ".to_vec();
    body.extend(std::iter::repeat_n(b'x', 10 << 20));
    body.extend_from_slice(b"\nDisallow: /late\n");
    assert!(body.len() > 20 * MAX_ROBOTS_BYTES);
    let port = serve(BTreeMap::from([(
        "/robots.txt",
        (200, vec![("content-type", "text/plain")], body),
    )]));
    let config = HttpConfig {
        allow_networks: vec!["127.0.0.0/8".parse().unwrap()],
        ..Default::default()
    };
    let robots = RobotsCache::new(
        HttpClient::new(&config).unwrap(),
        "altflow/0.1",
        std::time::Duration::from_secs(60),
        8,
    );
    let base = format!("http://127.0.0.1:{port}");
    let refused = robots.check(&format!("{base}/early/x")).await.unwrap_err();
    assert_eq!(refused.reason, Reason::Robots, "{refused}");
    robots.check(&format!("{base}/late/x")).await.unwrap();
    robots.check(&format!("{base}/other")).await.unwrap();
}

/// A site whose deep pages no link reaches, listed in its sitemaps: robots.txt names a sitemap
/// index, which names a gzip-compressed sitemap and a plain one. With `crawl.sitemaps`, a crawl of
/// the home page alone (depth 0) also crawls the listed pages within the site's scope and
/// robots.txt, and none off the site; without it, only the home page.
#[test]
fn a_sitemap_index_with_gzip_leads_to_pages_no_link_reaches() {
    use std::io::Write;

    let jpeg = std::fs::read(common::root().join("examples/site/img/red-boat.jpg")).unwrap();
    let html = |body: String| (200, vec![("content-type", "text/html")], body.into_bytes());
    let gzip = |text: &str| {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(text.as_bytes()).unwrap();
        encoder.finish().unwrap()
    };
    let port = common::serve_site(|base| {
        let urlset = |entries: &[String]| {
            let urls: String = entries
                .iter()
                .map(|loc| format!("<url><loc>{loc}</loc><lastmod>2026-11-20</lastmod></url>"))
                .collect();
            format!(
                r#"<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>"#
            )
        };
        let page = |alt: &str, image: &str| {
            html(format!(r#"<h1>{alt}</h1><img src="{image}" alt="{alt}">"#))
        };
        BTreeMap::from([
            (
                "/robots.txt",
                (
                    200,
                    vec![],
                    format!(
                        "User-agent: *\nDisallow: /private/\n\nSitemap: {base}/sitemap_index.xml\n"
                    )
                    .into_bytes(),
                ),
            ),
            (
                "/sitemap_index.xml",
                (
                    200,
                    vec![("content-type", "application/xml")],
                    format!(
                        "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                         <sitemap><loc>{base}/sitemaps/pages.xml.gz</loc></sitemap>\
                         <sitemap><loc>{base}/sitemaps/more.xml</loc></sitemap>\
                         <sitemap><loc>http://elsewhere.example/sitemap.xml</loc></sitemap>\
                         </sitemapindex>"
                    )
                    .into_bytes(),
                ),
            ),
            (
                "/sitemaps/pages.xml.gz",
                (
                    200,
                    vec![("content-type", "application/gzip")],
                    gzip(&urlset(&[
                        format!("{base}/deep/a.html"),
                        format!("{base}/private/hidden.html"),
                        "http://elsewhere.example/page.html".to_string(),
                    ])),
                ),
            ),
            (
                "/sitemaps/more.xml",
                (
                    200,
                    vec![],
                    urlset(&[format!("{base}/deep/b.html")]).into_bytes(),
                ),
            ),
            (
                "/index.html",
                page("a green tractor in a field of wheat", "/img/home.jpg"),
            ),
            (
                "/deep/a.html",
                page("a yellow kayak on a calm river", "/img/a.jpg"),
            ),
            (
                "/deep/b.html",
                page("an old stone bridge over a canal", "/img/b.jpg"),
            ),
            (
                "/private/hidden.html",
                page("a red bicycle against a brick wall", "/img/p.jpg"),
            ),
            ("/img/home.jpg", (200, vec![], jpeg.clone())),
            ("/img/a.jpg", (200, vec![], jpeg.clone())),
            ("/img/b.jpg", (200, vec![], jpeg.clone())),
            ("/img/p.jpg", (200, vec![], jpeg.clone())),
        ])
    });
    let captions = |sitemaps: bool| {
        let dir = tempfile::tempdir().unwrap();
        let pipeline = site_pipeline(
            dir.path(),
            port,
            r#""crawl", "filter", "fetch", "write""#,
            &format!(
                "max_depth = 0\nsitemaps = {sitemaps}\n\
                 [http]\nallow_networks = [\"127.0.0.0/8\"]\nmin_host_delay = \"10ms\"\n"
            ),
            "flush_after = \"1s\"\n",
        );
        let funnel = common::run_funnel(&pipeline);
        let mut captions: Vec<String> = common::shard_samples(&dir.path().join("out"))
            .iter()
            .map(|s| s["caption"].as_str().unwrap().to_string())
            .collect();
        captions.sort();
        (captions, funnel)
    };
    let (with, funnel) = captions(true);
    assert_eq!(
        with,
        [
            "a green tractor in a field of wheat",
            "a yellow kayak on a calm river",
            "an old stone bridge over a canal",
        ],
        "{funnel}"
    );
    // The listed page robots.txt forbids was refused as such; nothing off the site was asked for.
    let crawl = common::funnel_row(&funnel, "crawl").join(" ");
    assert!(crawl.contains("robots=1"), "{funnel}");
    assert!(!crawl.contains("blocked_address"), "{funnel}");
    let (without, funnel) = captions(false);
    assert_eq!(without, ["a green tractor in a field of wheat"], "{funnel}");
}

/// What the revisit test's server saw: path, `If-None-Match`, `If-Modified-Since`, status.
type Asked = Vec<(String, String, String, u16)>;

/// A site that changes between visits: `/changing.html` gains an image after its first visit (its
/// ETag goes from "v1" to "v2"), `/still.html` never changes and answers a conditional request
/// with 304 (by `Last-Modified`).
fn changing_site() -> (u16, std::sync::Arc<std::sync::Mutex<Asked>>) {
    use std::io::{BufRead, BufReader, Write};

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let asked: std::sync::Arc<std::sync::Mutex<Asked>> = Default::default();
    let log = asked.clone();
    let picture = |name: &str| std::fs::read(common::root().join("examples/site/img").join(name));
    let images: BTreeMap<&str, Vec<u8>> = BTreeMap::from([
        ("/img/one.jpg", picture("harbour-boats.jpg").unwrap()),
        ("/img/two.jpg", picture("lighthouse.jpg").unwrap()),
        ("/img/three.jpg", picture("forest-pines.jpg").unwrap()),
    ]);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap_or(0);
            let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
            let (mut etag, mut since) = (String::new(), String::new());
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) <= 2 {
                    break;
                }
                let (name, value) = header.split_once(':').unwrap_or(("", ""));
                match name.to_ascii_lowercase().as_str() {
                    "if-none-match" => etag = value.trim().to_string(),
                    "if-modified-since" => since = value.trim().to_string(),
                    _ => {}
                }
            }
            let visits = log.lock().unwrap().iter().filter(|a| a.0 == path).count();
            let one = r#"<img src="/img/one.jpg" alt="fishing boats moored in a small harbour">"#;
            let two = r#"<img src="/img/two.jpg" alt="a white lighthouse on a rocky headland">"#;
            let three = r#"<img src="/img/three.jpg" alt="tall pine trees in a misty forest">"#;
            let (status, headers, body): (u16, String, Vec<u8>) = match path.as_str() {
                "/changing.html" => {
                    let (tag, html) = match visits {
                        0 => ("\"v1\"", one.to_string()),
                        _ => ("\"v2\"", format!("{one}{two}")),
                    };
                    if etag == tag {
                        (304, format!("etag: {tag}\r\n"), Vec::new())
                    } else {
                        let headers = format!("etag: {tag}\r\ncontent-type: text/html\r\n");
                        (200, headers, html.into_bytes())
                    }
                }
                "/still.html" => {
                    let modified = "Wed, 01 Jan 2025 00:00:00 GMT";
                    if since == modified {
                        (304, String::new(), Vec::new())
                    } else {
                        let headers =
                            format!("last-modified: {modified}\r\ncontent-type: text/html\r\n");
                        (200, headers, three.as_bytes().to_vec())
                    }
                }
                image => match images.get(image) {
                    Some(bytes) => (200, String::new(), bytes.clone()),
                    None => (404, String::new(), Vec::new()),
                },
            };
            log.lock().unwrap().push((path, etag, since, status));
            let head = format!(
                "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n{headers}\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    (port, asked)
}

/// `crawl.revisit`: each seed is visited again, conditionally. The page that gained an image gives
/// only that image on its second visit; the page that did not change costs a 304 and gives
/// nothing. Every image is written once.
#[test]
fn a_revisit_emits_only_new_images_and_an_unchanged_page_costs_a_304() {
    let (port, asked) = changing_site();
    let dir = tempfile::tempdir().unwrap();
    let pipeline = dir.path().join("p.toml");
    let out = dir.path().join("out");
    std::fs::write(
        &pipeline,
        format!(
            "stages = [\"crawl\", \"filter\", \"fetch\", \"write\", \"retry\"]\n\
             [bus]\nkind = \"embedded\"\n\
             [crawl]\nseeds = [\"http://127.0.0.1:{port}/changing.html\", \
             \"http://127.0.0.1:{port}/still.html\"]\nmax_depth = 0\n\
             revisit = \"1s\"\nrevisit_rounds = 1\n\
             [http]\nallow_networks = [\"127.0.0.0/8\"]\nmin_host_delay = \"10ms\"\n\
             [write]\noutput = {out:?}\nflush_after = \"1s\"\n"
        ),
    )
    .unwrap();
    let funnel = common::run_funnel(&pipeline);
    let mut captions: Vec<String> = common::shard_samples(&out)
        .iter()
        .map(|s| s["caption"].as_str().unwrap().to_string())
        .collect();
    captions.sort();
    assert_eq!(
        captions,
        [
            "a white lighthouse on a rocky headland",
            "fishing boats moored in a small harbour",
            "tall pine trees in a misty forest",
        ],
        "{funnel}"
    );
    let asked = asked.lock().unwrap().clone();
    let visits = |path: &str| asked.iter().filter(|a| a.0 == path).collect::<Vec<_>>();
    // Each page twice: first plainly, then conditionally on what the first visit answered.
    let changing = visits("/changing.html");
    assert_eq!(changing.len(), 2, "{asked:?}");
    assert_eq!(
        (&*changing[1].1, changing[1].3),
        ("\"v1\"", 200),
        "{asked:?}"
    );
    let still = visits("/still.html");
    assert_eq!(still.len(), 2, "{asked:?}");
    assert_eq!(
        (&*still[1].2, still[1].3),
        ("Wed, 01 Jan 2025 00:00:00 GMT", 304),
        "{asked:?}"
    );
    // The old image was not fetched again: it was not emitted again.
    assert_eq!(visits("/img/one.jpg").len(), 1, "{asked:?}");
    assert!(
        common::funnel_row(&funnel, "crawl")
            .join(" ")
            .contains("retry:revisit=2"),
        "{funnel}"
    );
}
