//! Web archives as a pipeline source: a WARC holding the bundled site's pages, read from a local file
//! and from an S3 bucket, yields exactly the samples that crawling the live site yields.

mod common;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

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

/// The site's WARC cut into `files` archives under `dir/archives/`: page records spread over a
/// few of them, each padded with request records so that it has several segments; the other files
/// hold only a `warcinfo` record (no candidates).
fn split_site(dir: &Path, base: &str, files: usize) -> Vec<PathBuf> {
    let folder = dir.join("archives");
    std::fs::create_dir_all(&folder).unwrap();
    // Each gzip member of the site's WARC is one record: split them back apart.
    let warc = site_warc(base);
    let mut members = Vec::new();
    let mut rest = &warc[..];
    while !rest.is_empty() {
        let mut decoder = flate2::bufread::GzDecoder::new(rest);
        std::io::copy(&mut decoder, &mut std::io::sink()).unwrap();
        let left = decoder.into_inner().len();
        members.push(rest[..rest.len() - left].to_vec());
        rest = &rest[rest.len() - left..];
    }
    let padding = |n: usize| -> Vec<u8> {
        (0..n)
            .flat_map(|i| {
                record(
                    "request",
                    &format!("{base}/pad{i}"),
                    "application/http; msgtype=request",
                    format!(
                        "GET /pad{i} HTTP/1.1\r\nHost: x\r\n\r\n{}",
                        "p".repeat(i * 31)
                    )
                    .as_bytes(),
                )
            })
            .collect()
    };
    let mut paths = Vec::new();
    for i in 0..files {
        let mut file = record(
            "warcinfo",
            "",
            "application/warc-fields",
            b"software: test\r\n",
        );
        // Every 7th file takes the next members (a response with its request).
        if i % 7 == 3 {
            for member in members.iter().skip(i / 7 * 4).take(4) {
                file.extend(padding(3));
                file.extend_from_slice(member);
            }
        }
        let path = folder.join(format!("part-{i:05}.warc.gz"));
        std::fs::write(&path, file).unwrap();
        paths.push(path);
    }
    // Whatever did not fit goes into the last file.
    let placed = files.div_ceil(7) * 4;
    if placed < members.len() {
        let last = paths.last().unwrap();
        let mut file = std::fs::read(last).unwrap();
        for member in &members[placed.min(members.len())..] {
            file.extend_from_slice(member);
        }
        std::fs::write(last, file).unwrap();
    }
    paths
}

