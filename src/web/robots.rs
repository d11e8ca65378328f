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

/// How much of a robots.txt is read: RFC 9309 asks crawlers to parse at least 500 KiB, and
/// Google parses the first 500 KiB and ignores the rest, as altflow does (a longer file is not an
/// error: its rules past the limit are not read).
pub const MAX_ROBOTS_BYTES: usize = 500 * 1024;

/// How long an unreachable robots.txt keeps its origin closed before it is asked for again.
const UNREACHABLE_TTL: Duration = Duration::from_secs(60);

/// One rule: whether it allows, and its path pattern (percent-encoded as [`escape_pattern`] does).
type Rule = (bool, String);

/// Longest robots.txt line read; the rest of a longer line is ignored (Google's parser keeps
/// 2,083 × 8 − 1 bytes: eight times the longest URL Internet Explorer took).
const MAX_LINE_BYTES: usize = 2083 * 8 - 1;

/// What a robots.txt line is, by its key (case-insensitive, matched as a prefix, with the
/// misspellings Google's parser accepts because site owners write them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    UserAgent,
    Allow,
    Disallow,
    /// `Crawl-delay:` (not in RFC 9309; Bing's and Yandex's meaning: seconds between requests).
    CrawlDelay,
    /// `Sitemap:`, which belongs to no group.
    Sitemap,
    /// Anything else.
    Other,
}

impl Key {
    fn of(key: &str) -> Self {
        let key = key.to_ascii_lowercase();
        let starts = |names: &[&str]| names.iter().any(|n| key.starts_with(n));
        if starts(&["user-agent", "useragent", "user agent"]) {
            Key::UserAgent
        } else if starts(&["allow"]) {
            Key::Allow
        } else if starts(&[
            "disallow",
            "dissallow",
            "dissalow",
            "disalow",
            "diasllow",
            "disallaw",
        ]) {
            Key::Disallow
        } else if starts(&["crawl-delay", "crawldelay", "crawl delay"]) {
            Key::CrawlDelay
        } else if starts(&["sitemap", "site-map"]) {
            Key::Sitemap
        } else {
            Key::Other
        }
    }
}

/// `Sitemap:` lines kept from one robots.txt; further ones are ignored.
pub const MAX_ROBOTS_SITEMAPS: usize = 64;

/// A `Crawl-delay:` value in seconds (`10`, `0.5`); `None` for anything else. Read up to a day:
/// any longer is the same as a day to a crawler capping it (`http.max_crawl_delay`).
fn crawl_delay(value: &str) -> Option<Duration> {
    let seconds: f64 = value.parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(86_400.0)))
}

/// The key and value of a line with its comment removed: `key: value`, or — for the colon
/// site owners forget — `key value` when the line is exactly two words.
fn key_and_value(line: &str) -> Option<(&str, &str)> {
    let (key, value) = match line.split_once(':') {
        Some(split) => split,
        None => {
            let (key, value) = line.split_once([' ', '\t'])?;
            let value = value.trim_start_matches([' ', '\t']);
            if value.contains([' ', '\t']) {
                return None;
            }
            (key, value)
        }
    };
    let key = key.trim();
    (!key.is_empty()).then(|| (key, value.trim()))
}

/// The product token a `User-agent:` line names: its leading letters, `-` and `_`
/// (`FooBot/1.2` and `FooBot 1.2` name `FooBot`).
fn agent_named(value: &str) -> &str {
    let end = value
        .find(|c: char| !(c.is_ascii_alphabetic() || c == '-' || c == '_'))
        .unwrap_or(value.len());
    &value[..end]
}

/// A rule's path as it is matched: bytes outside ASCII percent-encoded and existing escapes in
/// upper case, since the paths it is matched against are percent-encoded (`/поиск` becomes
/// `/%D0%BF%D0%BE%D0%B8%D1%81%D0%BA`, as in a URL).
pub fn escape_pattern(pattern: &str) -> String {
    let bytes = pattern.as_bytes();
    let mut out = String::with_capacity(pattern.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%'
            && i + 2 < bytes.len()
            && bytes[i + 1].is_ascii_hexdigit()
            && bytes[i + 2].is_ascii_hexdigit()
        {
            out.push('%');
            out.push(bytes[i + 1].to_ascii_uppercase() as char);
            out.push(bytes[i + 2].to_ascii_uppercase() as char);
            i += 3;
        } else if b >= 0x80 {
            out.push_str(&format!("%{b:02X}"));
            i += 1;
        } else {
            out.push(b as char);
            i += 1;
        }
    }
    out
}

