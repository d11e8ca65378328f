//! Web archives as a source: WARC files (HTML responses, extracted like crawled pages) and WAT files
//! (Common Crawl's metadata records listing each page's `<img>` links with alt text), plain or
//! gzip-compressed, from local paths or object-store URLs, streamed record by record.

use std::hash::BuildHasher;
use std::io::{self, BufRead, BufReader, Read};
use std::sync::{Arc, Mutex};

use crate::bounded::BoundedCounter;
use crate::record::{Candidate, sample_id};
use crate::sources::{SourceError, drive, open_input};
use crate::web::html;
use crate::web::http::forbids_ai;
use crate::web::warc::{WarcReader, WarcRecord, parse_http_response};

/// Largest record block kept; a longer record (a video, a huge page) is cut here and its HTML
/// extracted from the part kept.
pub const MAX_RECORD_BYTES: usize = 8 << 20;

/// Image URLs whose repeat count across pages is remembered (for the dominance features).
const SITE_IMAGES_KEPT: usize = 200_000;

/// Turns archive records into candidates, remembering how often each image URL was seen on earlier
/// pages (a logo repeated on every page is not a page's dominant image).
///
/// Clones share the memory of image URLs, so that the files a member reads at once count together.
#[derive(Clone)]
pub struct ArchiveCandidates {
    agent: Option<String>,
    site_images: Arc<Mutex<BoundedCounter<u64>>>,
    hasher: std::collections::hash_map::RandomState,
}

impl ArchiveCandidates {
    /// A converter honouring `noai`/`noimageai` opt-outs addressed to everyone or to `agent` (the
    /// product token of our User-Agent); `None` ignores opt-outs (robots rules switched off).
    pub fn new(agent: Option<String>) -> Self {
        Self {
            agent,
            site_images: Arc::new(Mutex::new(BoundedCounter::new(SITE_IMAGES_KEPT))),
            hasher: Default::default(),
        }
    }