/// `pipeline` with the extract stage reading `archives` (TOML of `[[archives]]` entries), small
/// segments so that every file has several, and topics of 8 records a partition, far fewer than
/// the files: the extract stage feeds its own input, which must not wait on itself.
fn extract_pipeline(dir: &Path, port: u16, archives: &str) -> PathBuf {
    let path = pipeline(dir, port, Some("unused"), "");
    let text = std::fs::read_to_string(&path).unwrap();
    let at = text.find("\n[[archives]]").unwrap();
    let text = text[..at]
        .replace("stages = [\"filter\"", "stages = [\"extract\", \"filter\"")
        .replace("capacity = 512 ", "capacity = 8 ")
        + &format!("\n[extract]\nsegment_bytes = 600\nfiles_at_once = 3\n\n{archives}\n");
    assert!(
        text.contains("capacity = 8 ") && text.contains("\"extract\""),
        "pipelines/local.toml changed: adapt this test"
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_extract_stage_reads_200_archives_in_segments_and_yields_the_crawled_samples() {
    let port = common::free_port();
    let dir = tempfile::tempdir().unwrap();
    let crawl_dir = tempfile::tempdir().unwrap();
    let crawl_funnel = common::run_funnel(&pipeline(crawl_dir.path(), port, None, ""));
    let crawled = shard_keys(&crawl_dir.path().join("out"));
    let files = split_site(dir.path(), &format!("http://127.0.0.1:{port}"), 200);
    let funnel = common::run_funnel(&extract_pipeline(
        dir.path(),
        port,
        "[[archives]]\npath = \"archives/part-*.warc.gz\"\n",
    ));
    assert_eq!(shard_keys(&dir.path().join("out")), crawled, "{funnel}");
    // Each page's candidates once: as many as the crawl found, none read twice.
    let candidates = |funnel: &str| common::funnel_row(funnel, "filter")[1].clone();
    assert_eq!(candidates(&funnel), candidates(&crawl_funnel), "{funnel}");
    // Every file is a record, and the padded ones several segments.
    let extract = common::funnel_row(&funnel, "extract");
    let segments: u64 = extract[1].parse().unwrap();
    assert!(segments > files.len() as u64 + 20, "{funnel}");
}

#[test]
fn a_manifest_slice_names_only_its_files() {
    let port = common::free_port();
    let dir = tempfile::tempdir().unwrap();
    split_site(dir.path(), &format!("http://127.0.0.1:{port}"), 21);
    // A gzip manifest of relative paths, as Common Crawl's wat.paths.gz; files 3 and 10 hold pages.
    let lines: String = (0..21)
        .map(|i| format!("archives/part-{i:05}.warc.gz\n"))
        .collect();
    let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
    gz.write_all(lines.as_bytes()).unwrap();
    std::fs::write(dir.path().join("warc.paths.gz"), gz.finish().unwrap()).unwrap();
    let only = |files: &str| {
        let out = tempfile::tempdir().unwrap();
        std::fs::copy(
            dir.path().join("warc.paths.gz"),
            out.path().join("warc.paths.gz"),
        )
        .unwrap();
        std::fs::create_dir_all(out.path().join("archives")).unwrap();
        for entry in std::fs::read_dir(dir.path().join("archives")).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(
                entry.path(),
                out.path().join("archives").join(entry.file_name()),
            )
            .unwrap();
        }
        let funnel = common::run_funnel(&extract_pipeline(
            out.path(),
            port,
            &format!(
                "[[archives]]\nmanifest = \"warc.paths.gz\"\nkind = \"warc\"\nfiles = \"{files}\"\n"
            ),
        ));
        let segments: u64 = common::funnel_row(&funnel, "extract")[1].parse().unwrap();
        (shard_keys(&out.path().join("out")).len(), segments, funnel)
    };
    // Files 0–2 hold no page; 3–9 one padded file; all 21 every page.
    let (none, segments, funnel) = only("0-2");
    assert_eq!((none, segments), (0, 3), "{funnel}");
    let (some, _, funnel) = only("0-9");
    assert!(some > 0, "{funnel}");
    let (all, _, funnel) = only("");
    assert!(all > some, "{funnel}");
}

/// Serves `body` at any path over HTTP/1.1, honouring `Range: bytes=N-`; the first `cuts`
/// responses stop at byte `cut_at` of the object (at once if they start there or past it) and
/// close the connection (a long read that breaks). Returns the port and the number of requests
/// seen.
fn serve_breaking(
    body: Vec<u8>,
    cuts: usize,
    cut_at: usize,
) -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{BufRead, BufReader};
    use std::sync::atomic::Ordering;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let requests = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut start = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(range) = line.to_ascii_lowercase().strip_prefix("range: bytes=") {
                    let first = range.trim().split('-').next().unwrap();
                    start = first.parse().unwrap_or_else(|_| panic!("{line:?}"));
                }
            }
            let n = seen.fetch_add(1, Ordering::SeqCst);
            let part = &body[start..];
            let (status, range) = if start > 0 {
                (
                    "206 Partial Content",
                    format!(
                        "Content-Range: bytes {start}-{}/{}\r\n",
                        body.len() - 1,
                        body.len()
                    ),
                )
            } else {
                ("200 OK", String::new())
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nETag: \"v1\"\r\n{range}Connection: close\r\n\r\n",
                part.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let send = if n < cuts {
                &part[..cut_at.saturating_sub(start).min(part.len())]
            } else {
                part
            };
            let _ = stream.write_all(send);
            let _ = stream.flush();
        }
    });
    (port, requests)
}

