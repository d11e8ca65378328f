//! The HTTP client shared by crawl and fetch: timeouts, size limits, redirects, and the SSRF guard.
//!
//! The guard decides on resolved addresses, not on host names: every name is resolved by
//! [`GuardedResolver`], which drops private, loopback, link-local (cloud metadata at 169.254.169.254
//! included), CGNAT, multicast, unspecified and other non-public addresses unless `http.allow_networks`
//! lists them. URLs with an IP literal bypass DNS, so they are checked before the request and at every
//! redirect hop. A refused URL never opens a connection.

use std::error::Error as StdError;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use ipnet::IpNet;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::Url;

use crate::config::HttpConfig;
use crate::reason::Reason;

/// Most redirects followed for one request.
pub const MAX_REDIRECTS: usize = 5;

/// Errors building the client.
#[derive(Debug, thiserror::Error)]
#[error("cannot build HTTP client: {0}")]
pub struct HttpError(#[from] reqwest::Error);

impl From<HttpError> for crate::stage::StageError {
    fn from(error: HttpError) -> Self {
        crate::stage::StageError::failed(error)
    }
}

/// A failed download, with the reason code it maps to.
#[derive(Debug, thiserror::Error)]
#[error("{reason}: {detail}")]
pub struct FetchError {
    /// Reason code for rejections and metrics.
    pub reason: Reason,
    /// What happened, for humans.
    pub detail: String,
    /// The HTTP status, when the server answered with an error.
    pub status: Option<u16>,
    /// For error answers: how long the server asked us to wait (`Retry-After`, in seconds).
    pub retry_after: Option<Duration>,
}

impl FetchError {
    /// An error with `reason` and `detail`.
    pub fn new(reason: Reason, detail: impl Into<String>) -> Self {
        Self {
            reason,
            detail: detail.into(),
            status: None,
            retry_after: None,
        }
    }

    /// Whether the server asked us to slow down (429 Too Many Requests, 503 Service Unavailable).
    pub fn is_throttle(&self) -> bool {
        matches!(self.status, Some(429 | 503))
    }
}

/// A successful download.
#[derive(Debug)]
pub struct Fetched {
    /// The URL after redirects.
    pub final_url: Url,
    /// The `Content-Type` header, if any.
    pub content_type: Option<String>,
    /// The `X-Robots-Tag` headers, joined with commas.
    pub robots_tag: String,
    /// The body (empty when `not_modified`).
    pub body: Vec<u8>,
    /// The response's validators, to make the next request for the URL conditional.
    pub validators: Validators,
    /// The server answered 304 Not Modified to a conditional request: the copy behind the
    /// validators sent is current.
    pub not_modified: bool,
}

/// The validators of a response (RFC 9110 §8.8): its `ETag` and `Last-Modified` headers, as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Validators {
    /// The `ETag` header; empty if none.
    pub etag: String,
    /// The `Last-Modified` header; empty if none.
    pub last_modified: String,
}

impl Validators {
    /// Whether there is nothing to make a request conditional on.
    pub fn is_empty(&self) -> bool {
        self.etag.is_empty() && self.last_modified.is_empty()
    }
}

/// How a URL is asked for.
#[derive(Clone, Copy, Debug, Default)]
pub struct Get<'a> {
    /// Most body bytes read.
    pub max_bytes: usize,
    /// A longer body is cut at `max_bytes` (else it is an error, `too_large`).
    pub prefix: bool,
    /// Validators of the copy already held: the request is conditional (`If-None-Match`,
    /// `If-Modified-Since`) and a 304 answer is no error.
    pub validators: Option<&'a Validators>,
}

impl Get<'_> {
    /// At most `max_bytes` of body; more is an error.
    pub fn limited(max_bytes: usize) -> Self {
        Self {
            max_bytes,
            ..Self::default()
        }
    }
}

/// Which addresses the crawler may connect to.
#[derive(Clone, Debug, Default)]
pub struct AddressGuard {
    allow: Vec<IpNet>,
}

impl AddressGuard {
    /// A guard that also permits the networks in `allow`.
    pub fn new(allow: Vec<IpNet>) -> Self {
        Self { allow }
    }

    /// Whether a connection to `ip` is allowed.
    pub fn permits(&self, ip: IpAddr) -> bool {
        is_public(ip) || self.allow.iter().any(|net| net.contains(&ip))
    }
}

