//! Streaming WARC reading (ISO 28500): records of plain or gzip-member files, the HTTP responses inside
//! them, and the image links of Common Crawl WAT metadata.
//!
//! A file is read record by record through a buffered reader (and a multi-member gzip decoder when
//! the file starts with the gzip magic), so a 1 GB archive never sits in memory: each record's block is
//! kept up to a limit and the rest is skipped.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use flate2::read::{GzDecoder, MultiGzDecoder, ZlibDecoder};

/// Bytes skipped at most while looking for the next record after a framing error.
const RESYNC_LIMIT: usize = 1 << 20;

/// Errors reading a WARC file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WarcError {
    /// Reading failed (including corrupt gzip data).
    #[error("reading record {record}: {source}")]
    Io {
        /// Index of the record being read, from 0.
        record: u64,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The bytes are not a WARC record where one should start.
    #[error("record {record}: {reason}")]
    Malformed {
        /// Index of the record, from 0.
        record: u64,
        /// What is wrong.
        reason: String,
    },
}

/// One WARC record, with its block cut at the reader's limit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarcRecord {
    /// The WARC version line, e.g. `WARC/1.0`.
    pub version: String,
    /// Named fields, in order (names as written).
    pub headers: Vec<(String, String)>,
    /// The block, at most the reader's limit.
    pub block: Vec<u8>,
    /// Whether the block was longer than the limit and was cut.
    pub truncated: bool,
}

impl WarcRecord {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// `WARC-Type`, lower-cased (`response`, `request`, `revisit`, `metadata`, …).
    pub fn kind(&self) -> String {
        self.header("WARC-Type").unwrap_or("").to_ascii_lowercase()
    }

    /// `WARC-Target-URI`, without the angle brackets some writers add.
    pub fn target_uri(&self) -> &str {
        self.header("WARC-Target-URI")
            .unwrap_or("")
            .trim_start_matches('<')
            .trim_end_matches('>')
    }
}

/// Reads WARC records one at a time.
pub struct WarcReader<R> {
    input: R,
    max_block: usize,
    index: u64,
    done: bool,
}

/// Opens a local WARC file, plain or gzip-compressed (detected from its first bytes).
pub fn open(path: &Path, max_block: usize) -> io::Result<WarcReader<Box<dyn BufRead + Send>>> {
    reader(File::open(path)?, max_block)
}

/// Reads WARC records from any byte stream, plain or gzip-compressed (one gzip member per record, as
/// Common Crawl writes them, or one for the whole file), detected from the first bytes.
pub fn reader(
    input: impl Read + Send + 'static,
    max_block: usize,
) -> io::Result<WarcReader<Box<dyn BufRead + Send>>> {
    let mut input = BufReader::with_capacity(1 << 16, input);
    let gzip = input.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    let input: Box<dyn BufRead + Send> = if gzip {
        Box::new(BufReader::with_capacity(
            1 << 16,
            MultiGzDecoder::new(input),
        ))
    } else {
        Box::new(input)
    };
    Ok(WarcReader::new(input, max_block))
}

impl<R: BufRead> WarcReader<R> {
    /// A reader keeping at most `max_block` bytes of each record's block.
    pub fn new(input: R, max_block: usize) -> Self {
        Self {
            input,
            max_block,
            index: 0,
            done: false,
        }
    }

    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<usize, WarcError> {
        line.clear();
        // Header lines are short; a "line" longer than this is not a WARC header.
        let n = (&mut self.input)
            .take(64 * 1024)
            .read_until(b'\n', line)
            .map_err(|source| WarcError::Io {
                record: self.index,
                source,
            })?;
        Ok(n)
    }