#[test]
fn a_long_read_that_breaks_resumes_with_a_ranged_request_where_it_broke() {
    let body: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    let (port, requests) = serve_breaking(body.clone(), 2, 700_000);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let options = [("allow_http".to_string(), "true".to_string())].into();
    let read = runtime.block_on(async {
        let input = altflow::sources::open_input_at(
            &format!("http://127.0.0.1:{port}/big.warc.gz"),
            &options,
            1000,
        )
        .await
        .unwrap();
        tokio::task::spawn_blocking(move || {
            let mut bytes = Vec::new();
            let mut input = input;
            std::io::Read::read_to_end(&mut input, &mut bytes).map(|_| bytes)
        })
        .await
        .unwrap()
    });
    let read = read.unwrap();
    assert_eq!(read.len(), body.len() - 1000);
    assert!(read == body[1000..], "the resumed bytes are the object's");
    // The first request, two resumptions (the first of them cut at once): object_store's own, which
    // the extract stage relies on.
    assert_eq!(requests.load(std::sync::atomic::Ordering::SeqCst), 3);
}

/// The site's pages in 14 archives in a followed folder, read by the extract stage, the last
/// archive (holding the pages the others lack) parked beside the folder until the run is under way.
struct Followed {
    dir: tempfile::TempDir,
    crawled: BTreeSet<String>,
    files: usize,
    late: PathBuf,
    parked: PathBuf,
    pipeline: PathBuf,
}

impl Followed {
    fn new() -> Self {
        let port = common::free_port();
        let crawled = crawl_keys(port);
        let dir = tempfile::tempdir().unwrap();
        let files = split_site(dir.path(), &format!("http://127.0.0.1:{port}"), 14);
        let late = files.last().unwrap().clone();
        let parked = dir.path().join("late.warc.gz");
        std::fs::rename(&late, &parked).unwrap();
        let pipeline = extract_pipeline(
            dir.path(),
            port,
            "[[archives]]\npath = \"archives/*.warc.gz\"\nfollow = \"300ms\"\n",
        );
        Self {
            dir,
            crawled,
            files: files.len(),
            late,
            parked,
            pipeline,
        }
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("{name}.log"))).unwrap_or_default()
    }

    /// Starts `altflow run` (logging to `name`.log), waits for the first files' samples, lands the
    /// late file and waits for its samples too; returns the run, still following.
    fn run_until_the_late_file_is_read(&self, name: &'static str) -> common::Proc {
        let pipeline = self.pipeline.to_str().unwrap();
        let run = common::Proc::spawn(name, self.dir.path(), &["run", pipeline]);
        let out = self.out();
        let first = || {
            if !out.exists() {
                return false;
            }
            let keys = shard_keys(&out);
            !keys.is_empty() && keys.is_subset(&self.crawled)
        };
        common::wait_for("the first files' samples", Duration::from_secs(90), first);
        let before = shard_keys(&out);
        assert!(
            before.len() < self.crawled.len(),
            "the late file holds pages"
        );
        std::fs::rename(&self.parked, &self.late).unwrap();
        common::wait_for("the late file's samples", Duration::from_secs(90), || {
            shard_keys(&out) == self.crawled
        });
        run
    }
}

#[test]
fn a_followed_folder_s_new_archive_is_read_once() {
    let followed = Followed::new();
    let mut run = followed.run_until_the_late_file_is_read("follow");
    // Listed again and again, it was published once (shard_keys fails on a sample twice).
    std::thread::sleep(Duration::from_secs(1));
    assert!(run.terminate(Duration::from_secs(60)).success());
    assert_eq!(shard_keys(&followed.out()), followed.crawled);
    let log = followed.log("follow");
    assert_eq!(log.matches("new archives landed").count(), 1, "{log}");
}

