//! The crawl stage: visits pages from the frontier, emits image candidates and new links.
//!
//! A page is fetched through [`Web`] (guarded client, robots, the host's politeness queue) and
//! extracted on its own task; the stage takes its `<img>` elements with alt text and follows links in
//! scope up to `crawl.max_depth`. Pages of many hosts are in flight at once ([`Pipelined`]).
//! Frontier messages are keyed by host so that one member owns a host.
//!
//! With `crawl.sitemaps`, a host's first page also asks for the host's sitemaps (its robots.txt
//! `Sitemap:` lines, else `/sitemap.xml`): they go to the frontier as requests of their own, are
//! read by the member that owns their host ([`sitemap`]), and give page requests (depth 0, like
//! seeds) and, for an index, more sitemap requests, all within the site's scope and bounded per
//! host.
//!
//! With `crawl.revisit`, each seed, sitemap and sitemap-listed page is parked on the retry topic
//! after its visit and visited again when the interval has passed, conditionally on the last
//! visit's validators. The request carries what its last visit gave ([`CrawlRequest::known`]), so
//! a revisit emits only what is new, and that memory lives on the bus with the parked request,
//! not in the member: a restarted member gets it back with the request.

use std::sync::Arc;

use url::Url;

use crate::bounded::{BoundedCounter, SeenFilter};
use crate::bus::stable_hash;
use crate::config::{CrawlConfig, RetryConfig};
use crate::reason::Reason;
use crate::record::{CrawlRequest, Resource, sample_id};
use crate::stage::{Emitter, Failed, Input, Pipelined, StageError, Work};
use crate::stages::{host_key, retry_or_reject};
use crate::web::Web;
use crate::web::http::{FetchError, Get, Validators};
use crate::web::{html, sitemap};

/// Image URLs whose page count is kept (per stage member), to spot site-wide decoration.
const SITE_IMAGES_KEPT: usize = 200_000;

/// Sitemap indexes followed below a site's own sitemaps (the protocol allows none; some sites nest).
const MAX_SITEMAP_NESTING: u32 = 2;

/// Most hashes a request carries in [`CrawlRequest::known`] (8 bytes each: 128 KiB, well under
/// a broker's message limit). What a visit gives past it counts as new again on the next visit,
/// and the member's seen filter stops most of it.
const MAX_KNOWN: usize = 16_384;

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
    /// Sitemaps read per site host, and page URLs taken from them.
    sitemaps_per_host: BoundedCounter<String>,
    sitemap_urls_per_host: BoundedCounter<String>,
    /// The latest revisit round admitted per URL (by [`stable_hash`]): a crash replays parked
    /// revisits that were already sent back and parked again, and the older copy is dropped here
    /// instead of scheduling a second series of visits.
    rounds: BoundedCounter<u64>,
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
        let rounds = BoundedCounter::new(config.seen_capacity);
        let pages_per_host = BoundedCounter::new(100_000);
        let (sitemaps_per_host, sitemap_urls_per_host) =
            (BoundedCounter::new(100_000), BoundedCounter::new(100_000));
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
            sitemaps_per_host,
            sitemap_urls_per_host,
            rounds,
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
    /// An HTML page, extracted, and the sitemaps of its site when they were asked for (`None`:
    /// not asked; empty: the site names none).
    Page {
        url: Url,
        page: html::Page,
        sitemaps: Option<Vec<String>>,
        validators: Validators,
    },
    /// Something else (a PDF, an image): its URL and Content-Type.
    NotHtml { url: Url, content_type: String },
    /// A sitemap, read.
    Sitemap {
        url: Url,
        sitemap: sitemap::Sitemap,
        validators: Validators,
    },
    /// A revisit answered 304: nothing changed since the last visit.
    Unchanged { validators: Validators },
}