    fn next_record(&mut self) -> Result<Option<WarcRecord>, WarcError> {
        let mut line = Vec::new();
        // Skip the blank lines between records.
        loop {
            if self.read_line(&mut line)? == 0 {
                return Ok(None);
            }
            if !line.iter().all(|b| b.is_ascii_whitespace()) {
                break;
            }
        }
        let record = self.index;
        let malformed = move |reason: String| WarcError::Malformed { record, reason };
        // A wrong Content-Length in the previous record leaves us inside its block: look for the next
        // version line (as warcio does), but not forever.
        let mut skipped = 0usize;
        while !line.starts_with(b"WARC/") {
            skipped += line.len();
            if skipped > RESYNC_LIMIT || self.read_line(&mut line)? == 0 {
                return Err(malformed(format!(
                    "expected a WARC version line; none in the next {skipped} bytes"
                )));
            }
        }
        if skipped > 0 {
            tracing::warn!(
                record,
                skipped,
                "skipped bytes before a WARC record (bad Content-Length?)"
            );
        }
        let version = String::from_utf8_lossy(&line).trim().to_string();
        let mut headers: Vec<(String, String)> = Vec::new();
        loop {
            if self.read_line(&mut line)? == 0 {
                return Err(malformed("file ends inside the record header".into()));
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\r', '\n']);
            if text.is_empty() {
                break;
            }
            if text.starts_with([' ', '\t']) {
                // A folded continuation of the previous field.
                if let Some((_, value)) = headers.last_mut() {
                    value.push(' ');
                    value.push_str(text.trim());
                }
                continue;
            }
            match text.split_once(':') {
                Some((name, value)) => headers.push((name.trim().into(), value.trim().into())),
                None => return Err(malformed(format!("header line without a colon: {text:?}"))),
            }
        }
        let length: u64 = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("Content-Length"))
            .and_then(|(_, v)| v.parse().ok())
            .ok_or_else(|| malformed("missing or invalid Content-Length".into()))?;
        let keep = length.min(self.max_block as u64);
        let mut block = Vec::with_capacity(keep as usize);
        let io = |record, source| WarcError::Io { record, source };
        (&mut self.input)
            .take(keep)
            .read_to_end(&mut block)
            .map_err(|e| io(self.index, e))?;
        if (block.len() as u64) < keep {
            return Err(malformed("file ends inside the record block".into()));
        }
        // Skip what is beyond the limit without keeping it.
        io::copy(&mut (&mut self.input).take(length - keep), &mut io::sink())
            .map_err(|e| io(self.index, e))?;
        self.index += 1;
        Ok(Some(WarcRecord {
            version,
            headers,
            block,
            truncated: length > keep,
        }))
    }
}

impl<R: BufRead> Iterator for WarcReader<R> {
    type Item = Result<WarcRecord, WarcError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_record() {
            Ok(Some(record)) => Some(Ok(record)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(error) => {
                // After a framing error the position in the stream is unknown: stop.
                self.done = true;
                Some(Err(error))
            }
        }
    }
}

/// An HTTP response as stored in a `response` record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpResponse {
    /// Status code.
    pub status: u16,
    /// Header fields, in order.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked and decompressed, at most the limit given.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Parses the HTTP response in a `response` record's block; None when it is not one. The body is
/// de-chunked and gzip/deflate-decoded, and kept to at most `max_body` bytes.
pub fn parse_http_response(block: &[u8], max_body: usize) -> Option<HttpResponse> {
    let (head_end, body_start) = find_head_end(block)?;
    let head = String::from_utf8_lossy(&block[..head_end]);
    let mut lines = head.lines();
    let status_line = lines.next()?;
    let mut parts = status_line.split_whitespace();
    // Real captures have odd protocol tokens (`HTTPX/1.1`), so, as warcio does, only the status
    // code is checked; a request line (`GET / HTTP/1.1`) has none.
    parts.next()?;
    let status: u16 = parts
        .next()?
        .parse()
        .ok()
        .filter(|s| (100..600).contains(s))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut response = HttpResponse {
        status,
        headers,
        body: Vec::new(),
    };
    let raw = &block[body_start..];
    // Crawlers often store the body already de-chunked but keep the header: dechunk only what
    // really starts with a chunk size.
    let dechunked = response
        .header("Transfer-Encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
        .then(|| dechunk(raw))
        .flatten();
    let payload: &[u8] = dechunked.as_deref().unwrap_or(raw);
    let limit = max_body as u64;
    let encoding = response
        .header("Content-Encoding")
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut body = Vec::new();
    let decoded = match encoding.as_str() {
        "gzip" | "x-gzip" => GzDecoder::new(payload).take(limit).read_to_end(&mut body),
        "deflate" => ZlibDecoder::new(payload).take(limit).read_to_end(&mut body),
        _ => payload.take(limit).read_to_end(&mut body),
    };
    // A body that fails to decode part way keeps what was decoded.
    let _ = decoded;
    response.body = body;
    Some(response)
}

/// Where the header block ends and the body starts (CRLF CRLF, or bare LF LF).
fn find_head_end(block: &[u8]) -> Option<(usize, usize)> {
    if let Some(i) = block.windows(4).position(|w| w == b"\r\n\r\n") {
        return Some((i, i + 4));
    }
    block
        .windows(2)
        .position(|w| w == b"\n\n")
        .map(|i| (i, i + 2))
}

/// Removes HTTP/1.1 chunked framing; stops at the last chunk or at the first malformed size. None
/// when the data does not start with a chunk size at all.
fn dechunk(mut raw: &[u8]) -> Option<Vec<u8>> {
    let first_line = raw.windows(2).position(|w| w == b"\r\n")?;
    let first = String::from_utf8_lossy(&raw[..first_line]);
    usize::from_str_radix(first.split(';').next().unwrap_or("").trim(), 16).ok()?;
    let mut out = Vec::new();
    while let Some(line_end) = raw.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&raw[..line_end]);
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let Ok(size) = usize::from_str_radix(size_text, 16) else {
            break;
        };
        raw = &raw[line_end + 2..];
        if size == 0 || size > raw.len() {
            out.extend_from_slice(&raw[..size.min(raw.len())]);
            break;
        }
        out.extend_from_slice(&raw[..size]);
        raw = raw.get(size + 2..).unwrap_or(&[]);
    }
    Some(out)
}

