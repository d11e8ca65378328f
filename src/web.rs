//! The crawler's access to the web: every page and image request goes through here, so that the rules
//! of a good web citizen apply to both: the guarded HTTP client (SSRF guard, limits), robots.txt, and
//! `X-Robots-Tag: noai`/`noimageai` opt-outs.

use crate::config::HttpConfig;
use crate::http::{FetchError, Fetched, HttpClient, HttpError, forbids_ai};
use crate::reason::Reason;
use crate::robots::{RobotsCache, product_token};

/// Guarded, robots-aware HTTP access.
pub struct Web {
    http: HttpClient,
    robots: Option<RobotsCache>,
    agent: String,
}

impl Web {
    /// Access with the rules of `config`.
    pub fn new(config: &HttpConfig) -> Result<Self, HttpError> {
        let http = HttpClient::new(config)?;
        let robots = config.respect_robots.then(|| {
            RobotsCache::new(
                http.clone(),
                &config.user_agent,
                config.robots_ttl,
                config.robots_capacity,
            )
        });
        Ok(Self {
            http,
            robots,
            agent: product_token(&config.user_agent),
        })
    }

    /// Downloads `url` (at most `max_bytes`) if robots.txt allows it and the response does not opt
    /// out of AI use.
    pub async fn get(&self, url: &str, max_bytes: usize) -> Result<Fetched, FetchError> {
        if let Some(robots) = &self.robots
            && let Err(reason) = robots.check(url).await
        {
            return Err(FetchError {
                reason,
                detail: "disallowed by robots.txt".into(),
            });
        }
        let fetched = self.http.get(url, max_bytes).await?;
        if self.forbids_ai(&fetched.robots_tag) {
            return Err(FetchError {
                reason: Reason::NoAi,
                detail: format!("X-Robots-Tag: {}", fetched.robots_tag),
            });
        }
        Ok(fetched)
    }

    /// Whether robots directives (from a header or a `<meta name="robots">`) opt out of AI use, when
    /// robots rules are respected.
    pub fn forbids_ai(&self, directives: &str) -> bool {
        self.robots.is_some() && forbids_ai(directives, &self.agent)
    }
}
