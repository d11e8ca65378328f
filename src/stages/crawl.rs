//! The crawl stage: visits pages from the frontier, emits image candidates and new links.
//!
//! A page is fetched through [`Web`] (guarded client, robots, the host's politeness queue) and
//! extracted on its own task; the stage takes its `<img>` elements with alt text and follows links in
//! scope up to `crawl.max_depth`. Pages of many hosts are in flight at once ([`Pipelined`]).
//! Frontier messages are keyed by host so that one member owns a host.

use std::sync::Arc;

use url::Url;

use crate::bounded::{BoundedCounter, SeenFilter};
use crate::config::{CrawlConfig, RetryConfig};
use crate::reason::Reason;
use crate::record::CrawlRequest;
use crate::stage::{Emitter, Failed, Input, Pipelined, StageError, Work};
use crate::stages::{host_key, retry_or_reject};
use crate::web::Web;
use crate::web::html;
use crate::web::http::FetchError;

/// Image URLs whose page count is kept (per stage member), to spot site-wide decoration.
const SITE_IMAGES_KEPT: usize = 200_000;

/// Whether a link found on `page` may be followed: to one of `allowed_domains` (or a subdomain), or,
/// when none are configured, to the page's own host.
pub fn in_scope(link: &Url, page: &Url, allowed_domains: &[String]) -> bool {
    let Some(host) = link.host_str() else {
        return false;
    };
    if allowed_domains.is_empty() {
        return Some(host) == page.host_str();
    }
    let host = host.to_ascii_lowercase();
    allowed_domains.iter().any(|domain| {
        let domain = domain.trim_start_matches('.').to_ascii_lowercase();
        host == domain || host.ends_with(&format!(".{domain}"))
    })
}

/// The crawl stage.
pub struct CrawlStage {
    web: Arc<Web>,
    config: CrawlConfig,
    candidates: Arc<str>,
    frontier: Arc<str>,
    seen: SeenFilter,
    /// Pages crawled per host.
    pages_per_host: BoundedCounter<String>,
    retry: RetryConfig,
    /// Pages each image URL was seen on, to spot site-wide decoration (logos, badges).
    site_images: BoundedCounter<u64>,
    /// Links already sent to the frontier.
    emitted: SeenFilter,
    hasher: std::collections::hash_map::RandomState,
}

impl CrawlStage {
    /// A crawler producing candidates to `candidates` and new links to `frontier`.
    pub fn new(
        web: Arc<Web>,
        config: CrawlConfig,
        retry: RetryConfig,
        candidates: Arc<str>,
        frontier: Arc<str>,
    ) -> Self {
        let seen = SeenFilter::new(config.seen_capacity, config.seen_false_positive);
        let pages_per_host = BoundedCounter::new(100_000);
        // Keyed by a hash of the image URL: 8 bytes a key instead of the URL twice.
        let site_images = BoundedCounter::new(SITE_IMAGES_KEPT);
        let emitted = SeenFilter::new(config.seen_capacity, config.seen_false_positive);
        Self {
            site_images,
            emitted,
            hasher: Default::default(),
            retry,
            web,
            config,
            candidates,
            frontier,
            seen,
            pages_per_host,
        }
    }
}

/// A page request whose download (and extraction) is over.
pub struct Visited {
    topic: Arc<str>,
    request: CrawlRequest,
    result: Result<Visit, FetchError>,
}

/// What a downloaded page gave.
enum Visit {
    /// An HTML page, extracted.
    Page { url: Url, page: html::Page },
    /// Something else (a PDF, an image): its URL and Content-Type.
    NotHtml { url: Url, content_type: String },
}

/// Downloads a page politely and extracts it (on the task, off the stage's state).
async fn visit(web: Arc<Web>, max_bytes: usize, topic: Arc<str>, request: CrawlRequest) -> Visited {
    let result = web.get(&request.url, max_bytes).await.map(|fetched| {
        // A link to a PDF or an image is not a page; a missing Content-Type gets the benefit of
        // the doubt.
        match fetched.content_type {
            Some(kind) if !kind.to_ascii_lowercase().contains("html") => Visit::NotHtml {
                url: fetched.final_url,
                content_type: kind,
            },
            _ => Visit::Page {
                page: html::extract(&fetched.body, &fetched.final_url),
                url: fetched.final_url,
            },
        }
    });
    Visited {
        topic,
        request,
        result,
    }
}