/// A page as a WAT `metadata` record describes it: its URL, its `<base href>`, its image links.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WatPage {
    /// The page's URL (`WARC-Target-URI`).
    pub page_url: String,
    /// The page's `<base href>` as written (`HTML-Metadata / Head / Base`): relative image URLs
    /// resolve against it, itself resolved against the page's URL.
    pub base: Option<String>,
    /// The page's `<img>` links that have an alt text.
    pub images: Vec<WatImage>,
}

/// An image link from WAT metadata: image URL (as written) and alt text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatImage {
    /// The image URL as written in the page.
    pub image_url: String,
    /// The alt text, whitespace collapsed.
    pub alt: String,
}

/// The page and `<img>` links with alt text of a WAT `metadata` record's JSON (Common Crawl
/// layout: `Envelope / Payload-Metadata / HTTP-Response-Metadata / HTML-Metadata / Links`, entries
/// with `path` `IMG@/src`); `None` for a record without links (a request's or a metadata record's,
/// two of every three in a WAT file) or that is not JSON.
pub fn wat_page(json: &[u8]) -> Option<WatPage> {
    // The typed parse below needs the exact key; without it the record is skipped unparsed.
    memchr::memmem::find(json, b"\"Links\"")?;
    // Typed and borrowing: the parser skips the rest of the record (headers, scripts, metas) without
    // building it, several times faster than a `Value`. A record whose fields have unexpected types
    // goes through the tolerant path, which keeps what it can.
    let page = match serde_json::from_slice::<wat::Record<'_>>(json) {
        Ok(wat) => {
            let envelope = wat.envelope;
            let html = envelope.payload.http.html;
            let links = html
                .links
                .iter()
                .map(|l| (l.path.as_deref(), l.url.as_deref(), l.alt.as_deref()));
            WatPage {
                page_url: envelope.header.uri.unwrap_or_default().into_owned(),
                base: html.head.base.map(|b| b.into_owned()),
                images: images_of(links),
            }
        }
        Err(_) => wat_page_tolerant(json)?,
    };
    (!page.images.is_empty()).then_some(page)
}

/// The images among a page's links, given as (`path`, `url`, `alt`): `IMG@/src` links with a URL
/// and a non-empty alt text.
fn images_of<'a>(
    links: impl Iterator<Item = (Option<&'a str>, Option<&'a str>, Option<&'a str>)>,
) -> Vec<WatImage> {
    links
        .filter(|(path, _, _)| path.is_some_and(|p| p.eq_ignore_ascii_case("IMG@/src")))
        .filter_map(|(_, url, alt)| {
            let (url, alt) = (url?, crate::web::html::collapse(alt?));
            (!alt.is_empty()).then(|| WatImage {
                image_url: url.to_string(),
                alt,
            })
        })
        .collect()
}