/// On Kafka, where a member's progress outlives it: a followed folder's late file is read once, and
/// a restarted run, whose seeder publishes every file again, reads none of them twice (the extract
/// stage's progress marks in the output store skip them).
#[test]
fn on_kafka_a_followed_file_is_read_once_and_a_restart_reads_nothing_twice() {
    let Some(brokers) = common::kafka_broker() else {
        return;
    };
    let followed = Followed::new();
    // The same pipeline on the broker, with topics and groups of its own.
    let text = std::fs::read_to_string(&followed.pipeline).unwrap();
    let kafka = common::bus_table(Some(&brokers), 4);
    let text = text.replacen("[bus]\nkind = \"embedded\"\npartitions = 4\n", &kafka, 1)
        + &format!(
            "\n[topics]\nprefix = \"{}.\"\n",
            common::random_name("follow")
        );
    assert!(text.contains("kind = \"kafka\""), "adapt this test");
    std::fs::write(&followed.pipeline, text).unwrap();
    let pipeline = followed.pipeline.to_str().unwrap();
    let created = Command::new(env!("CARGO_BIN_EXE_altflow"))
        .args(["topics", "create", "--pipeline", pipeline])
        .status()
        .unwrap();
    assert!(created.success());

    let mut run = followed.run_until_the_late_file_is_read("first");
    assert!(run.terminate(Duration::from_secs(60)).success());
    assert_eq!(
        followed.log("first").matches("new archives landed").count(),
        1
    );

    // A restart publishes all 14 files again; each is skipped by its mark, not read.
    let mut run = common::Proc::spawn("second", followed.dir.path(), &["run", pipeline]);
    common::wait_for("every file skipped", Duration::from_secs(90), || {
        followed
            .log("second")
            .matches("skipping an archive segment the file's progress is past")
            .count()
            >= followed.files
    });
    assert!(run.terminate(Duration::from_secs(60)).success());
    let second = followed.log("second");
    assert!(!second.contains("read an archive to its end"), "{second}");
    // shard_keys fails on a sample twice.
    assert_eq!(shard_keys(&followed.out()), followed.crawled);
}

/// One row of a columnar index in Common Crawl's shape: where a capture's record is.
struct IndexRow {
    url: String,
    warc_filename: String,
    offset: i32,
    length: i32,
}

/// The response records of `files` (relative to `dir`) as index rows, found member by member.
fn index_rows(dir: &Path, files: &[PathBuf]) -> Vec<IndexRow> {
    let mut rows = Vec::new();
    for path in files {
        let bytes = std::fs::read(path).unwrap();
        let mut at = 0;
        while at < bytes.len() {
            let mut decoder = flate2::bufread::GzDecoder::new(&bytes[at..]);
            let mut text = Vec::new();
            std::io::Read::read_to_end(&mut decoder, &mut text).unwrap();
            let length = bytes.len() - at - decoder.into_inner().len();
            let head = String::from_utf8_lossy(&text[..text.len().min(600)]).into_owned();
            let header = |name: &str| {
                head.lines()
                    .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
            };
            if header("WARC-Type:").as_deref() == Some("response") {
                rows.push(IndexRow {
                    url: header("WARC-Target-URI:").unwrap(),
                    warc_filename: path
                        .strip_prefix(dir)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                    offset: at as i32,
                    length: length as i32,
                });
            }
            at += length;
        }
    }
    rows
}

/// Writes `rows` as a Parquet file of the columnar index's columns (and types: 32-bit offsets).
fn write_index(path: &Path, rows: &[IndexRow]) {
    use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
    use std::sync::Arc;
    let strings = |f: &dyn Fn(&IndexRow) -> String| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(rows.iter().map(f)))
    };
    let batch = RecordBatch::try_from_iter([
        ("url", strings(&|r| r.url.clone())),
        ("url_host_tld", strings(&|_| "1".into())),
        ("content_languages", strings(&|_| "eng".into())),
        ("warc_filename", strings(&|r| r.warc_filename.clone())),
        (
            "warc_record_offset",
            Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.offset))) as ArrayRef,
        ),
        (
            "warc_record_length",
            Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.length))) as ArrayRef,
        ),
    ])
    .unwrap();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// A crawl laid out in `dir` as Common Crawl's: the site's WARC files under `archives/`, the