/// The validators of `request`'s last visit, when it is a revisit that has some.
fn held(request: &CrawlRequest) -> Option<Validators> {
    let held = Validators {
        etag: request.etag.clone(),
        last_modified: request.last_modified.clone(),
    };
    (request.round > 0 && !held.is_empty()).then_some(held)
}

/// Downloads a page politely and extracts it (on the task, off the stage's state); with
/// `discover`, also asks for the sitemaps its site names.
async fn visit(
    web: Arc<Web>,
    max_bytes: usize,
    topic: Arc<str>,
    request: CrawlRequest,
    discover: bool,
) -> Visited {
    let held = held(&request);
    let get = Get {
        validators: held.as_ref(),
        ..Get::limited(max_bytes)
    };
    let result = web.download(&request.url, &get).await;
    let sitemaps = match (&result, discover) {
        (Ok(fetched), true) => Some(web.sitemaps(&fetched.final_url).await),
        _ => None,
    };
    let result = result.map(|fetched| {
        if fetched.not_modified {
            return Visit::Unchanged {
                validators: fetched.validators,
            };
        }
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
                sitemaps,
                validators: fetched.validators,
            },
        }
    });
    Visited {
        topic,
        request,
        result,
    }
}

/// Downloads a sitemap politely and reads it (at most `max_bytes`, and as many entries as the
/// site may still give).
async fn read_sitemap(
    web: Arc<Web>,
    max_bytes: usize,
    max_entries: usize,
    topic: Arc<str>,
    request: CrawlRequest,
) -> Visited {
    let held = held(&request);
    // A sitemap past the size limit is read up to it.
    let get = Get {
        prefix: true,
        validators: held.as_ref(),
        ..Get::limited(max_bytes)
    };
    let result = web.download(&request.url, &get).await.map(|fetched| {
        if fetched.not_modified {
            return Visit::Unchanged {
                validators: fetched.validators,
            };
        }
        // Past the URL budget an index's entries still count: stop at the budget plus one.
        let sitemap = sitemap::parse(&fetched.body, max_bytes, max_entries.saturating_add(1));
        Visit::Sitemap {
            url: fetched.final_url,
            sitemap,
            validators: fetched.validators,
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
        // A retried request was seen on its first try, a revisit on its first visit: let them
        // through.
        let first = input.record.attempt == 0 && input.record.round == 0;
        if !self.seen.insert(&input.record.url) && first {
            return None;
        }
        if input.record.attempt == 0
            && input.record.round > 0
            && !self
                .rounds
                .raise(stable_hash(input.record.url.as_bytes()), input.record.round)
        {
            tracing::debug!(url = %input.record.url, round = input.record.round, "an older copy of a revisit, dropped");
            return None;
        }
        if input.record.resource() != Resource::Page {
            return self.admit_sitemap(input, out);
        }
        let host = host_key(&input.record.url);
        let pages = match first {
            true => self.pages_per_host.increment(host.clone()),
            false => 0,
        };
        if pages > self.config.max_pages_per_host {
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
        // A host's sitemaps are asked for once per member: with its first page.
        let discover = self.config.sitemaps && pages == 1;
        let (web, max_bytes) = (self.web.clone(), self.config.max_page_bytes);
        Some(Box::pin(visit(
            web,
            max_bytes,
            input.topic,
            input.record,
            discover,
        )))
    }

    fn complete(&mut self, done: Visited, out: &mut Emitter) -> Result<(), StageError> {
        let Visited {
            topic,
            request,
            result,
        } = done;
        let (final_url, page, validators) = match result {
            Ok(Visit::Page {
                url,
                page,
                sitemaps,
                validators,
            }) => {
                if let Some(listed) = sitemaps {
                    self.emit_site_sitemaps(&url, listed, out);
                }
                (url, page, validators)
            }
            Ok(Visit::Unchanged { validators }) => {
                let known = request.known.clone();
                self.schedule_revisit(&topic, &request, validators, known, out);
                return Ok(());
            }
            Ok(Visit::NotHtml { url, content_type }) => {
                out.reject(Reason::NotHtml, "", url.as_str(), content_type);
                return Ok(());
            }
            Ok(Visit::Sitemap {
                url,
                sitemap,
                validators,
            }) => {
                let known = self.emit_sitemap_entries(&request, &url, sitemap, out);
                self.schedule_revisit(&topic, &request, validators, known, out);
                return Ok(());
            }
            // `/sitemap.xml` guessed for a site that names no sitemap and has none: nothing to do.
            Err(error)
                if request.resource() == Resource::SitemapGuess
                    && error.reason == Reason::Http4xx =>
            {
                tracing::debug!(url = %request.url, %error, "no /sitemap.xml");
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
        // On a revisit, only what the last visit did not give.
        let before: std::collections::HashSet<u64> = request.known.iter().copied().collect();
        let mut known = Vec::new();
        for image in page.images.iter().filter(|_| !opted_out) {
            let hash = stable_hash(sample_id(image.url.as_str(), &image.alt).as_bytes());
            if known.len() < MAX_KNOWN {
                known.push(hash);
            }
            if before.contains(&hash) {
                continue;
            }
            let key = std::hash::BuildHasher::hash_one(&self.hasher, image.url.as_str());
            let pages_seen = self.site_images.increment(key);
            let mut candidate = html::candidate(image, &page, &final_url, pages_seen);
            candidate.depth = request.depth;
            out.emit(&self.candidates, &candidate.id, &candidate);
        }
        if request.depth == 0 {
            self.schedule_revisit(&topic, &request, validators, known, out);
        }
        if request.depth >= self.config.max_depth {
            return Ok(());
        }
        for link in page.links {
            if !in_scope(&link, &final_url, &self.config.allowed_domains) {
                continue;
            }
            let next = CrawlRequest {
                url: link.into(),
                depth: request.depth + 1,
                referrer: final_url.to_string(),
                ..CrawlRequest::default()
            };
            self.send(&next, out);
        }
        Ok(())
    }
}

impl CrawlStage {
    /// Sends `request` to the frontier, keyed by its host, unless its URL was crawled or sent
    /// already: each URL goes once, however many pages or sitemaps name it.
    fn send(&mut self, request: &CrawlRequest, out: &mut Emitter) {
        if self.seen.contains(&request.url) || !self.emitted.insert(&request.url) {
            return;
        }
        out.emit_side(&self.frontier, &host_key(&request.url), request);
    }

    /// Parks `request` on the retry topic for its next visit, `crawl.revisit` from now, with the
    /// validators and what this visit gave; unless revisits are off or its rounds are spent.
    fn schedule_revisit(
        &self,
        topic: &str,
        request: &CrawlRequest,
        validators: Validators,
        known: Vec<u64>,
        out: &mut Emitter,
    ) {
        let rounds = self.config.revisit_rounds;
        if self.config.revisit.is_zero() || (rounds > 0 && request.round >= rounds) {
            return;
        }
        let next = CrawlRequest {
            attempt: 0,
            round: request.round + 1,
            etag: validators.etag,
            last_modified: validators.last_modified,
            known,
            ..request.clone()
        };
        out.retry(
            topic,
            &host_key(&next.url),
            &next,
            Reason::Revisit,
            0,
            self.config.revisit,
        );
    }

    /// Admits a sitemap request: at most `crawl.max_sitemaps` per site host.
    fn admit_sitemap(
        &mut self,
        input: Input<CrawlRequest>,
        out: &mut Emitter,
    ) -> Option<Work<Visited>> {
        let site = host_key(&input.record.referrer);
        if input.record.attempt == 0
            && input.record.round == 0
            && self.sitemaps_per_host.increment(site.clone()) > self.config.max_sitemaps
        {
            out.reject(
                Reason::OutOfScope,
                "",
                &input.record.url,
                format!("more than {} sitemaps of {site}", self.config.max_sitemaps),
            );
            return None;
        }
        let taken = self.sitemap_urls_per_host.get(&site);
        let budget = self.config.max_sitemap_urls.saturating_sub(taken) as usize;
        Some(Box::pin(read_sitemap(
            self.web.clone(),
            self.config.max_sitemap_bytes,
            budget,
            input.topic,
            input.record,
        )))
    }

    /// Sends the sitemaps a site names (or its `/sitemap.xml`, if it names none) to the frontier,
    /// each keyed by its own host.
    fn emit_site_sitemaps(&mut self, page: &Url, listed: Vec<String>, out: &mut Emitter) {
        let site = page.join("/").map(String::from).unwrap_or_default();
        let (listed, resource) = match listed.is_empty() {
            true => (vec!["/sitemap.xml".to_string()], Resource::SitemapGuess),
            false => (listed, Resource::Sitemap),
        };
        // A robots.txt may name sitemaps on other hosts (sitemaps.org's cross-submission): any
        // absolute http(s) URL; the pages they list must still be the site's.
        let urls = listed
            .iter()
            .filter_map(|url| page.join(url).ok())
            .filter(|url| matches!(url.scheme(), "http" | "https"));
        for url in urls {
            let request = CrawlRequest {
                url: url.into(),
                referrer: site.clone(),
                resource: resource as i32,
                ..CrawlRequest::default()
            };
            self.send(&request, out);
        }
    }

    /// Sends a sitemap's pages (within the site's scope, up to the site's URL budget) and, for an
    /// index, its sitemaps to the frontier; on a revisit, only those it did not list last time.
    /// Returns the hashes of what it lists now.
    fn emit_sitemap_entries(
        &mut self,
        request: &CrawlRequest,
        url: &Url,
        sitemap: sitemap::Sitemap,
        out: &mut Emitter,
    ) -> Vec<u64> {
        let Ok(site) = Url::parse(&request.referrer) else {
            return Vec::new();
        };
        let before: std::collections::HashSet<u64> = request.known.iter().copied().collect();
        let known: Vec<u64> = (sitemap.sitemaps.iter().chain(&sitemap.pages))
            .map(|entry| stable_hash(entry.url.as_bytes()))
            .take(MAX_KNOWN)
            .collect();
        let listed_before =
            |entry: &sitemap::Entry| before.contains(&stable_hash(entry.url.as_bytes()));
        let site_host = host_key(&request.referrer);
        if let Some(why) = &sitemap.incomplete {
            tracing::warn!(sitemap = %url, %why, pages = sitemap.pages.len(), "sitemap read in part");
        }
        let in_site = |entry: &sitemap::Entry| {
            url.join(&entry.url)
                .ok()
                .filter(|u| in_scope(u, &site, &self.config.allowed_domains))
        };
        let mut requests = Vec::new();
        if request.depth < MAX_SITEMAP_NESTING {
            for entry in sitemap.sitemaps.iter().filter(|e| !listed_before(e)) {
                if let Some(child) = in_site(entry) {
                    requests.push(CrawlRequest {
                        url: child.into(),
                        depth: request.depth + 1,
                        referrer: request.referrer.clone(),
                        resource: Resource::Sitemap as i32,
                        ..CrawlRequest::default()
                    });
                }
            }
        }
        for entry in sitemap.pages.iter().filter(|e| !listed_before(e)) {
            let Some(page) = in_site(entry) else { continue };
            if self.seen.contains(&page.as_str()) || self.emitted.contains(&page.as_str()) {
                continue;
            }
            if self.sitemap_urls_per_host.increment(site_host.clone())
                > self.config.max_sitemap_urls
            {
                tracing::info!(site = %site_host, limit = self.config.max_sitemap_urls, "sitemap URL budget spent");
                break;
            }
            requests.push(CrawlRequest {
                url: page.into(),
                referrer: url.to_string(),
                lastmod: entry.lastmod.clone(),
                ..CrawlRequest::default()
            });
        }
        for next in &requests {
            self.send(next, out);
        }
        known
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