    /// The candidates of one record: successful HTML `response` records through the same extraction
    /// as crawled pages, `metadata` records (WAT) from their link list; other records give none.
    pub fn of_record(&self, record: &WarcRecord) -> Vec<Candidate> {
        let page_url = || url::Url::parse(record.target_uri()).ok();
        match record.kind().as_str() {
            "response" => {
                let Some(page_url) = page_url() else {
                    return Vec::new();
                };
                let Some(response) = parse_http_response(&record.block, MAX_RECORD_BYTES) else {
                    return Vec::new();
                };
                let html = response
                    .header("Content-Type")
                    .is_some_and(|t| t.to_ascii_lowercase().contains("html"));
                if response.status != 200 || !html {
                    return Vec::new();
                }
                if self.opted_out(response.header("X-Robots-Tag").unwrap_or("")) {
                    return Vec::new();
                }
                let page = html::extract(&response.body, &page_url);
                if self.opted_out(&page.robots) {
                    return Vec::new();
                }
                // The page is parsed without the lock; only the counting holds it.
                let keys: Vec<u64> = page
                    .images
                    .iter()
                    .map(|image| self.hasher.hash_one(image.url.as_str()))
                    .collect();
                let seen: Vec<u32> = {
                    let mut site_images = crate::sync::lock(&self.site_images);
                    keys.into_iter()
                        .map(|key| site_images.increment(key))
                        .collect()
                };
                page.images
                    .iter()
                    .zip(seen)
                    .map(|(image, pages_seen)| html::candidate(image, &page, &page_url, pages_seen))
                    .collect()
            }
            "metadata" => {
                // Before any URL parsing: two of three WAT records have no links.
                let Some(wat) = crate::web::warc::wat_page(&record.block) else {
                    return Vec::new();
                };
                // The envelope names the page; the record's own target is the fallback.
                let Some(page) = url::Url::parse(&wat.page_url).ok().or_else(page_url) else {
                    return Vec::new();
                };
                // Relative links resolve against `<base href>` where the page has one, as in a
                // crawled page (html::extract) and in cc2dataset.
                let base = wat.base.as_deref().and_then(|b| page.join(b.trim()).ok());
                let base = base.as_ref().unwrap_or(&page);
                wat.images
                    .into_iter()
                    .filter_map(|image| {
                        let image_url = base.join(&image.image_url).ok()?;
                        if !matches!(image_url.scheme(), "http" | "https") {
                            return None;
                        }
                        Some(Candidate {
                            id: sample_id(image_url.as_str(), &image.alt),
                            image_url: image_url.into(),
                            alt: image.alt,
                            page_url: page.as_str().to_string(),
                            ..Default::default()
                        })
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    fn opted_out(&self, directives: &str) -> bool {
        self.agent
            .as_deref()
            .is_some_and(|agent| forbids_ai(directives, agent))
    }
}

/// Where the read of a segment stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentRead {
    /// Where the next segment starts (a gzip member's first byte, or a record's in an uncompressed
    /// file); `None` at the end of the file.
    pub next: Option<u64>,
    /// Records read.
    pub records: u64,
}

/// Why reading a segment stopped early.
#[derive(Debug, thiserror::Error)]
#[error("byte {offset}: {cause}")]
pub struct SegmentError {
    /// Where the member (or record) being read started: the last good boundary, where a later
    /// read may resume.
    pub offset: u64,
    /// Records read before.
    pub records: u64,
    /// What went wrong.
    #[source]
    pub cause: crate::web::warc::WarcError,
}

impl SegmentError {
    /// Whether reading again may pass: the file's connection broke (and resuming it did not help),
    /// rather than the bytes being wrong.
    pub fn is_transient(&self) -> bool {
        match &self.cause {
            crate::web::warc::WarcError::Io { source, .. } => is_broken_read(source),
            _ => false,
        }
    }
}

/// Whether an I/O error is a read that broke (a dropped connection, a timeout) rather than bad
/// bytes (corrupt gzip data, a file that ends too early).
pub fn is_broken_read(error: &io::Error) -> bool {
    use io::ErrorKind::*;
    matches!(
        error.kind(),
        ConnectionReset | ConnectionAborted | NotConnected | BrokenPipe | TimedOut
    )
}

/// A reader that counts the bytes consumed from it, so that the position of a gzip member's end
/// (or a record's) in the file is known exactly.
struct Counted<R> {
    inner: R,
    consumed: u64,
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.inner.consume(amount);
        self.consumed += amount as u64;
    }
}

/// Reads the records of an archive from `input`, which holds the file from byte `start` on (0, or
/// where an earlier segment said the next one starts), handing each to `each` (which returns false
/// to stop). It stops at the first gzip member boundary (record boundary, uncompressed) at or past
/// `budget` bytes read, and says where the next segment starts.
///
/// Common Crawl writes one gzip member per record, so a segment ends every few kilobytes past the
/// budget; a file compressed as one member can only be read whole.
pub fn read_segment(
    input: impl Read,
    start: u64,
    budget: u64,
    max_block: usize,
    mut each: impl FnMut(WarcRecord) -> bool,
) -> Result<SegmentRead, SegmentError> {
    let mut input = Counted {
        inner: BufReader::with_capacity(1 << 16, input),
        consumed: 0,
    };
    let mut records = 0u64;
    let failed = |offset: u64, records: u64, cause| SegmentError {
        offset,
        records,
        cause,
    };
    let io_failed = |offset: u64, records: u64, source: io::Error| {
        failed(
            offset,
            records,
            crate::web::warc::WarcError::Io {
                record: records,
                source,
            },
        )
    };
    loop {
        let at = start + input.consumed;
        let head = input.fill_buf().map_err(|e| io_failed(at, records, e))?;
        let gzip = head.starts_with(&[0x1f, 0x8b]);
        if head.is_empty() {
            return Ok(SegmentRead {
                next: None,
                records,
            });
        }
        if input.consumed >= budget {
            return Ok(SegmentRead {
                next: Some(at),
                records,
            });
        }
        let stop = if gzip {
            // One member: its records, then the position is the next member's first byte.
            let member = flate2::bufread::GzDecoder::new(&mut input);
            let mut reader = WarcReader::new(BufReader::with_capacity(1 << 15, member), max_block);
            let mut stop = false;
            for record in &mut reader {
                let record = record.map_err(|cause| failed(at, records, cause))?;
                records += 1;
                if !each(record) {
                    stop = true;
                    break;
                }
            }
            stop
        } else {
            // Uncompressed: one record at a time, so that each record's end is a boundary.
            match WarcReader::new(&mut input, max_block).next() {
                None => continue,
                Some(record) => {
                    let record = record.map_err(|cause| failed(at, records, cause))?;
                    records += 1;
                    !each(record)
                }
            }
        };
        if stop {
            return Ok(SegmentRead {
                next: Some(start + input.consumed),
                records,
            });
        }
    }
}

/// Reads the archive at `location` (read with object_store `options`) and calls `each` with its
/// candidates in chunks of at most `chunk`; returns how many there were. A framing error ends the
/// archive with an error naming the byte where the damaged record starts; the candidates before it
/// have been handed over.
pub async fn read_archive<F, Fut>(
    location: &str,
    options: &std::collections::BTreeMap<String, String>,
    agent: Option<String>,
    chunk: usize,
    each: F,
) -> Result<u64, SourceError>
where
    F: FnMut(Vec<Candidate>) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let location = location.to_string();
    let input = open_input(&location, options).await?;
    let read = move |sink: &mut crate::sources::Sink| {
        let candidates = ArchiveCandidates::new(agent);
        let mut open = true;
        read_segment(input, 0, u64::MAX, MAX_RECORD_BYTES, |record| {
            for candidate in candidates.of_record(&record) {
                open = open && sink.push(candidate);
            }
            open
        })
        .map_err(|e| SourceError::Row {
            location: location.clone(),
            row: e.records,
            reason: e.to_string(),
        })?;
        Ok(())
    };
    drive(chunk, read, each).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(status: &str, headers: &str, body: &str) -> WarcRecord {
        WarcRecord {
            version: "WARC/1.0".into(),
            headers: vec![
                ("WARC-Type".into(), "response".into()),
                (
                    "WARC-Target-URI".into(),
                    "<https://example.com/a/page.html>".into(),
                ),
            ],
            block: format!("HTTP/1.1 {status}\r\n{headers}\r\n{body}").into_bytes(),
            truncated: false,
        }
    }

    const PAGE: &str = r#"<html><body><img src="../cat.jpg" alt="a cat on a mat"></body></html>"#;

    /// `count` records, each a metadata record naming its index, each its own gzip member (or all
    /// plain).
    fn archive(count: usize, gzip: bool) -> Vec<u8> {
        let mut file = Vec::new();
        for i in 0..count {
            let block = format!("record {i} {}", "x".repeat(i * 37 % 300));
            let text = format!(
                "WARC/1.0\r\nWARC-Type: metadata\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
                block.len()
            );
            if gzip {
                let mut encoder =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                io::Write::write_all(&mut encoder, text.as_bytes()).unwrap();
                file.extend(encoder.finish().unwrap());
            } else {
                file.extend(text.as_bytes());
            }
        }
        file
    }

    fn blocks_of(file: &[u8], start: u64, budget: u64) -> (Vec<String>, SegmentRead) {
        let mut blocks = Vec::new();
        let read = read_segment(&file[start as usize..], start, budget, 1 << 20, |record| {
            blocks.push(String::from_utf8(record.block).unwrap());
            true
        })
        .unwrap();
        (blocks, read)
    }

    #[test]
    fn segments_end_on_member_or_record_boundaries_and_resume_there() {
        for gzip in [true, false] {
            let file = archive(60, gzip);
            let (whole, end) = blocks_of(&file, 0, u64::MAX);
            assert_eq!(whole.len(), 60);
            assert_eq!(
                end,
                SegmentRead {
                    next: None,
                    records: 60
                }
            );
            // Read in segments of about 500 bytes, each from where the last said to start.
            let (mut joined, mut start, mut segments) = (Vec::new(), 0u64, 0);
            loop {
                let (blocks, read) = blocks_of(&file, start, 500);
                assert!(!blocks.is_empty(), "a segment reads at least one member");
                joined.extend(blocks);
                segments += 1;
                match read.next {
                    Some(next) => {
                        assert!(next > start && next - start >= 500, "gzip {gzip}: {next}");
                        start = next;
                    }
                    None => break,
                }
            }
            assert_eq!(joined, whole, "gzip {gzip}");
            assert!(segments > 3, "gzip {gzip}: {segments} segments");
        }
    }

    #[test]
    fn damage_names_the_last_good_boundary_and_keeps_what_came_before() {
        let file = archive(10, true);
        let (_, first) = blocks_of(&file, 0, 1);
        let member = first.next.unwrap() as usize;
        // The fourth member's deflate data overwritten: the first three are read, the error says
        // where the fourth starts.
        let (_, third) = blocks_of(&file, 0, (3 * member) as u64);
        let fourth = third.next.unwrap() as usize;
        let mut damaged = file.clone();
        for byte in &mut damaged[fourth + 12..fourth + 30] {
            *byte = 0xff;
        }
        let mut blocks = 0;
        let error = read_segment(&damaged[..], 0, u64::MAX, 1 << 20, |_| {
            blocks += 1;
            true
        })
        .unwrap_err();
        assert_eq!(blocks, 3);
        assert_eq!(error.offset, fourth as u64);
        assert_eq!(error.records, 3);
        assert!(!error.is_transient());
        // Cut inside a member: the same.
        let error = read_segment(&file[..fourth + 20], 0, u64::MAX, 1 << 20, |_| true).unwrap_err();
        assert_eq!(error.offset, fourth as u64);
    }

    #[test]
    fn html_responses_give_the_crawl_stage_candidates() {
        let archive = ArchiveCandidates::new(Some("altflow".into()));
        let found = archive.of_record(&response("200 OK", "Content-Type: text/html\r\n", PAGE));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].image_url, "https://example.com/cat.jpg");
        assert_eq!(found[0].alt, "a cat on a mat");
        assert_eq!(found[0].page_url, "https://example.com/a/page.html");
        assert_eq!(found[0].pages_seen, 1);
        // The same image on a second page counts as repeated.
        let again = archive.of_record(&response("200 OK", "Content-Type: text/html\r\n", PAGE));
        assert_eq!(again[0].pages_seen, 2);
        // Not 200, or not HTML: nothing.
        assert!(
            archive
                .of_record(&response(
                    "404 Not Found",
                    "Content-Type: text/html\r\n",
                    PAGE
                ))
                .is_empty()
        );
        assert!(
            archive
                .of_record(&response("200 OK", "Content-Type: image/jpeg\r\n", PAGE))
                .is_empty()
        );
    }