/// columnar index's Parquet files under `cc-index/table/…/subset=…/`, and the manifest listing
/// every subset's files in `crawl-data/CC-MAIN-TEST/cc-index-table.paths.gz`. Another subset's
/// rows point at a file that does not exist: read, they would fail. Returns the `warc` rows.
fn common_crawl_layout(dir: &Path, base: &str) -> usize {
    let files = split_site(dir, base, 30);
    let rows = index_rows(dir, &files);
    let table = dir.join("cc-index/table/cc-main/warc/crawl=CC-MAIN-TEST");
    write_index(&table.join("subset=warc/part-00000.c000.gz.parquet"), &rows);
    let mut diagnostics = index_rows(dir, &files);
    for row in &mut diagnostics {
        row.warc_filename = "archives/missing-crawldiagnostics.warc.gz".into();
    }
    write_index(
        &table.join("subset=crawldiagnostics/part-00000.c000.gz.parquet"),
        &diagnostics,
    );
    let manifest: String = ["crawldiagnostics", "warc"]
        .iter()
        .map(|subset| {
            format!(
                "cc-index/table/cc-main/warc/crawl=CC-MAIN-TEST/subset={subset}/part-00000.c000.gz.parquet\n"
            )
        })
        .collect();
    let crawl_data = dir.join("crawl-data/CC-MAIN-TEST");
    std::fs::create_dir_all(&crawl_data).unwrap();
    let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
    gz.write_all(manifest.as_bytes()).unwrap();
    std::fs::write(
        crawl_data.join("cc-index-table.paths.gz"),
        gz.finish().unwrap(),
    )
    .unwrap();
    rows.len()
}

#[test]
fn a_selection_through_the_columnar_index_reads_exactly_the_records_it_keeps() {
    let port = common::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let crawl_dir = tempfile::tempdir().unwrap();
    let crawl_funnel = common::run_funnel(&pipeline(crawl_dir.path(), port, None, ""));
    let crawled = shard_keys(&crawl_dir.path().join("out"));
    let candidates =
        |funnel: &str| -> u64 { common::funnel_row(funnel, "filter")[1].parse().unwrap() };

    let select = |condition: &str| {
        let dir = tempfile::tempdir().unwrap();
        let rows = common_crawl_layout(dir.path(), &base);
        let funnel = common::run_funnel(&extract_pipeline(
            dir.path(),
            port,
            &format!(
                "[[archives]]\ncrawl = \"CC-MAIN-TEST\"\nbase = \".\"\nselect = {condition:?}\n"
            ),
        ));
        let samples = common::shard_samples(&dir.path().join("out"));
        let pages: BTreeSet<String> = samples
            .iter()
            .map(|s| s["meta"]["page_url"].as_str().unwrap().to_string())
            .collect();
        (shard_keys(&dir.path().join("out")), pages, funnel, rows)
    };
    let (articles, article_pages, funnel_a, rows) =
        select("url LIKE '%/articles/%' AND content_languages = 'eng'");
    let (others, other_pages, funnel_b, _) = select("url NOT LIKE '%/articles/%'");
    assert!(rows > 4, "the site's pages are in the index");
    assert!(
        !articles.is_empty() && !others.is_empty(),
        "{funnel_a}\n{funnel_b}"
    );
    assert!(
        article_pages.iter().all(|p| p.contains("/articles/")),
        "{article_pages:?}"
    );
    assert!(
        other_pages.iter().all(|p| !p.contains("/articles/")),
        "{other_pages:?}"
    );
    // The two selections split the crawl: every candidate read once (a sample may be on pages of
    // both: the same image and text on an article and the front page has one id).
    let both: BTreeSet<String> = articles.union(&others).cloned().collect();
    assert_eq!(both, crawled, "{funnel_a}\n{funnel_b}");
    assert_eq!(
        candidates(&funnel_a) + candidates(&funnel_b),
        candidates(&crawl_funnel),
        "{funnel_a}\n{funnel_b}\n{crawl_funnel}"
    );
    // One archives record per WARC file holding selected records (the site's pages are in 5),
    // none failed: the other subset's rows were not read.
    for funnel in [&funnel_a, &funnel_b] {
        let extract = common::funnel_row(funnel, "extract");
        let records: u64 = extract[1].parse().unwrap();
        assert!((1..=6).contains(&records), "{funnel}");
        assert!(
            !extract.iter().any(|w| w.starts_with("archive=")),
            "{funnel}"
        );
    }
}

