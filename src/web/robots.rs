//! robots.txt (RFC 9309): parsing, matching, and a bounded per-origin cache.
//!
//! The crawler asks before every page and every image. Rules come from the group whose user-agent
//! matches ours (case-insensitive product token, e.g. `altflow`), else the `*` group; the longest
//! matching rule wins and `allow` wins a tie; `*` matches any run of characters and `$` anchors the end.
//! As the RFC says: a robots.txt that is missing (4xx) allows everything; one that cannot be fetched
//! (5xx, network error) disallows everything until the cache entry expires. Such a refusal carries
//! the cause's reason code (`dns`, `connect`, `http_5xx`, …), not `robots`: the site could not be
//! reached, and a transient cause is retried like any other; it is cached for at most a minute.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use url::Url;

use crate::reason::Reason;
use crate::sync::lock;
use crate::web::http::{FetchError, HttpClient};

/// Largest robots.txt read (RFC 9309 asks crawlers to parse at least 500 KiB).
pub const MAX_ROBOTS_BYTES: usize = 512 * 1024;

/// How long an unreachable robots.txt keeps its origin closed before it is asked for again.
const UNREACHABLE_TTL: Duration = Duration::from_secs(60);

/// One rule: whether it allows, and its path pattern.
type Rule = (bool, String);

/// One `user-agent` group of a robots.txt.
#[derive(Default)]
struct Group {
    agents: Vec<String>,
    rules: Vec<Rule>,
}

/// The rules that apply to one user agent on one origin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Robots {
    rules: Vec<Rule>,
}

impl Robots {
    /// Rules allowing everything (no robots.txt).
    pub fn allow_all() -> Self {
        Self::default()
    }

    /// Parses `text` for the product token `agent` (e.g. `altflow`).
    pub fn parse(text: &str, agent: &str) -> Self {
        let agent = agent.to_ascii_lowercase();
        let mut groups: Vec<Group> = Vec::new();
        let mut last_was_agent = false;
        // RFC 9309 allows CR, LF or CRLF line ends; a UTF-8 byte order mark may lead the file.
        let text = text.trim_start_matches('\u{feff}');
        for line in text.split(['\n', '\r']) {
            let line = line.split('#').next().unwrap_or("").trim();
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim();
            match key.as_str() {
                "user-agent" => {
                    if !last_was_agent || groups.is_empty() {
                        groups.push(Group::default());
                    }
                    let group = groups.last_mut().expect("pushed above");
                    group.agents.push(value.to_ascii_lowercase());
                    last_was_agent = true;
                }
                "allow" | "disallow" => {
                    last_was_agent = false;
                    if let Some(group) = groups.last_mut()
                        && !value.is_empty()
                    {
                        group.rules.push((key == "allow", value.to_string()));
                    }
                }
                _ => last_was_agent = false,
            }
        }
        // A group names us when its user-agent's product token is ours (case-insensitive).
        let matches_us = |agents: &[String]| {
            agents
                .iter()
                .any(|a| a != "*" && !a.is_empty() && product_token(a) == agent)
        };
        // Our groups if any names us, else the `*` groups; several matching groups combine.
        let ours = groups.iter().any(|g| matches_us(&g.agents));
        let rules: Vec<Rule> = groups
            .iter()
            .filter(|g| {
                if ours {
                    matches_us(&g.agents)
                } else {
                    g.agents.iter().any(|a| a == "*")
                }
            })
            .flat_map(|g| g.rules.clone())
            .collect();
        Self { rules }
    }

    /// Whether `path` (path and query of a URL) may be fetched.
    pub fn allowed(&self, path: &str) -> bool {
        if path == "/robots.txt" {
            return true;
        }
        let mut best: Option<(usize, bool)> = None;
        for (allow, pattern) in &self.rules {
            if pattern_matches(pattern, path) {
                let length = pattern.len();
                best = match best {
                    Some((l, a)) if l > length || (l == length && a) => Some((l, a)),
                    _ => Some((length, *allow)),
                };
            }
        }
        best.is_none_or(|(_, allow)| allow)
    }
}