    #[test]
    fn opt_outs_are_honoured_unless_robots_rules_are_off() {
        let header = response(
            "200 OK",
            "Content-Type: text/html\r\nX-Robots-Tag: noimageai\r\n",
            PAGE,
        );
        let meta = response(
            "200 OK",
            "Content-Type: text/html\r\n",
            &PAGE.replace(
                "<body>",
                r#"<head><meta name="robots" content="altflow: noai"></head><body>"#,
            ),
        );
        let honouring = ArchiveCandidates::new(Some("altflow".into()));
        assert!(honouring.of_record(&header).is_empty());
        assert!(honouring.of_record(&meta).is_empty());
        let other_agent = ArchiveCandidates::new(Some("otherbot".into()));
        assert_eq!(other_agent.of_record(&meta).len(), 1);
        let ignoring = ArchiveCandidates::new(None);
        assert_eq!(ignoring.of_record(&header).len(), 1);
    }

    #[test]
    fn wat_metadata_gives_its_image_links() {
        let json = serde_json::json!({"Envelope": {
            "WARC-Header-Metadata": {"WARC-Target-URI": "https://example.com/a/page.html"},
            "Payload-Metadata": {"HTTP-Response-Metadata": {"HTML-Metadata": {
                "Head": {"Base": " https://cdn.example.net/media/ "},
                "Links": [
                {"path": "IMG@/src", "url": "/dog.png", "alt": " a  dog "},
                {"path": "IMG@/src", "url": "cat.png", "alt": "a cat"},
                {"path": "IMG@/src", "url": "javascript:x()", "alt": "a script"},
                {"path": "A@/href", "url": "/other.html", "text": "other"},
            ]}}}
        }});
        let record = WarcRecord {
            version: "WARC/1.0".into(),
            headers: vec![
                ("WARC-Type".into(), "metadata".into()),
                (
                    "WARC-Target-URI".into(),
                    "https://example.com/a/page.html".into(),
                ),
            ],
            block: json.to_string().into_bytes(),
            truncated: false,
        };
        let found = ArchiveCandidates::new(None).of_record(&record);
        // Relative links resolve against the page's `<base href>`, itself resolved on the page.
        let urls: Vec<_> = found.iter().map(|c| c.image_url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://cdn.example.net/dog.png",
                "https://cdn.example.net/media/cat.png"
            ]
        );
        assert_eq!(found[0].alt, "a dog");
        assert_eq!(found[0].page_url, "https://example.com/a/page.html");
        assert_eq!(
            found[0].id,
            sample_id("https://cdn.example.net/dog.png", "a dog")
        );
    }
}