/// Whether `ip` is a globally routable unicast address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public_v4(v4);
            }
            let segments = v6.segments();
            let embedded_v4 = || {
                let o = v6.octets();
                Ipv4Addr::new(o[12], o[13], o[14], o[15])
            };
            // NAT64 (64:ff9b::/96) reaches the embedded IPv4 address: judge that one.
            if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                return is_public_v4(embedded_v4());
            }
            // 6to4 (2002::/16) tunnels to the IPv4 address in bits 16..48.
            if segments[0] == 0x2002 {
                let o = v6.octets();
                return is_public_v4(Ipv4Addr::new(o[2], o[3], o[4], o[5]));
            }
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (segments[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (segments[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
                || (segments[0] & 0xffc0) == 0xfec0 // deprecated site-local fec0::/10
                || (segments[0] == 0x2001 && segments[1] == 0x0db8) // documentation
                || (segments[0] == 0x2001 && segments[1] == 0) // Teredo: hides its IPv4 endpoint
                || (segments[0] == 0x64 && segments[1] == 0xff9b && segments[2] == 1) // local NAT64
                || segments[..6] == [0, 0, 0, 0, 0, 0]) // IPv4-compatible (deprecated)
        }
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let o = ip.octets();
    !(ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_unspecified()
        || ip.is_multicast()
        || ip.is_documentation()
        || o[0] == 0 // "this network" 0.0.0.0/8
        || (o[0] == 100 && (o[1] & 0xc0) == 64) // CGNAT 100.64.0.0/10
        || (o[0] == 192 && o[1] == 0 && o[2] == 0) // IETF protocol assignments
        || (o[0] == 198 && (o[1] & 0xfe) == 18) // benchmarking 198.18.0.0/15
        || o[0] >= 240) // reserved 240.0.0.0/4
}

/// Marks an error as a refusal by the guard, so it can be told apart from network failures.
#[derive(Debug, thiserror::Error)]
#[error("address {0} is not public and not allowlisted")]
pub struct Blocked(pub IpAddr);

/// Resolves names with the system resolver and removes addresses the guard refuses.
pub struct GuardedResolver {
    guard: AddressGuard,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = self.guard.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let resolved: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let allowed = filter_addresses(&guard, &resolved)?;
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

/// Keeps the addresses `guard` permits; an error naming one refused address if none is left.
pub fn filter_addresses(
    guard: &AddressGuard,
    resolved: &[SocketAddr],
) -> Result<Vec<SocketAddr>, Box<dyn StdError + Send + Sync>> {
    let allowed: Vec<SocketAddr> = resolved
        .iter()
        .copied()
        .filter(|a| guard.permits(a.ip()))
        .collect();
    match (allowed.is_empty(), resolved.first()) {
        (false, _) => Ok(allowed),
        (true, Some(first)) => Err(Box::new(Blocked(first.ip()))),
        (true, None) => Err("no addresses".into()),
    }
}

/// Checks a URL before any connection: scheme, and the address when the host is an IP literal.
pub fn check_url(guard: &AddressGuard, url: &Url) -> Result<(), FetchError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(FetchError::new(
            Reason::BadUrl,
            format!("scheme `{}` is not http(s)", url.scheme()),
        ));
    }
    let ip = match url.host() {
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip),
        Some(url::Host::Domain(_)) => return Ok(()),
        None => return Err(FetchError::new(Reason::BadUrl, "URL has no host")),
    };
    if guard.permits(ip) {
        Ok(())
    } else {
        Err(FetchError::new(
            Reason::BlockedAddress,
            Blocked(ip).to_string(),
        ))
    }
}

/// The guarded HTTP client.
#[derive(Clone)]
pub struct HttpClient {
    client: reqwest::Client,
    guard: AddressGuard,
}