/// Whether a robots.txt pattern (`*` wildcards, optional trailing `$`) matches the start of `path`.
fn pattern_matches(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let pieces: Vec<&str> = pattern.split('*').collect();
    // The first piece must match at the start; the rest in order, anywhere after.
    let Some(mut rest) = path.strip_prefix(pieces[0]) else {
        return false;
    };
    for (i, piece) in pieces.iter().enumerate().skip(1) {
        let last = i == pieces.len() - 1;
        if last && anchored {
            return rest.ends_with(piece);
        }
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    !anchored || rest.is_empty()
}

/// The product token of a User-Agent string: `altflow/0.1 (+url)` → `altflow`.
pub fn product_token(user_agent: &str) -> String {
    user_agent
        .split(['/', ' '])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// What an origin's robots.txt said, or why it could not be read.
enum Verdict {
    Rules(Robots),
    Unreachable(FetchError),
}

/// A bounded cache of robots rules per origin, filled through the guarded HTTP client.
pub struct RobotsCache {
    http: HttpClient,
    agent: String,
    ttl: Duration,
    capacity: usize,
    entries: Mutex<CacheEntries>,
    /// Fetches under way, by origin.
    fetching: Mutex<HashMap<String, Arc<tokio::sync::OnceCell<Arc<Verdict>>>>>,
}

/// Cached rules by origin, with when they were fetched, and the origins in insertion order.
#[derive(Default)]
struct CacheEntries {
    by_origin: HashMap<String, (Instant, Arc<Verdict>)>,
    order: VecDeque<String>,
}

impl RobotsCache {
    /// A cache for `agent`'s product token keeping at most `capacity` origins for `ttl` each.
    pub fn new(http: HttpClient, user_agent: &str, ttl: Duration, capacity: usize) -> Self {
        Self {
            http,
            agent: product_token(user_agent),
            ttl,
            capacity: capacity.max(1),
            entries: Mutex::new(CacheEntries::default()),
            fetching: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `url` may be fetched: an error with reason `robots` when robots.txt forbids it, or
    /// with the cause's reason when robots.txt could not be read (everything is then disallowed).
    pub async fn check(&self, url: &str) -> Result<(), FetchError> {
        let Ok(parsed) = Url::parse(url) else {
            return Err(FetchError::new(
                Reason::BadUrl,
                format!("cannot parse {url:?}"),
            ));
        };
        let origin = parsed.origin().ascii_serialization();
        match &*self.verdict(&origin).await {
            Verdict::Rules(robots) => {
                let mut path = parsed.path().to_string();
                if let Some(query) = parsed.query() {
                    path.push('?');
                    path.push_str(query);
                }
                if robots.allowed(&path) {
                    Ok(())
                } else {
                    Err(FetchError::new(Reason::Robots, "disallowed by robots.txt"))
                }
            }
            Verdict::Unreachable(cause) => Err(FetchError {
                reason: cause.reason,
                detail: format!("robots.txt unreachable: {}", cause.detail),
                status: cause.status,
                retry_after: cause.retry_after,
            }),
        }
    }

    /// The cached verdict for `origin`, if it is still fresh.
    fn cached(&self, origin: &str) -> Option<Arc<Verdict>> {
        let entries = lock(&self.entries);
        let (fetched, verdict) = entries.by_origin.get(origin)?;
        let ttl = match **verdict {
            Verdict::Rules(_) => self.ttl,
            Verdict::Unreachable(_) => self.ttl.min(UNREACHABLE_TTL),
        };
        (fetched.elapsed() < ttl).then(|| verdict.clone())
    }

    async fn verdict(&self, origin: &str) -> Arc<Verdict> {
        if let Some(verdict) = self.cached(origin) {
            return verdict;
        }
        // One fetch per origin however many requests ask at once: a member holds hundreds of
        // records in flight, and each new host's would otherwise all fetch its robots.txt.
        let fetch = lock(&self.fetching)
            .entry(origin.to_string())
            .or_default()
            .clone();
        let verdict = fetch
            .get_or_init(|| async {
                // Fetched and cached while this request waited for the lock above.
                match self.cached(origin) {
                    Some(verdict) => verdict,
                    None => self.fetch(origin).await,
                }
            })
            .await
            .clone();
        let mut fetching = lock(&self.fetching);
        if fetching.get(origin).is_some_and(|f| Arc::ptr_eq(f, &fetch)) {
            fetching.remove(origin);
        }
        verdict
    }

    /// Fetches and caches `origin`'s robots.txt.
    async fn fetch(&self, origin: &str) -> Arc<Verdict> {
        let verdict = Arc::new(
            match self
                .http
                .get(&format!("{origin}/robots.txt"), MAX_ROBOTS_BYTES)
                .await
            {
                Ok(fetched) => Verdict::Rules(Robots::parse(
                    &String::from_utf8_lossy(&fetched.body),
                    &self.agent,
                )),
                // A missing robots.txt allows everything; a throttled one (429) is unreachable.
                Err(e) if e.reason == Reason::Http4xx && e.status != Some(429) => {
                    Verdict::Rules(Robots::allow_all())
                }
                // Unreachable (5xx, network), or too large to read: RFC 9309 treats an unreachable
                // robots.txt as a complete disallow.
                Err(e) => Verdict::Unreachable(e),
            },
        );
        let mut entries = lock(&self.entries);
        let CacheEntries { by_origin, order } = &mut *entries;
        if by_origin
            .insert(origin.to_string(), (Instant::now(), verdict.clone()))
            .is_none()
        {
            order.push_back(origin.to_string());
            while order.len() > self.capacity {
                if let Some(old) = order.pop_front() {
                    by_origin.remove(&old);
                }
            }
        }
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROBOTS: &str = "
# comment
User-agent: *
Disallow: /private/
Allow: /private/open
Disallow: /*.gif$

User-agent: otherbot
Disallow: /

User-Agent: AltFlow
User-agent: friend
Disallow: /no-altflow
Allow: /no-altflow/but-this
";

    #[test]
    fn our_group_wins_over_the_star_group() {
        let robots = Robots::parse(ROBOTS, "altflow");
        assert!(!robots.allowed("/no-altflow/x"));
        assert!(robots.allowed("/no-altflow/but-this/page"));
        // The * group does not apply once a specific group matches.
        assert!(robots.allowed("/private/x"));
    }

    #[test]
    fn star_group_longest_match_and_wildcards() {
        let robots = Robots::parse(ROBOTS, "somebot");
        assert!(!robots.allowed("/private/x"));
        assert!(robots.allowed("/private/open/y"), "longer allow wins");
        assert!(!robots.allowed("/img/a.gif"));
        assert!(robots.allowed("/img/a.gif?x=1"), "$ anchors at the end");
        assert!(robots.allowed("/public"));
        assert!(robots.allowed("/robots.txt"));
    }

    #[test]
    fn ties_go_to_allow_and_empty_disallow_allows() {
        let robots = Robots::parse("User-agent: *\nDisallow: /a\nAllow: /a\n", "x");
        assert!(robots.allowed("/a"));
        let robots = Robots::parse("User-agent: *\nDisallow:\n", "x");
        assert!(robots.allowed("/anything"));
        assert!(Robots::parse("garbage\n:::\nDisallow /x", "x").allowed("/x"));
    }

    #[test]
    fn agent_groups_match_by_product_token_only() {
        let robots = Robots::parse(
            "\u{feff}User-agent: alt\rDisallow: /a\r\rUser-agent: *\rDisallow: /b\r",
            "altflow",
        );
        // "alt" is not our product token: the * group applies, and CR-only line ends work.
        assert!(robots.allowed("/a"));
        assert!(!robots.allowed("/b"));
        let robots = Robots::parse("User-agent: AltFlow/2.0\nDisallow: /c\n", "altflow");
        assert!(!robots.allowed("/c"));
    }

    #[test]
    fn patterns() {
        assert!(pattern_matches("/a*c", "/abbbc/d"));
        assert!(!pattern_matches("/a*c$", "/abbbc/d"));
        assert!(pattern_matches("/a*c$", "/abbbc"));
        assert!(pattern_matches("*", "/anything"));
        assert!(!pattern_matches("/b", "/a/b"));
        assert_eq!(product_token("AltFlow/0.1 (+https://x)"), "altflow");
    }
}
