//! The crawl stage: visits pages from the frontier, emits image candidates and new links.
//!
//! This crawler is the minimum a real run needs: fetch a page (through the guarded client),
//! take its `<img>` elements with alt text, and follow links on the same host up to `crawl.max_depth`.
//! Frontier messages are keyed by host so that one member owns a host.

use std::sync::Arc;

use async_trait::async_trait;
use futures::StreamExt;
use url::Url;

use crate::config::{CrawlConfig, RetryConfig};
use crate::dedup::{BoundedCounter, BoundedSet};
use crate::html;
use crate::reason::Reason;
use crate::record::CrawlRequest;
use crate::stage::{Emitter, Input, Stage, StageError};
use crate::stages::{Origin, retry_or_reject};
use crate::web::Web;

/// The key of a frontier message: the URL's host, so that one member owns a host's politeness.
pub fn frontier_key(url: &str) -> String {
    Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default()
}

/// The crawl stage.
pub struct CrawlStage {
    web: Arc<Web>,
    config: CrawlConfig,
    concurrency: usize,
    candidates: Arc<str>,
    frontier: Arc<str>,
    seen: BoundedSet<String>,
    retry: RetryConfig,
    /// Pages each image URL was seen on, to spot site-wide decoration (logos, badges).
    site_images: BoundedCounter<String>,
}

impl CrawlStage {
    /// A crawler producing candidates to `candidates` and new links to `frontier`.
    pub fn new(
        web: Arc<Web>,
        config: CrawlConfig,
        retry: RetryConfig,
        concurrency: usize,
        candidates: Arc<str>,
        frontier: Arc<str>,
    ) -> Self {
        let seen = BoundedSet::new(config.seen_capacity);
        let site_images = BoundedCounter::new(config.seen_capacity);
        Self {
            site_images,
            retry,
            web,
            config,
            concurrency,
            candidates,
            frontier,
            seen,
        }
    }
}

#[async_trait]
impl Stage for CrawlStage {
    type Input = CrawlRequest;

    async fn process(
        &mut self,
        batch: Vec<Input<CrawlRequest>>,
        out: &mut Emitter,
    ) -> Result<(), StageError> {
        // A retried request was seen on its first try: let it through.
        let requests: Vec<(Arc<str>, CrawlRequest)> = batch
            .into_iter()
            .filter(|i| self.seen.insert(i.record.url.clone()) || i.record.attempt > 0)
            .map(|i| (i.topic, i.record))
            .collect();
        let web = &self.web;
        let max_bytes = self.config.max_page_bytes;
        let mut pages = futures::stream::iter(requests)
            .map(|(topic, request)| async move {
                let result = web.get(&request.url, max_bytes).await;
                (topic, request, result)
            })
            .buffered(self.concurrency);
        while let Some((topic, request, result)) = pages.next().await {
            let fetched = match result {
                Ok(fetched) => fetched,
                Err(error) => {
                    let key = frontier_key(&request.url);
                    let origin = Origin {
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
                    continue;
                }
            };
            let page = html::extract(&fetched.body, &fetched.final_url);
            // A page that opts out of AI use gives no candidates; its links may still be followed.
            let opted_out = self.web.forbids_ai(&page.robots);
            if opted_out {
                out.reject(
                    Reason::NoAi,
                    "",
                    fetched.final_url.as_str(),
                    format!("<meta name=\"robots\" content=\"{}\">", page.robots),
                );
            }
            for image in page.images.iter().filter(|_| !opted_out) {
                let pages_seen = self.site_images.increment(image.url.to_string());
                let mut candidate = html::candidate(image, &page, &fetched.final_url, pages_seen);
                candidate.depth = request.depth;
                out.emit(&self.candidates, &candidate.id, &candidate);
            }
            if request.depth >= self.config.max_depth {
                continue;
            }
            for link in page.links {
                // Stay on the page's host: scope rules beyond that come with the full crawler.
                if link.host_str() != fetched.final_url.host_str() {
                    continue;
                }
                let url = link.to_string();
                if self.seen.contains(&url) {
                    continue;
                }
                let next = CrawlRequest {
                    url,
                    depth: request.depth + 1,
                    referrer: fetched.final_url.to_string(),
                    attempt: 0,
                };
                out.emit_side(&self.frontier, &frontier_key(&next.url), &next);
            }
        }
        Ok(())
    }
}