/// The parts of a WAT record [`wat_page`] reads, borrowed from the JSON where no escape forces a
/// copy.
mod wat {
    use std::borrow::Cow;

    use serde::Deserialize;

    #[derive(Deserialize)]
    pub(super) struct Record<'a> {
        #[serde(rename = "Envelope", borrow)]
        pub envelope: Envelope<'a>,
    }

    #[derive(Deserialize, Default)]
    pub(super) struct Envelope<'a> {
        #[serde(rename = "WARC-Header-Metadata", borrow, default)]
        pub header: Header<'a>,
        #[serde(rename = "Payload-Metadata", borrow, default)]
        pub payload: Payload<'a>,
    }

    #[derive(Deserialize, Default)]
    pub(super) struct Header<'a> {
        #[serde(rename = "WARC-Target-URI", borrow, default)]
        pub uri: Option<Cow<'a, str>>,
    }

    #[derive(Deserialize, Default)]
    pub(super) struct Payload<'a> {
        #[serde(rename = "HTTP-Response-Metadata", borrow, default)]
        pub http: Http<'a>,
    }

    #[derive(Deserialize, Default)]
    pub(super) struct Http<'a> {
        #[serde(rename = "HTML-Metadata", borrow, default)]
        pub html: Html<'a>,
    }

    #[derive(Deserialize, Default)]
    pub(super) struct Html<'a> {
        #[serde(rename = "Head", borrow, default)]
        pub head: Head<'a>,
        #[serde(rename = "Links", borrow, default)]
        pub links: Vec<Link<'a>>,
    }

    #[derive(Deserialize, Default)]
    pub(super) struct Head<'a> {
        #[serde(rename = "Base", borrow, default)]
        pub base: Option<Cow<'a, str>>,
    }

    #[derive(Deserialize)]
    pub(super) struct Link<'a> {
        #[serde(borrow, default)]
        pub path: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        pub url: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        pub alt: Option<Cow<'a, str>>,
    }
}