impl Pipelined for CrawlStage {
    type Input = CrawlRequest;
    type Done = Visited;

    fn admit(&mut self, input: Input<CrawlRequest>, out: &mut Emitter) -> Option<Work<Visited>> {
        // A retried request was seen on its first try: let it through.
        if !self.seen.insert(&input.record.url) && input.record.attempt == 0 {
            return None;
        }
        let host = host_key(&input.record.url);
        if input.record.attempt == 0
            && self.pages_per_host.increment(host.clone()) > self.config.max_pages_per_host
        {
            out.reject(
                Reason::OutOfScope,
                "",
                &input.record.url,
                format!(
                    "more than {} pages of {host}",
                    self.config.max_pages_per_host
                ),
            );
            return None;
        }
        let (web, max_bytes) = (self.web.clone(), self.config.max_page_bytes);
        Some(Box::pin(visit(web, max_bytes, input.topic, input.record)))
    }

    fn complete(&mut self, done: Visited, out: &mut Emitter) -> Result<(), StageError> {
        let Visited {
            topic,
            request,
            result,
        } = done;
        let (final_url, page) = match result {
            Ok(Visit::Page { url, page }) => (url, page),
            Ok(Visit::NotHtml { url, content_type }) => {
                out.reject(Reason::NotHtml, "", url.as_str(), content_type);
                return Ok(());
            }
            Err(error) => {
                let key = host_key(&request.url);
                let origin = Failed {
                    topic: &topic,
                    key: &key,
                    id: "",
                    url: &request.url,
                };
                retry_or_reject(
                    out,
                    &self.retry,
                    error,
                    origin,
                    request.attempt,
                    |attempt| CrawlRequest {
                        attempt,
                        ..request.clone()
                    },
                );
                return Ok(());
            }
        };
        // A page that opts out of AI use gives no candidates; its links may still be followed.
        let opted_out = self.web.forbids_ai(&page.robots);
        if opted_out {
            out.reject(
                Reason::NoAi,
                "",
                final_url.as_str(),
                format!("<meta name=\"robots\" content=\"{}\">", page.robots),
            );
        }
        for image in page.images.iter().filter(|_| !opted_out) {
            let key = std::hash::BuildHasher::hash_one(&self.hasher, image.url.as_str());
            let pages_seen = self.site_images.increment(key);
            let mut candidate = html::candidate(image, &page, &final_url, pages_seen);
            candidate.depth = request.depth;
            out.emit(&self.candidates, &candidate.id, &candidate);
        }
        if request.depth >= self.config.max_depth {
            return Ok(());
        }
        for link in page.links {
            if !in_scope(&link, &final_url, &self.config.allowed_domains) {
                continue;
            }
            let url = link.to_string();
            // Each link goes to the frontier once, however many pages point to it.
            if self.seen.contains(&url) || !self.emitted.insert(&url) {
                continue;
            }
            let next = CrawlRequest {
                url,
                depth: request.depth + 1,
                referrer: final_url.to_string(),
                attempt: 0,
            };
            out.emit_side(&self.frontier, &host_key(&next.url), &next);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_is_the_page_host_or_the_allowed_domains() {
        let url = |s: &str| Url::parse(s).unwrap();
        let page = url("https://news.example.com/a");
        assert!(in_scope(&url("https://news.example.com/b"), &page, &[]));
        assert!(!in_scope(&url("https://example.com/b"), &page, &[]));
        let allowed = vec!["example.com".to_string()];
        assert!(in_scope(&url("https://img.example.com/x"), &page, &allowed));
        assert!(in_scope(&url("https://example.com/x"), &page, &allowed));
        assert!(!in_scope(&url("https://badexample.com/x"), &page, &allowed));
        assert!(!in_scope(&url("https://example.org/x"), &page, &allowed));
    }
}
