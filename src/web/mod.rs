//! The crawler's access to the web: every page and image request goes through here, so that the rules
//! of a good web citizen apply to both: the guarded HTTP client (SSRF guard, limits), robots.txt,
//! `X-Robots-Tag: noai`/`noimageai` opt-outs, and per-host politeness: at most
//! `http.per_host_concurrency` requests in flight to a host, `http.min_host_delay` between their
//! starts (or the host's robots.txt `Crawl-delay`, up to `http.max_crawl_delay`), and a host that
//! answers 429/503 is left alone for its `Retry-After` (or an exponential backoff), after which the
//! request is retried up to `http.max_retries` times.

pub mod html;
pub mod http;
pub mod polite;
pub mod robots;
pub mod serve;
pub mod sitemap;
pub mod warc;

use std::time::Duration;

use url::Url;

use crate::config::HttpConfig;
use crate::metrics::WebMetrics;
use crate::reason::Reason;
use crate::web::http::{FetchError, Fetched, Get, HttpClient, HttpError, forbids_ai};
use crate::web::robots::{RobotsCache, product_token};
use polite::Politeness;

/// Guarded, robots-aware HTTP access.
pub struct Web {
    http: HttpClient,
    robots: Option<RobotsCache>,
    agent: String,
    polite: Politeness,
    max_retries: u32,
    max_retry_wait: Duration,
    max_crawl_delay: Duration,
    metrics: WebMetrics,
}

/// The host of `url` (empty if it has none), which politeness is kept by.
fn host_of(url: &str) -> String {
    Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default()
}

