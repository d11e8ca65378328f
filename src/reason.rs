//! Reason codes: why a record left the pipeline. Every rejection carries one, and the funnel report and
//! the Prometheus `rejected` counter are broken down by it. Codes are a closed set so that metric labels
//! stay bounded.

use std::fmt;

/// Why a stage rejected a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Reason {
    /// The host name did not resolve.
    Dns,
    /// The TCP connection could not be made.
    Connect,
    /// The server did not answer within the configured time.
    Timeout,
    /// The TLS handshake failed (invalid certificate, not TLS at all, no common protocol).
    Tls,
    /// The server answered 4xx.
    Http4xx,
    /// The server answered 5xx.
    Http5xx,
    /// Too many redirects.
    Redirects,
    /// The address is private, loopback or link-local and not allowlisted.
    BlockedAddress,
    /// The URL is not http(s) or cannot be parsed.
    BadUrl,
    /// The body exceeded the configured size.
    TooLarge,
    /// The bytes are not a supported image format.
    NotImage,
    /// The image could not be decoded.
    DecodeError,
    /// The image has more pixels than allowed (decompression bomb guard).
    TooManyPixels,
    /// The image's shorter side is below the minimum.
    TooSmall,
    /// The image's aspect ratio exceeds the maximum.
    Aspect,
    /// The text has fewer words than the minimum.
    TooFewWords,
    /// The text has more words than the maximum.
    TooManyWords,
    /// Any other network or protocol failure.
    Network,
    /// A page is not HTML (its Content-Type says so).
    NotHtml,
    /// The crawl's scope excludes the page (per-host page limit).
    OutOfScope,
    /// robots.txt disallows the URL for our user agent.
    Robots,
    /// The page or image opts out of AI use (`X-Robots-Tag` or `<meta name="robots">` with `noai` or
    /// `noimageai`).
    NoAi,
    /// A sample reached the writer without an id or image.
    Incomplete,
    /// A sample with this id was already written.
    Duplicate,
    /// The caption is not in an accepted language.
    Language,
    /// The caption has no noun.
    NoNoun,
    /// The caption has no determiner.
    NoDeterminer,
    /// The caption has no preposition.
    NoPreposition,
    /// Too many of the caption's words repeat.
    Repetition,
    /// The caption has a rare word.
    RareWord,
    /// The caption has a word outside the vocabulary.
    OutOfVocabulary,
    /// Too many of the caption's words are outside the vocabulary.
    OovRatio,
    /// The caption holds an unwanted phrase.
    UnwantedPhrase,
    /// The caption holds a spam word.
    Spam,
    /// Too many of the caption's words are capitalised.
    Capitalization,
    /// The caption is boilerplate (a listed phrase, or too frequent).
    Boilerplate,
    /// The image's format is not accepted by the preset.
    Format,
    /// The image is not one of its page's dominant images (LAIT, `filter.dominant_only`).
    NotDominant,
    /// The same image (same SHA-256 of its bytes) was already kept with another text.
    DuplicateImage,
    /// An image within the configured perceptual-hash distance of this one was already kept.
    NearDuplicate,
    /// The image is in a test set the pipeline must not train on (a listed hash).
    TestSet,
    /// The same image came with a better-scored text, which was kept instead (seed 003's aggregation).
    BetterText,
    /// The text came with too many distinct images (seed 003's aggregation drops all of them).
    SharedText,
    /// A score failed its selection (`[score.select]`: below a threshold or outside the top share).
    LowScore,
    /// The NSFW classifier's probability is above `score.nsfw_threshold`.
    Nsfw,
    /// A scorer failed on this pair alone (an error or a panic in a model), while others scored.
    ScoreError,
    /// A page or sitemap parked until its next visit (`crawl.revisit`): a reason to go through
    /// the retry topic, never a rejection.
    Revisit,
    /// An archive file is damaged (corrupt gzip data, a malformed record, an end inside a
    /// record), or could not be read: what came before the damage was kept.
    Archive,
}

impl Reason {
    /// Whether the failure may pass if tried again later (network trouble, server errors); 429 is
    /// transient too but is an `Http4xx`, so callers check the status for it.
    pub fn is_transient(self) -> bool {
        matches!(
            self,
            Reason::Dns | Reason::Connect | Reason::Timeout | Reason::Http5xx | Reason::Network
        )
    }

    /// The stable code used in records, metrics and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Dns => "dns",
            Reason::Connect => "connect",
            Reason::Timeout => "timeout",
            Reason::Tls => "tls",
            Reason::Http4xx => "http_4xx",
            Reason::Http5xx => "http_5xx",
            Reason::Redirects => "redirects",
            Reason::BlockedAddress => "blocked_address",
            Reason::BadUrl => "bad_url",
            Reason::TooLarge => "too_large",
            Reason::NotImage => "not_image",
            Reason::DecodeError => "decode_error",
            Reason::TooManyPixels => "too_many_pixels",
            Reason::TooSmall => "too_small",
            Reason::Aspect => "aspect",
            Reason::TooFewWords => "too_few_words",
            Reason::TooManyWords => "too_many_words",
            Reason::Network => "network",
            Reason::NotHtml => "not_html",
            Reason::OutOfScope => "out_of_scope",
            Reason::Robots => "robots",
            Reason::NoAi => "noai",
            Reason::Incomplete => "incomplete",
            Reason::Duplicate => "duplicate",
            Reason::Language => "language",
            Reason::NoNoun => "no_noun",
            Reason::NoDeterminer => "no_determiner",
            Reason::NoPreposition => "no_preposition",
            Reason::Repetition => "repetition",
            Reason::RareWord => "rare_word",
            Reason::OutOfVocabulary => "out_of_vocabulary",
            Reason::OovRatio => "oov_ratio",
            Reason::UnwantedPhrase => "unwanted_phrase",
            Reason::Spam => "spam",
            Reason::Capitalization => "capitalization",
            Reason::Boilerplate => "boilerplate",
            Reason::Format => "format",
            Reason::NotDominant => "not_dominant",
            Reason::DuplicateImage => "duplicate_image",
            Reason::NearDuplicate => "near_duplicate",
            Reason::TestSet => "test_set",
            Reason::BetterText => "better_text",
            Reason::SharedText => "shared_text",
            Reason::LowScore => "low_score",
            Reason::Nsfw => "nsfw",
            Reason::ScoreError => "score_error",
            Reason::Revisit => "revisit",
            Reason::Archive => "archive",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