/// The rules that apply to one user agent on one origin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Robots {
    rules: Vec<Rule>,
    /// The `Crawl-delay:` of the group that applies (the longest, if it says more than one).
    pub crawl_delay: Option<Duration>,
    /// The file's `Sitemap:` URLs, as written (at most [`MAX_ROBOTS_SITEMAPS`]).
    pub sitemaps: Vec<String>,
}

impl Robots {
    /// Rules allowing everything (no robots.txt).
    pub fn allow_all() -> Self {
        Self::default()
    }

    /// Parses `text` for the product token `agent` (e.g. `altflow`), as RFC 9309 and Google's
    /// reference parser read it.
    ///
    /// A group is one or more `User-agent:` lines and the rules after them; a `User-agent:` line
    /// after a rule starts the next group, and nothing else ends one (`Sitemap:` and unknown lines
    /// between two `User-agent:` lines keep them in one group). Rules before any `User-agent:`
    /// belong to no group. The rules of every group that names `agent` apply; if none names it,
    /// those of every `*` group; `Crawl-delay:` is read by the same groups, and `Sitemap:` lines
    /// wherever they are (they belong to no group).
    pub fn parse(text: &str, agent: &str) -> Self {
        let agent = agent.to_ascii_lowercase();
        // The group being read: whether it names `*`, whether it names us, and whether a rule
        // ended its `User-agent:` lines (the next one starts a new group).
        let (mut global, mut specific, mut ruled) = (false, false, false);
        let mut named_anywhere = false;
        let (mut ours, mut everyone): (Vec<Rule>, Vec<Rule>) = (Vec::new(), Vec::new());
        // The longest Crawl-delay of the group being read (its User-agent lines may go on after
        // it), and of the groups read so far that name us or `*`.
        let (mut group_delay, mut our_delay, mut everyones_delay) = (None, None, None);
        let mut close_group = |delay: Option<Duration>, specific: bool, global: bool| {
            if specific {
                our_delay = our_delay.max(delay);
            }
            if global {
                everyones_delay = everyones_delay.max(delay);
            }
        };
        let mut sitemaps = Vec::new();
        // RFC 9309 allows CR, LF or CRLF line ends; a UTF-8 byte order mark may lead the file.
        let text = text.trim_start_matches('\u{feff}');
        for line in text.split(['\n', '\r']) {
            let line = &line[..floor_char_boundary(line, MAX_LINE_BYTES)];
            let line = line.split('#').next().unwrap_or("").trim();
            let Some((key, value)) = key_and_value(line) else {
                continue;
            };
            match Key::of(key) {
                Key::UserAgent => {
                    if ruled {
                        close_group(group_delay, specific, global);
                        (global, specific, ruled, group_delay) = (false, false, false, None);
                    }
                    // `*` alone, or followed by a space and anything, is the global group.
                    let star = value.starts_with('*')
                        && value[1..].chars().next().is_none_or(char::is_whitespace);
                    if star {
                        global = true;
                    } else if agent_named(value).eq_ignore_ascii_case(&agent) {
                        specific = true;
                        named_anywhere = true;
                    }
                }
                rule @ (Key::Allow | Key::Disallow) => {
                    ruled = true;
                    if !(global || specific) {
                        continue;
                    }
                    // An empty rule matches nothing (it is how "allow everything" is written).
                    if value.is_empty() {
                        continue;
                    }
                    let allow = rule == Key::Allow;
                    let pattern = escape_pattern(value);
                    let rules = if specific { &mut ours } else { &mut everyone };
                    // Google's convention: allowing `/dir/index.html` (or `.htm`) allows `/dir/`.
                    if allow
                        && let Some(slash) = pattern.rfind('/')
                        && pattern[slash..].starts_with("/index.htm")
                    {
                        rules.push((true, format!("{}$", &pattern[..=slash])));
                    }
                    rules.push((allow, pattern));
                }
                Key::CrawlDelay => {
                    // Read like a rule, without ending the group's `User-agent:` lines (it is
                    // an unknown line to RFC 9309).
                    group_delay = group_delay.max(crawl_delay(value));
                }
                Key::Sitemap => {
                    if sitemaps.len() < MAX_ROBOTS_SITEMAPS && !value.is_empty() {
                        sitemaps.push(value.to_string());
                    }
                }
                Key::Other => {}
            }
        }
        close_group(group_delay, specific, global);
        Self {
            rules: if named_anywhere { ours } else { everyone },
            crawl_delay: if named_anywhere {
                our_delay
            } else {
                everyones_delay
            },
            sitemaps,
        }
    }

