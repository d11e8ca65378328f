//! Web archives as a source: WARC files (HTML responses, extracted like crawled pages) and WAT files
//! (Common Crawl's metadata records listing each page's `<img>` links with alt text), plain or
//! gzip-compressed, from local paths or object-store URLs, streamed record by record.

use std::hash::BuildHasher;

use crate::bounded::BoundedCounter;
use crate::config::ArchiveConfig;
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
pub struct ArchiveCandidates {
    agent: Option<String>,
    site_images: BoundedCounter<u64>,
    hasher: std::collections::hash_map::RandomState,
}

impl ArchiveCandidates {
    /// A converter honouring `noai`/`noimageai` opt-outs addressed to everyone or to `agent` (the
    /// product token of our User-Agent); `None` ignores opt-outs (robots rules switched off).
    pub fn new(agent: Option<String>) -> Self {
        Self {
            agent,
            site_images: BoundedCounter::new(SITE_IMAGES_KEPT),
            hasher: Default::default(),
        }
    }

    /// The candidates of one record: successful HTML `response` records through the same extraction
    /// as crawled pages, `metadata` records (WAT) from their link list; other records give none.
    pub fn of_record(&mut self, record: &WarcRecord) -> Vec<Candidate> {
        let Ok(page_url) = url::Url::parse(record.target_uri()) else {
            return Vec::new();
        };
        match record.kind().as_str() {
            "response" => {
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
                page.images
                    .iter()
                    .map(|image| {
                        let key = self.hasher.hash_one(image.url.as_str());
                        let pages_seen = self.site_images.increment(key);
                        html::candidate(image, &page, &page_url, pages_seen)
                    })
                    .collect()
            }
            "metadata" => crate::web::warc::wat_images(&record.block)
                .into_iter()
                .filter_map(|image| {
                    let page =
                        url::Url::parse(&image.page_url).unwrap_or_else(|_| page_url.clone());
                    let image_url = page.join(&image.image_url).ok()?;
                    if !matches!(image_url.scheme(), "http" | "https") {
                        return None;
                    }
                    let alt = image.alt;
                    Some(Candidate {
                        id: sample_id(image_url.as_str(), &alt),
                        image_url: image_url.into(),
                        alt,
                        page_url: page.into(),
                        ..Default::default()
                    })
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    fn opted_out(&self, directives: &str) -> bool {
        self.agent
            .as_deref()
            .is_some_and(|agent| forbids_ai(directives, agent))
    }
}

/// Reads the archive `config` names and calls `each` with its candidates in chunks of at most
/// `chunk`; returns how many there were. A framing error ends the archive with an error naming the
/// record; the candidates before it have been handed over.
pub async fn read_archive<F, Fut>(
    config: &ArchiveConfig,
    agent: Option<String>,
    chunk: usize,
    each: F,
) -> Result<u64, SourceError>
where
    F: FnMut(Vec<Candidate>) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let location = config.path.clone();
    let input = open_input(&location, &config.store_options).await?;
    let read = move |sink: &mut crate::sources::Sink| {
        let reader: WarcReader<_> =
            crate::web::warc::reader(input, MAX_RECORD_BYTES).map_err(|source| {
                SourceError::Io {
                    location: location.clone(),
                    source,
                }
            })?;
        let mut candidates = ArchiveCandidates::new(agent);
        for (index, record) in reader.enumerate() {
            let record = record.map_err(|e| SourceError::Row {
                location: location.clone(),
                row: index as u64,
                reason: e.to_string(),
            })?;
            for candidate in candidates.of_record(&record) {
                if !sink.push(candidate) {
                    return Ok(());
                }
            }
        }
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

    #[test]
    fn html_responses_give_the_crawl_stage_candidates() {
        let mut archive = ArchiveCandidates::new(Some("altflow".into()));
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
        let mut honouring = ArchiveCandidates::new(Some("altflow".into()));
        assert!(honouring.of_record(&header).is_empty());
        assert!(honouring.of_record(&meta).is_empty());
        let mut other_agent = ArchiveCandidates::new(Some("otherbot".into()));
        assert_eq!(other_agent.of_record(&meta).len(), 1);
        let mut ignoring = ArchiveCandidates::new(None);
        assert_eq!(ignoring.of_record(&header).len(), 1);
    }

    #[test]
    fn wat_metadata_gives_its_image_links() {
        let json = serde_json::json!({"Envelope": {
            "WARC-Header-Metadata": {"WARC-Target-URI": "https://example.com/a/page.html"},
            "Payload-Metadata": {"HTTP-Response-Metadata": {"HTML-Metadata": {"Links": [
                {"path": "IMG@/src", "url": "/dog.png", "alt": " a  dog "},
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
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].image_url, "https://example.com/dog.png");
        assert_eq!(found[0].alt, "a dog");
        assert_eq!(
            found[0].id,
            sample_id("https://example.com/dog.png", "a dog")
        );
    }
}