impl HttpClient {
    /// A client with the limits and allowlist of `config`.
    pub fn new(config: &HttpConfig) -> Result<Self, HttpError> {
        let guard = AddressGuard::new(config.allow_networks.clone());
        let redirect_guard = guard.clone();
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            // `previous` holds every URL requested so far, the first one included.
            if attempt.previous().len() > MAX_REDIRECTS {
                attempt.error(TooManyRedirects)
            } else if let Err(e) = check_url(&redirect_guard, attempt.url()) {
                attempt.error(e)
            } else {
                attempt.follow()
            }
        });
        let client = reqwest::Client::builder()
            .user_agent(&config.user_agent)
            .connect_timeout(config.connect_timeout)
            .timeout(config.timeout)
            .redirect(policy)
            // A proxy would connect on our behalf and bypass the address guard.
            .no_proxy()
            .dns_resolver(Arc::new(GuardedResolver {
                guard: guard.clone(),
            }))
            .build()?;
        Ok(Self { client, guard })
    }

    /// Downloads `url`, reading at most `max_bytes` of body: a longer body is an error
    /// (`too_large`).
    pub async fn get(&self, url: &str, max_bytes: usize) -> Result<Fetched, FetchError> {
        self.download(url, &Get::limited(max_bytes)).await
    }

    /// Downloads the first `max_bytes` of `url`'s body and stops reading there (robots.txt: a
    /// crawler parses the first 500 KiB and ignores the rest, RFC 9309 §2.5).
    pub async fn get_prefix(&self, url: &str, max_bytes: usize) -> Result<Fetched, FetchError> {
        let get = Get {
            prefix: true,
            ..Get::limited(max_bytes)
        };
        self.download(url, &get).await
    }

    /// Downloads `url` as `get` says.
    pub async fn download(&self, url: &str, get: &Get<'_>) -> Result<Fetched, FetchError> {
        let (max_bytes, truncate) = (get.max_bytes, get.prefix);
        let url = Url::parse(url).map_err(|e| FetchError::new(Reason::BadUrl, e.to_string()))?;
        check_url(&self.guard, &url)?;
        let mut request = self.client.get(url.clone());
        if let Some(held) = get.validators {
            if !held.etag.is_empty() {
                request = request.header(reqwest::header::IF_NONE_MATCH, &held.etag);
            }
            if !held.last_modified.is_empty() {
                request = request.header(reqwest::header::IF_MODIFIED_SINCE, &held.last_modified);
            }
        }
        let response = request.send().await.map_err(classify)?;
        let status = response.status();
        let header = |name: reqwest::header::HeaderName| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string()
        };
        let validators = Validators {
            etag: header(reqwest::header::ETAG),
            last_modified: header(reqwest::header::LAST_MODIFIED),
        };
        if status == reqwest::StatusCode::NOT_MODIFIED
            && let Some(held) = get.validators
        {
            // A 304 may leave out validators that did not change.
            let validators = if validators.is_empty() {
                held.clone()
            } else {
                validators
            };
            return Ok(Fetched {
                final_url: response.url().clone(),
                content_type: None,
                robots_tag: String::new(),
                body: Vec::new(),
                validators,
                not_modified: true,
            });
        }
        if status.is_client_error() || status.is_server_error() {
            let reason = if status.is_client_error() {
                Reason::Http4xx
            } else {
                Reason::Http5xx
            };
            // Only the delta-seconds form; an HTTP-date falls back to the default backoff.
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            return Err(FetchError {
                status: Some(status.as_u16()),
                retry_after,
                ..FetchError::new(reason, status.to_string())
            });
        }
        if !status.is_success() {
            return Err(FetchError::new(
                Reason::Network,
                format!("unexpected status {status}"),
            ));
        }
        let declared = response.content_length();
        if !truncate && declared.is_some_and(|len| len > max_bytes as u64) {
            return Err(FetchError::new(
                Reason::TooLarge,
                format!("Content-Length above {max_bytes} bytes"),
            ));
        }
        let final_url = response.url().clone();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let robots_tag = response
            .headers()
            .get_all("x-robots-tag")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>()
            .join(",");
        // Read in chunks and stop at the limit: a server may lie about, or omit, the length.
        // Sized by the declared length (already checked against the limit), so the body is not
        // copied as it grows.
        let mut body = Vec::with_capacity(declared.unwrap_or(0).min(max_bytes as u64) as usize);
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(classify)?;
            if truncate && body.len() + chunk.len() >= max_bytes {
                body.extend_from_slice(&chunk[..max_bytes - body.len()]);
                break;
            }
            if body.len() + chunk.len() > max_bytes {
                return Err(FetchError::new(
                    Reason::TooLarge,
                    format!("body above {max_bytes} bytes"),
                ));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Fetched {
            final_url,
            content_type,
            robots_tag,
            body,
            validators,
            not_modified: false,
        })
    }
}

/// Whether robots directives (an `X-Robots-Tag` value or a robots `<meta>` content) opt out of AI
/// use: `noai` or `noimageai`, unscoped or scoped to `agent` (`altflow: noai`).
pub fn forbids_ai(directives: &str, agent: &str) -> bool {
    directives.split(',').any(|directive| {
        let directive = directive.trim().to_ascii_lowercase();
        let directive = match directive.split_once(':') {
            Some((scope, rest)) if scope.trim() == agent => rest.trim().to_string(),
            Some(_) => return false,
            None => directive,
        };
        directive
            .split_whitespace()
            .any(|d| d == "noai" || d == "noimageai")
    })
}

#[derive(Debug, thiserror::Error)]
#[error("more than {MAX_REDIRECTS} redirects")]
struct TooManyRedirects;