    /// Whether `path` (path and query of a URL, percent-encoded as a URL's) may be fetched: the
    /// longest matching rule decides, and `allow` wins a tie; no matching rule allows.
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

/// The largest index ≤ `at` that is a char boundary of `s` (`s.len()` if shorter).
fn floor_char_boundary(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    (0..=at).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
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

/// The product token of a User-Agent string, lower case: `altflow/0.1 (+url)` → `altflow`. It is
/// read as a robots.txt `User-agent:` line's name is (letters, `-`, `_`; RFC 9309 allows no more),
/// so that `MyBot2/1.0` and `User-agent: MyBot2` both name `mybot`.
pub fn product_token(user_agent: &str) -> String {
    agent_named(user_agent).to_ascii_lowercase()
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
    /// Allowed, it gives the origin's `Crawl-delay`, if its robots.txt has one for us.
    pub async fn check(&self, url: &str) -> Result<Option<Duration>, FetchError> {
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
                    Ok(robots.crawl_delay)
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

    /// The `Sitemap:` URLs of `origin`'s robots.txt (`https://host:port`); none when it has no
    /// robots.txt or it could not be read.
    pub async fn sitemaps(&self, origin: &str) -> Vec<String> {
        match &*self.verdict(origin).await {
            Verdict::Rules(robots) => robots.sitemaps.clone(),
            Verdict::Unreachable(_) => Vec::new(),
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
                .get_prefix(&format!("{origin}/robots.txt"), MAX_ROBOTS_BYTES)
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
                // Unreachable (5xx, network): RFC 9309 treats an unreachable robots.txt as a
                // complete disallow.
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
    fn crawl_delay_is_read_from_the_group_that_applies_and_sitemaps_from_anywhere() {
        let text = "Sitemap: https://example.com/a.xml\n\
                    User-agent: altflow\nCrawl-delay: 5\nDisallow: /x\n\n\
                    User-agent: *\nCrawl-delay: 1.5\n\
                    sitemap: https://example.com/b.xml.gz\n";
        let ours = Robots::parse(text, "altflow");
        assert_eq!(ours.crawl_delay, Some(Duration::from_secs(5)));
        assert_eq!(
            ours.sitemaps,
            ["https://example.com/a.xml", "https://example.com/b.xml.gz"]
        );
        let theirs = Robots::parse(text, "otherbot");
        assert_eq!(theirs.crawl_delay, Some(Duration::from_millis(1500)));
        // Not a number, negative: ignored. No Crawl-delay: none.
        for line in [
            "Crawl-delay: soon",
            "Crawl-delay: -3",
            "Crawl-delay: NaN",
            "",
        ] {
            let robots = Robots::parse(&format!("User-agent: *\n{line}\n"), "x");
            assert_eq!(robots.crawl_delay, None, "{line}");
        }
        // Like an unknown line, it does not end the group's User-agent lines: both agents get
        // the delay and the rule.
        let robots = Robots::parse(
            "User-agent: a\nCrawl-delay: 3\nUser-agent: altflow\nDisallow: /y\n",
            "altflow",
        );
        assert_eq!(robots.crawl_delay, Some(Duration::from_secs(3)));
        assert!(!robots.allowed("/y"));
        // Sitemap lines past the limit are ignored.
        let many: String = (0..100)
            .map(|i| format!("Sitemap: https://e.com/{i}.xml\n"))
            .collect();
        assert_eq!(
            Robots::parse(&many, "x").sitemaps.len(),
            MAX_ROBOTS_SITEMAPS
        );
    }

    #[test]
    fn patterns() {
        assert!(pattern_matches("/a*c", "/abbbc/d"));
        assert!(!pattern_matches("/a*c$", "/abbbc/d"));
        assert!(pattern_matches("/a*c$", "/abbbc"));
        assert!(pattern_matches("*", "/anything"));
        assert!(!pattern_matches("/b", "/a/b"));
        assert_eq!(product_token("AltFlow/0.1 (+https://x)"), "altflow");
        // A name with digits (not a product token by RFC 9309) still finds its group.
        let robots = Robots::parse(
            "User-agent: MyBot2\nDisallow: /x\n",
            &product_token("MyBot2/1.0"),
        );
        assert!(!robots.allowed("/x/y"));
    }
}