/// [`wat_page`] over a JSON tree: slower, and keeps the well-formed links of a record whose
/// other parts have unexpected types.
fn wat_page_tolerant(json: &[u8]) -> Option<WatPage> {
    let value = serde_json::from_slice::<serde_json::Value>(json).ok()?;
    let envelope = &value["Envelope"];
    let html = &envelope["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"];
    let links = html["Links"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let links = links
        .iter()
        .map(|l| (l["path"].as_str(), l["url"].as_str(), l["alt"].as_str()));
    Some(WatPage {
        page_url: envelope["WARC-Header-Metadata"]["WARC-Target-URI"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        base: html["Head"]["Base"].as_str().map(str::to_string),
        images: images_of(links),
    })
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn record(kind: &str, block: &[u8]) -> Vec<u8> {
        let mut out = format!(
            "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: <http://example.com/>\r\nContent-Length: {}\r\n\r\n",
            block.len()
        )
        .into_bytes();
        out.extend_from_slice(block);
        out.extend_from_slice(b"\r\n\r\n");
        out
    }

    #[test]
    fn reads_records_plain_and_gzip_members() {
        let http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<img src=a.jpg alt='a b c'>";
        let plain = [
            record("warcinfo", b"software: test"),
            record("response", http),
        ]
        .concat();
        let records: Vec<WarcRecord> = WarcReader::new(&plain[..], 1 << 20)
            .map(Result::unwrap)
            .collect();
        assert_eq!(records.len(), 2);
        assert_eq!(records[1].kind(), "response");
        assert_eq!(records[1].target_uri(), "http://example.com/");
        let response = parse_http_response(&records[1].block, 1 << 20).unwrap();
        assert_eq!(response.status, 200);
        assert!(response.body.starts_with(b"<img"));

        // The same records, each its own gzip member, as Common Crawl writes them.
        let mut gz = Vec::new();
        for r in [record("warcinfo", b"x"), record("response", http)] {
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            encoder.write_all(&r).unwrap();
            gz.extend(encoder.finish().unwrap());
        }
        let reader = BufReader::new(MultiGzDecoder::new(&gz[..]));
        assert_eq!(WarcReader::new(reader, 1 << 20).count(), 2);
    }

    #[test]
    fn long_blocks_are_cut_and_skipped() {
        let data = [record("resource", &[7u8; 10_000]), record("metadata", b"m")].concat();
        let records: Vec<WarcRecord> = WarcReader::new(&data[..], 100)
            .map(Result::unwrap)
            .collect();
        assert_eq!(records[0].block.len(), 100);
        assert!(records[0].truncated);
        assert_eq!(records[1].block, b"m");
    }

    #[test]
    fn malformed_input_is_an_error_naming_the_record() {
        let data = [record("warcinfo", b"x"), b"GARBAGE\r\n".to_vec()].concat();
        let results: Vec<_> = WarcReader::new(&data[..], 100).collect();
        assert_eq!(results.len(), 2);
        let error = results[1].as_ref().unwrap_err().to_string();
        assert!(error.contains("record 1"), "{error}");
        // Stray bytes between records (a Content-Length one short) are skipped to the next record.
        let resync = [
            record("warcinfo", b"x"),
            b"m\r\n".to_vec(),
            record("response", b"y"),
        ]
        .concat();
        let kinds: Vec<String> = WarcReader::new(&resync[..], 100)
            .map(|r| r.unwrap().kind())
            .collect();
        assert_eq!(kinds, vec!["warcinfo", "response"]);
        let truncated = &record("response", b"0123456789")[..60];
        assert!(WarcReader::new(truncated, 100).any(|r| r.is_err()));
    }

    #[test]
    fn chunked_and_gzip_bodies_are_decoded() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"<html>hello</html>").unwrap();
        let gz = gz.finish().unwrap();
        let mut chunked = format!("{:x}\r\n", 5).into_bytes();
        chunked.extend_from_slice(&gz[..5]);
        chunked.extend_from_slice(format!("\r\n{:x}\r\n", gz.len() - 5).as_bytes());
        chunked.extend_from_slice(&gz[5..]);
        chunked.extend_from_slice(b"\r\n0\r\n\r\n");
        let mut block =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n"
                .to_vec();
        block.extend_from_slice(&chunked);
        let response = parse_http_response(&block, 1 << 20).unwrap();
        assert_eq!(response.body, b"<html>hello</html>");
        assert!(parse_http_response(b"GET / HTTP/1.1\r\n\r\n", 10).is_none());
        // Declared chunked but stored de-chunked.
        let stored = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n<html>body</html>";
        assert_eq!(
            parse_http_response(stored, 100).unwrap().body,
            b"<html>body</html>"
        );
    }

    #[test]
    fn wat_image_links() {
        let json = br#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Target-URI":"http://e.com/p"},
            "Payload-Metadata":{"HTTP-Response-Metadata":{"HTML-Metadata":{
              "Head":{"Title":"t","Base":"/docs/"},"Links":[
              {"path":"IMG@/src","url":"/a.jpg","alt":" a  cat "},
              {"path":"IMG@/src","url":"/b.jpg"},
              {"path":"A@/href","url":"/x.html","text":"x"}]}}}}}"#;
        let image = |url: &str, alt: &str| WatImage {
            image_url: url.into(),
            alt: alt.into(),
        };
        assert_eq!(
            wat_page(json),
            Some(WatPage {
                page_url: "http://e.com/p".into(),
                base: Some("/docs/".into()),
                images: vec![image("/a.jpg", "a cat")],
            })
        );
        assert_eq!(wat_page(b"not json"), None);
        // A request's record: no links, no page.
        assert_eq!(wat_page(br#"{"Envelope":{"Payload-Metadata":{}}}"#), None);
        // Escapes are decoded; a link of an unexpected shape costs only itself.
        let odd = br#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Target-URI":"http://e.com/p"},
            "Payload-Metadata":{"HTTP-Response-Metadata":{"HTML-Metadata":{"Links":[
              {"path":"IMG@/src","url":"/a.jpg","alt":"a \"big\" cat \u00e9"},
              {"path":"IMG@/src","url":"/b.jpg","alt":42}]}}}}}"#;
        assert_eq!(
            wat_page(odd),
            Some(WatPage {
                page_url: "http://e.com/p".into(),
                base: None,
                images: vec![image("/a.jpg", "a \"big\" cat é")],
            })
        );
    }
}