#[test]
fn a_selection_that_cannot_run_fails_naming_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let files = split_site(dir.path(), "http://127.0.0.1:1", 3);
    write_index(
        &dir.path().join("index/part-0.parquet"),
        &index_rows(dir.path(), &files),
    );
    let pipeline = extract_pipeline(
        dir.path(),
        common::free_port(),
        "[[archives]]\npath = \"index/*.parquet\"\nbase = \".\"\nselect = \"no_such_column = 1\"\n",
    );
    let output = altflow().arg("run").arg(&pipeline).output().unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{log}");
    assert!(
        log.contains("archives[0].select") && log.contains("no_such_column"),
        "{log}"
    );
    // Validation names the key of a selection without the extract stage.
    let text = std::fs::read_to_string(&pipeline)
        .unwrap()
        .replace("stages = [\"extract\", ", "stages = [");
    std::fs::write(&pipeline, text).unwrap();
    let output = altflow().arg("validate").arg(&pipeline).output().unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && log.contains("archives[0].select"),
        "{log}"
    );
}

#[test]
fn a_selection_reads_its_index_and_records_from_s3() {
    let Some(endpoint) = common::s3_endpoint() else {
        return;
    };
    let port = common::free_port();
    let crawl_dir = tempfile::tempdir().unwrap();
    let crawl_funnel = common::run_funnel(&pipeline(crawl_dir.path(), port, None, ""));
    let crawled = shard_keys(&crawl_dir.path().join("out"));
    // The layout put in a bucket, as s3://commoncrawl/ holds it.
    let layout = tempfile::tempdir().unwrap();
    common_crawl_layout(layout.path(), &format!("http://127.0.0.1:{port}"));
    let bucket = common::random_name("commoncrawl");
    let options = common::s3_options(&endpoint);
    common::create_bucket(&endpoint, &bucket);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mut folders = vec![layout.path().to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let key = path.strip_prefix(layout.path()).unwrap().to_str().unwrap();
            let url = format!("s3://{bucket}/{key}");
            let (store, at) =
                altflow::writer::store::Store::open_object(&url, options.clone()).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            runtime
                .block_on(object_store::ObjectStoreExt::put(
                    store.inner.as_ref(),
                    &at,
                    bytes.into(),
                ))
                .unwrap();
        }
    }
    let store_options: Vec<String> = options
        .iter()
        .map(|(k, v)| format!("{k} = {v:?}"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let funnel = common::run_funnel(&extract_pipeline(
        dir.path(),
        port,
        &format!(
            "[[archives]]\ncrawl = \"CC-MAIN-TEST\"\nbase = \"s3://{bucket}/\"\n\
             select = \"url_host_tld = '1'\"\nstore_options = {{ {} }}\n",
            store_options.join(", ")
        ),
    ));
    assert_eq!(shard_keys(&dir.path().join("out")), crawled, "{funnel}");
    let candidates = |funnel: &str| common::funnel_row(funnel, "filter")[1].clone();
    assert_eq!(candidates(&funnel), candidates(&crawl_funnel), "{funnel}");
}
