//! Web archives as a pipeline source: a WARC holding the bundled site's pages, read from a local file
//! and from an S3 bucket, yields exactly the samples that crawling the live site yields.

mod common;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use flate2::Compression;
use flate2::write::GzEncoder;

fn altflow() -> Command {
    Command::new(env!("CARGO_BIN_EXE_altflow"))
}

/// One WARC record as its own gzip member, the way Common Crawl writes them.
fn record(kind: &str, uri: &str, content_type: &str, block: &[u8]) -> Vec<u8> {
    let mut text = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\nWARC-Date: 2026-11-22T10:00:00Z\r\n\
         WARC-Record-ID: <urn:uuid:{}>\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        common::random_name("id"),
        block.len()
    )
    .into_bytes();
    text.extend_from_slice(block);
    text.extend_from_slice(b"\r\n\r\n");
    let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
    gz.write_all(&text).unwrap();
    gz.finish().unwrap()
}

/// A WARC of every page of examples/site as served at `base`, with the records a crawler writes
/// around responses (warcinfo, requests, a revisit) that must give nothing.
fn site_warc(base: &str) -> Vec<u8> {
    let site = common::root().join("examples/site");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&site)
        .unwrap()
        .chain(std::fs::read_dir(site.join("articles")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    pages.sort();
    let mut warc = record(
        "warcinfo",
        "",
        "application/warc-fields",
        b"software: test\r\n",
    );
    for page in &pages {
        let path = page.strip_prefix(&site).unwrap().to_str().unwrap();
        let uri = format!("{base}/{path}");
        let html = std::fs::read(page).unwrap();
        let request = format!("GET /{path} HTTP/1.1\r\nHost: x\r\n\r\n");
        warc.extend(record(
            "request",
            &uri,
            "application/http; msgtype=request",
            request.as_bytes(),
        ));
        let mut response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
            html.len()
        )
        .into_bytes();
        response.extend_from_slice(&html);
        warc.extend(record(
            "response",
            &uri,
            "application/http; msgtype=response",
            &response,
        ));
    }
    warc.extend(record(
        "revisit",
        &format!("{base}/index.html"),
        "application/http; msgtype=response",
        b"HTTP/1.1 304 Not Modified\r\n\r\n",
    ));
    warc
}

/// pipelines/local.toml adapted to write into `dir`, serve the site on `port`, and, when `archive`
/// is given, read that archive instead of crawling.
fn pipeline(dir: &Path, port: u16, archive: Option<&str>, store_options: &str) -> PathBuf {
    let text = std::fs::read_to_string(common::root().join("pipelines/local.toml")).unwrap();
    let site = common::root().join("examples/site");
    let mut text = text
        .replace(
            "dir = \"examples/site\"",
            &format!("dir = {:?}", site.to_str().unwrap()),
        )
        .replace(
            "listen = \"127.0.0.1:0\"",
            &format!("listen = \"127.0.0.1:{port}\""),
        )
        .replace(
            "output = \"file://./out\"",
            &format!("output = {:?}", dir.join("out").to_str().unwrap()),
        )
        .replace("listen = \"127.0.0.1:9898\"", "listen = \"127.0.0.1:0\"");
    if let Some(archive) = archive {
        text = text
            .replace(
                "stages = [\"crawl\", \"filter\", \"fetch\", \"dedup\", \"write\", \"retry\", \"failures\"]",
                "stages = [\"filter\", \"fetch\", \"dedup\", \"write\", \"retry\", \"failures\"]",
            )
            .replace("seeds = [\"{sample_site}/index.html\"]", "");
        assert!(
            !text.contains("\"crawl\""),
            "pipelines/local.toml changed: adapt this test"
        );
        text.push_str(&format!(
            "\n[[archives]]\npath = {archive:?}\nstore_options = {{ {store_options} }}\n"
        ));
    }
    let path = dir.join("pipeline.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The sample keys of every shard under `out`, read back with `altflow inspect`.
fn shard_keys(out: &Path) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    for sample in common::shard_samples(out) {
        let key = sample["key"].as_str().unwrap().to_string();
        assert!(keys.insert(key), "twice: {sample}");
    }
    keys
}

fn crawl_keys(port: u16) -> BTreeSet<String> {
    let dir = tempfile::tempdir().unwrap();
    common::run_funnel(&pipeline(dir.path(), port, None, ""));
    shard_keys(&dir.path().join("out"))
}

#[test]
fn a_local_warc_of_the_site_yields_the_crawled_samples() {
    let port = common::free_port();
    let crawled = crawl_keys(port);
    assert_eq!(crawled.len(), 15);

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("site.warc.gz"),
        site_warc(&format!("http://127.0.0.1:{port}")),
    )
    .unwrap();
    // A relative path is read relative to the pipeline file.
    let funnel = common::run_funnel(&pipeline(dir.path(), port, Some("site.warc.gz"), ""));
    assert_eq!(shard_keys(&dir.path().join("out")), crawled, "{funnel}");
}

#[test]
fn a_warc_in_s3_is_streamed_from_the_bucket() {
    let Some(endpoint) = common::s3_endpoint() else {
        return;
    };
    let port = common::free_port();
    let bucket = common::random_name("archives");
    let options = common::s3_options(&endpoint);
    common::create_bucket(&endpoint, &bucket);
    let url = format!("s3://{bucket}/crawl/site.warc.gz");
    let (store, path) = altflow::writer::store::Store::open_object(&url, options.clone()).unwrap();
    let warc = site_warc(&format!("http://127.0.0.1:{port}"));
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(object_store::ObjectStoreExt::put(
            store.inner.as_ref(),
            &path,
            warc.into(),
        ))
        .unwrap();

    let dir = tempfile::tempdir().unwrap();
    let store_options: Vec<String> = options
        .iter()
        .map(|(k, v)| format!("{k} = {v:?}"))
        .collect();
    let funnel = common::run_funnel(&pipeline(
        dir.path(),
        port,
        Some(&url),
        &store_options.join(", "),
    ));
    assert_eq!(shard_keys(&dir.path().join("out")).len(), 15, "{funnel}");

    // A missing object is an error naming it, logged, and the run goes on to an empty result.
    let missing = format!("s3://{bucket}/crawl/missing.warc.gz");
    let dir = tempfile::tempdir().unwrap();
    let output = altflow()
        .arg("run")
        .arg(pipeline(
            dir.path(),
            port,
            Some(&missing),
            &store_options.join(", "),
        ))
        .output()
        .unwrap();
    assert!(output.status.success());
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(log.contains("missing.warc.gz"), "{log}");
}