impl Web {
    /// Access with the rules of `config`, for the stage named `stage` (its metrics' label).
    pub fn new(config: &HttpConfig, stage: &'static str) -> Result<Self, HttpError> {
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
            polite: Politeness::new(
                config.per_host_concurrency,
                config.concurrency,
                config.min_host_delay,
                stage,
            ),
            max_retries: config.max_retries,
            max_retry_wait: config.max_retry_wait,
            max_crawl_delay: config.max_crawl_delay,
            metrics: WebMetrics::new(stage),
        })
    }

    /// Paces `host` by the `Crawl-delay` its robots.txt asked for, capped at
    /// `http.max_crawl_delay` (a host asking for more is counted), or by the minimum delay alone.
    fn pace(&self, host: &str, crawl_delay: Option<Duration>) {
        let asked = crawl_delay.unwrap_or_default();
        let delay = asked.min(self.max_crawl_delay);
        if self.polite.pace(host, delay) && asked > delay {
            self.metrics.crawl_delay_capped();
            tracing::info!(%host, ?asked, paced = ?delay, "Crawl-delay above http.max_crawl_delay: paced at the cap");
        }
    }

    /// One polite request to `url` on `host` with retries on 429/503.
    async fn polite_get(
        &self,
        url: &str,
        host: &str,
        get: &Get<'_>,
    ) -> Result<Fetched, FetchError> {
        let mut attempt = 0;
        loop {
            let result = {
                let _permit = self.polite.acquire(host).await;
                self.http.download(url, get).await
            };
            match result {
                Err(error) if error.is_throttle() => {
                    let asked = error
                        .retry_after
                        .unwrap_or(Duration::from_secs(1 << attempt.min(10)));
                    // A server may ask for any wait: hold the host back no longer than we would
                    // wait ourselves, so one answer cannot stall every request to it.
                    self.polite.back_off(host, asked.min(self.max_retry_wait));
                    if attempt >= self.max_retries || asked > self.max_retry_wait {
                        return Err(error);
                    }
                    let pause = asked;
                    tracing::debug!(%host, ?pause, "throttled, backing off");
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    /// Downloads `url` (at most `max_bytes`) if robots.txt allows it and the response does not opt
    /// out of AI use. A redirect's target must be allowed by its own robots.txt too; the client
    /// follows redirects itself, so the target is checked once the response is in, and a disallowed
    /// one's body is dropped unused.
    pub async fn get(&self, url: &str, max_bytes: usize) -> Result<Fetched, FetchError> {
        self.download(url, &Get::limited(max_bytes)).await
    }

    /// [`Web::get`], asking as `get` says (a prefix, or conditionally on a copy held).
    pub async fn download(&self, url: &str, get: &Get<'_>) -> Result<Fetched, FetchError> {
        let host = host_of(url);
        if let Some(robots) = &self.robots {
            let crawl_delay = robots.check(url).await?;
            self.pace(&host, crawl_delay);
        }
        let fetched = self.polite_get(url, &host, get).await?;
        if let Some(robots) = &self.robots
            && fetched.final_url.as_str() != url
        {
            robots
                .check(fetched.final_url.as_str())
                .await
                .map_err(|e| {
                    FetchError::new(
                        e.reason,
                        format!("redirect to {}: {}", fetched.final_url, e.detail),
                    )
                })?;
        }
        if self.forbids_ai(&fetched.robots_tag) {
            return Err(FetchError::new(
                Reason::NoAi,
                format!("X-Robots-Tag: {}", fetched.robots_tag),
            ));
        }
        Ok(fetched)
    }

    /// The sitemaps `url`'s origin names in its robots.txt (none when robots.txt is not read).
    pub async fn sitemaps(&self, url: &Url) -> Vec<String> {
        match &self.robots {
            Some(robots) => robots.sitemaps(&url.origin().ascii_serialization()).await,
            None => Vec::new(),
        }
    }

    /// Whether robots directives (from a header or a `<meta name="robots">`) opt out of AI use, when
    /// robots rules are respected.
    pub fn forbids_ai(&self, directives: &str) -> bool {
        self.robots.is_some() && forbids_ai(directives, &self.agent)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use tokio::time::Instant;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;
    use crate::sync::lock;

    /// A server on 127.0.0.1 that records when each request but robots.txt's arrived and answers
    /// `/throttled/N` with 429 and `Retry-After: N` on the first hit, 200 afterwards;
    /// `/robots.txt` with `robots`; everything else with 200.
    async fn server_with(
        robots: &'static str,
    ) -> (String, Arc<Mutex<Vec<Instant>>>, Arc<AtomicUsize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let arrivals: Arc<Mutex<Vec<Instant>>> = Arc::default();
        let throttled = Arc::new(AtomicUsize::new(0));
        let (times, hits) = (arrivals.clone(), throttled.clone());
        tokio::spawn(async move {
            loop {
                let (mut stream, _) = listener.accept().await.unwrap();
                let arrived = Instant::now();
                let (hits, times) = (hits.clone(), times.clone());
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 2048];
                    let n = stream.read(&mut buf).await.unwrap_or(0);
                    let request = String::from_utf8_lossy(&buf[..n]).into_owned();
                    let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
                    if path == "/robots.txt" {
                        let response = format!(
                            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{robots}",
                            robots.len()
                        );
                        let _ = stream.write_all(response.as_bytes()).await;
                        return;
                    }
                    lock(&times).push(arrived);
                    let response = match path.strip_prefix("/throttled/") {
                        Some(seconds) if hits.fetch_add(1, Ordering::SeqCst) == 0 => format!(
                            "HTTP/1.1 429 Too Many Requests\r\nretry-after: {seconds}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                        ),
                        _ => "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok"
                            .into(),
                    };
                    let _ = stream.write_all(response.as_bytes()).await;
                });
            }
        });
        (base, arrivals, throttled)
    }

    async fn server() -> (String, Arc<Mutex<Vec<Instant>>>, Arc<AtomicUsize>) {
        server_with("").await
    }

    /// The gaps between the arrivals of `web`'s requests for three pages of `base`, asked at once.
    async fn gaps(web: &Web, base: &str, arrivals: &Mutex<Vec<Instant>>) -> Vec<Duration> {
        let urls: Vec<String> = (0..3).map(|i| format!("{base}/page/{i}")).collect();
        for result in futures::future::join_all(urls.iter().map(|u| web.get(u, 1024))).await {
            assert_eq!(result.unwrap().body, b"ok");
        }
        let mut times = lock(arrivals).clone();
        times.sort();
        assert_eq!(times.len(), 3);
        times.windows(2).map(|p| p[1] - p[0]).collect()
    }

    fn web(min_delay: Duration, max_retry_wait: Duration) -> Web {
        Web::new(
            &HttpConfig {
                allow_networks: vec!["127.0.0.0/8".parse().unwrap()],
                per_host_concurrency: 1,
                min_host_delay: min_delay,
                max_retry_wait,
                respect_robots: false,
                ..HttpConfig::default()
            },
            "test",
        )
        .unwrap()
    }

    #[tokio::test]
    async fn requests_to_one_host_are_spaced_by_the_minimum_delay() {
        let (base, arrivals, _) = server().await;
        let web = web(Duration::from_millis(200), Duration::from_secs(5));
        let started = Instant::now();
        let urls: Vec<String> = (0..3).map(|i| format!("{base}/page/{i}")).collect();
        for result in futures::future::join_all(urls.iter().map(|u| web.get(u, 1024))).await {
            assert_eq!(result.unwrap().body, b"ok");
        }
        assert!(started.elapsed() >= Duration::from_millis(400));
        let times = lock(&arrivals).clone();
        assert_eq!(times.len(), 3);
        for pair in times.windows(2) {
            // The server sees the spacing, give or take the loopback's jitter.
            assert!(
                pair[1] - pair[0] >= Duration::from_millis(150),
                "{:?}",
                pair[1] - pair[0]
            );
        }
    }

    #[tokio::test]
    async fn a_robots_txt_crawl_delay_spaces_the_host_s_requests_up_to_the_cap() {
        let config = |max_crawl_delay| HttpConfig {
            allow_networks: vec!["127.0.0.0/8".parse().unwrap()],
            per_host_concurrency: 4,
            min_host_delay: Duration::from_millis(50),
            max_crawl_delay,
            ..HttpConfig::default()
        };
        // Asked for 0.6 s, under the cap: the server sees the host's requests 0.6 s apart.
        let (base, arrivals, _) =
            server_with("User-agent: *\nCrawl-delay: 0.6\nDisallow: /private\n").await;
        let web = Web::new(&config(Duration::from_secs(10)), "test").unwrap();
        for gap in gaps(&web, &base, &arrivals).await {
            assert!(
                (Duration::from_millis(550)..Duration::from_millis(1500)).contains(&gap),
                "{gap:?}"
            );
        }
        // Asked for an hour, capped at 0.3 s: paced at the cap, and counted once.
        let (base, arrivals, _) = server_with("User-agent: altflow\nCrawl-delay: 3600\n").await;
        let web = Web::new(&config(Duration::from_millis(300)), "test").unwrap();
        let capped = web.metrics.crawl_delays_capped();
        for gap in gaps(&web, &base, &arrivals).await {
            assert!(
                (Duration::from_millis(250)..Duration::from_millis(1200)).contains(&gap),
                "{gap:?}"
            );
        }
        assert_eq!(web.metrics.crawl_delays_capped(), capped + 1);
        // `0s` ignores it: the member's own minimum delay spaces them.
        let (base, arrivals, _) = server_with("User-agent: *\nCrawl-delay: 5\n").await;
        let web = Web::new(&config(Duration::ZERO), "test").unwrap();
        for gap in gaps(&web, &base, &arrivals).await {
            assert!(gap < Duration::from_millis(1000), "{gap:?}");
        }
    }

    #[tokio::test]
    async fn a_429_with_retry_after_is_waited_out_and_retried() {
        let (base, _, hits) = server().await;
        let web = web(Duration::ZERO, Duration::from_secs(5));
        let started = Instant::now();
        let fetched = web.get(&format!("{base}/throttled/1"), 1024).await.unwrap();
        assert_eq!(fetched.body, b"ok");
        assert_eq!(hits.load(Ordering::SeqCst), 2, "one 429, then one success");
        assert!(
            started.elapsed() >= Duration::from_secs(1),
            "Retry-After respected"
        );
    }

    #[tokio::test]
    async fn a_retry_after_beyond_the_limit_fails_at_once() {
        let (base, _, _) = server().await;
        let web = web(Duration::ZERO, Duration::from_secs(5));
        let started = Instant::now();
        let error = web
            .get(&format!("{base}/throttled/3600"), 1024)
            .await
            .unwrap_err();
        assert_eq!((error.reason, error.status), (Reason::Http4xx, Some(429)));
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[tokio::test]
    async fn a_host_s_robots_txt_is_fetched_once_however_many_ask_at_once() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let robots = Arc::new(AtomicUsize::new(0));
        let counted = robots.clone();
        tokio::spawn(async move {
            loop {
                let (mut stream, _) = listener.accept().await.unwrap();
                let counted = counted.clone();
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 2048];
                    let n = stream.read(&mut buf).await.unwrap_or(0);
                    if String::from_utf8_lossy(&buf[..n]).starts_with("GET /robots.txt") {
                        counted.fetch_add(1, Ordering::SeqCst);
                        // Slow, so that every request asks while the fetch is under way.
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                    let _ = stream
                        .write_all(
                            b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok",
                        )
                        .await;
                });
            }
        });
        let web = Web::new(
            &HttpConfig {
                allow_networks: vec!["127.0.0.0/8".parse().unwrap()],
                per_host_concurrency: 20,
                min_host_delay: Duration::ZERO,
                ..HttpConfig::default()
            },
            "test",
        )
        .unwrap();
        let urls: Vec<String> = (0..20).map(|i| format!("{base}/page/{i}")).collect();
        for result in futures::future::join_all(urls.iter().map(|u| web.get(u, 1024))).await {
            assert_eq!(result.unwrap().body, b"ok");
        }
        assert_eq!(robots.load(Ordering::SeqCst), 1);
    }
}