/// Maps a client error to a reason code by looking through its causes.
fn classify(error: reqwest::Error) -> FetchError {
    let mut source: Option<&(dyn StdError + 'static)> = Some(&error);
    while let Some(e) = source {
        if let Some(blocked) = e.downcast_ref::<Blocked>() {
            return FetchError::new(Reason::BlockedAddress, blocked.to_string());
        }
        if let Some(refused) = e.downcast_ref::<FetchError>() {
            return FetchError::new(refused.reason, refused.detail.clone());
        }
        if e.downcast_ref::<TooManyRedirects>().is_some() {
            return FetchError::new(Reason::Redirects, e.to_string());
        }
        // Handshake failures arrive as io::Errors wrapping io::Errors wrapping rustls' error, and
        // io::Error's `source()` skips the wrapped error: unwrap them by hand.
        let mut inner = Some(e);
        while let Some(wrapped) = inner {
            if let Some(tls) = wrapped.downcast_ref::<rustls::Error>() {
                return FetchError::new(Reason::Tls, format!("TLS handshake: {tls}"));
            }
            inner = wrapped
                .downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
                .map(|e| e as &(dyn StdError + 'static));
        }
        source = e.source();
    }
    let detail = format!("{error:#}");
    // Checked after the walk above: a refusal by the guard also surfaces as a resolver error.
    let reason = if error.is_dns() {
        Reason::Dns
    } else if error.is_timeout() {
        Reason::Timeout
    } else if error.is_redirect() {
        Reason::Redirects
    } else if error.is_connect() {
        Reason::Connect
    } else {
        Reason::Network
    };
    FetchError::new(reason, detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn non_public_addresses_are_refused() {
        for s in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:a00:1::1",
            "2001:0:4136:e378::1",
            "64:ff9b:1::a00:1",
        ] {
            assert!(!is_public(ip(s)), "{s} should be refused");
        }
        for s in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert!(is_public(ip(s)), "{s} should be allowed");
        }
    }

    #[test]
    fn ai_opt_outs_are_recognised() {
        assert!(forbids_ai("noai", "altflow"));
        assert!(forbids_ai("noindex, NoImageAI", "altflow"));
        assert!(forbids_ai("altflow: noai", "altflow"));
        assert!(!forbids_ai("otherbot: noai", "altflow"));
        assert!(!forbids_ai("noindex, nofollow", "altflow"));
        assert!(!forbids_ai("", "altflow"));
    }

    #[test]
    fn allowlist_opens_only_its_networks() {
        let guard = AddressGuard::new(vec!["127.0.0.0/8".parse().unwrap()]);
        assert!(guard.permits(ip("127.0.0.1")));
        assert!(!guard.permits(ip("10.0.0.1")));
        assert!(!guard.permits(ip("169.254.169.254")));
    }

    #[test]
    fn resolver_filter_drops_refused_addresses() {
        // A fake resolution: one public and one private answer for the same name.
        let guard = AddressGuard::default();
        let answers = [
            SocketAddr::new(ip("10.0.0.5"), 0),
            SocketAddr::new(ip("93.184.216.34"), 0),
        ];
        assert_eq!(
            filter_addresses(&guard, &answers).unwrap(),
            vec![answers[1]]
        );
        let err = filter_addresses(&guard, &answers[..1]).unwrap_err();
        assert!(err.downcast_ref::<Blocked>().is_some());
    }

    #[test]
    fn literal_addresses_and_schemes_are_checked_before_connecting() {
        let guard = AddressGuard::default();
        let check = |u: &str| check_url(&guard, &Url::parse(u).unwrap()).map_err(|e| e.reason);
        assert_eq!(
            check("http://169.254.169.254/latest/meta-data/"),
            Err(Reason::BlockedAddress)
        );
        assert_eq!(check("http://[::1]:8080/"), Err(Reason::BlockedAddress));
        assert_eq!(check("http://2130706433/"), Err(Reason::BlockedAddress)); // 127.0.0.1 in decimal
        assert_eq!(check("ftp://example.com/x"), Err(Reason::BadUrl));
        assert_eq!(check("https://example.com/x.jpg"), Ok(()));
    }

    #[tokio::test]
    async fn refused_url_fails_without_a_connection() {
        // Bind a listener and never accept: if the client connected, the test would time out
        // instead of failing fast with blocked_address.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let client = HttpClient::new(&HttpConfig::default()).unwrap();
        let err = client.get(&url, 1024).await.unwrap_err();
        assert_eq!(err.reason, Reason::BlockedAddress);
        // A host name goes through the guarded resolver, which finds only loopback addresses.
        let port = listener.local_addr().unwrap().port();
        let err = client
            .get(&format!("http://localhost:{port}/"), 1024)
            .await
            .unwrap_err();
        assert_eq!(err.reason, Reason::BlockedAddress, "{err}");
        listener.set_nonblocking(true).unwrap();
        assert!(listener.accept().is_err(), "a connection was made");
    }

    /// A tiny HTTP server on 127.0.0.1: `/hop/N` redirects to `/hop/N-1`, `/hop/0` answers 200,
    /// `/loop` redirects to itself, `/big` sends more than it declares nothing about.
    async fn redirect_server() -> std::net::SocketAddr {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            loop {
                let (mut stream, _) = listener.accept().await.unwrap();
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 4096];
                    let n = stream.read(&mut buf).await.unwrap_or(0);
                    let request = String::from_utf8_lossy(&buf[..n]).into_owned();
                    let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let response = if let Some(n) = path.strip_prefix("/hop/") {
                        let n: u32 = n.parse().unwrap();
                        if n == 0 {
                            "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok"
                                .to_string()
                        } else {
                            format!(
                                "HTTP/1.1 302 Found\r\nlocation: /hop/{}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                                n - 1
                            )
                        }
                    } else if path == "/loop" {
                        "HTTP/1.1 302 Found\r\nlocation: /loop\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_string()
                    } else if path == "/to-metadata" {
                        "HTTP/1.1 302 Found\r\nlocation: http://169.254.169.254/latest/\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_string()
                    } else {
                        format!(
                            "HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n{}",
                            "x".repeat(10_000)
                        )
                    };
                    let _ = stream.write_all(response.as_bytes()).await;
                });
            }
        });
        addr
    }

    fn local_client() -> HttpClient {
        HttpClient::new(&HttpConfig {
            allow_networks: vec!["127.0.0.0/8".parse().unwrap()],
            ..HttpConfig::default()
        })
        .unwrap()
    }

    #[tokio::test]
    async fn follows_five_redirects_and_no_more() {
        let addr = redirect_server().await;
        let client = local_client();
        let ok = client
            .get(&format!("http://{addr}/hop/5"), 1024)
            .await
            .unwrap();
        assert_eq!(ok.body, b"ok");
        assert_eq!(ok.final_url.path(), "/hop/0");
        let err = client
            .get(&format!("http://{addr}/hop/6"), 1024)
            .await
            .unwrap_err();
        assert_eq!(err.reason, Reason::Redirects, "{err}");
        let err = client
            .get(&format!("http://{addr}/loop"), 1024)
            .await
            .unwrap_err();
        assert_eq!(err.reason, Reason::Redirects, "{err}");
    }

    #[tokio::test]
    async fn redirect_to_a_blocked_address_is_refused_and_bodies_are_capped() {
        let addr = redirect_server().await;
        let client = local_client();
        let err = client
            .get(&format!("http://{addr}/to-metadata"), 1024)
            .await
            .unwrap_err();
        assert_eq!(err.reason, Reason::BlockedAddress, "{err}");
        // No Content-Length: the cap applies while reading.
        let err = client
            .get(&format!("http://{addr}/big"), 1000)
            .await
            .unwrap_err();
        assert_eq!(err.reason, Reason::TooLarge, "{err}");
    }

    #[tokio::test]
    async fn a_slow_server_times_out() {
        use tokio::io::AsyncReadExt;
        // Accepts, reads the request, and never answers.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 1024];
            let _ = stream.read(&mut buf).await;
            tokio::time::sleep(std::time::Duration::from_secs(30)).await;
        });
        let client = HttpClient::new(&HttpConfig {
            allow_networks: vec!["127.0.0.0/8".parse().unwrap()],
            timeout: std::time::Duration::from_millis(300),
            ..HttpConfig::default()
        })
        .unwrap();
        let started = std::time::Instant::now();
        let err = client
            .get(&format!("http://{addr}/"), 1024)
            .await
            .unwrap_err();
        assert_eq!(err.reason, Reason::Timeout, "{err}");
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[tokio::test]
    async fn unresolvable_names_are_dns_failures() {
        let err = HttpClient::new(&HttpConfig::default())
            .unwrap()
            .get("http://name-that-does-not-exist.invalid/", 1024)
            .await
            .unwrap_err();
        assert_eq!(err.reason, Reason::Dns, "{err}");
    }

    #[tokio::test]
    async fn https_to_a_plain_http_server_is_a_tls_failure() {
        let addr = redirect_server().await;
        let err = local_client()
            .get(&format!("https://{addr}/hop/0"), 1024)
            .await
            .unwrap_err();
        assert_eq!(err.reason, Reason::Tls, "{err}");
    }
}
