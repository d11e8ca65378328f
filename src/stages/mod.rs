//! The pipeline's stages, one module each. The writer lives in [`crate::writer`].

pub mod backlog;
pub mod crawl;
pub mod dedup;
pub mod extract;
pub mod failures;
pub mod fetch;
pub mod filter;
pub mod qgen;
pub mod retry;
pub mod score;

use crate::config::RetryConfig;
use crate::record::Record;
use crate::stage::{Emitter, Failed};
use crate::web::http::FetchError;

/// The key of a record whose work is a request to one host (a page on the frontier, an accepted
/// image candidate): the URL's host, so that one stage member owns a host and its politeness limits
/// hold for the whole group, not per member.
pub fn host_key(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default()
}

/// The key a downloaded pair travels under: the SHA-256 of its original image when a dedup stage
/// follows (`by_content`: one dedup member then sees every text of an image), else its sample id.
pub(crate) fn pair_key(id: &str, sha256: &[u8], by_content: bool) -> String {
    if by_content {
        hex::encode(sha256)
    } else {
        id.to_string()
    }
}

/// Parks a record for another try when `error` is transient (network trouble, 5xx, 429) and attempts
/// remain, after the server's `Retry-After` or an exponential backoff; rejects it otherwise, with the
/// record, so that a later run can re-drive it.
/// `again(n)` builds the record with its attempt count set to `n`.
pub(crate) fn retry_or_reject<R: Record>(
    out: &mut Emitter,
    retry: &RetryConfig,
    error: FetchError,
    origin: Failed<'_>,
    attempt: u32,
    again: impl FnOnce(u32) -> R,
) {
    let failed = attempt + 1;
    let transient = error.reason.is_transient() || error.is_throttle();
    if transient && failed < retry.max_attempts {
        let delay = error
            .retry_after
            .unwrap_or_else(|| retry.delay(failed))
            .min(retry.max_delay);
        out.retry(
            origin.topic,
            origin.key,
            &again(failed),
            error.reason,
            failed,
            delay,
        );
    } else {
        // Permanent, or out of attempts: a later run may re-drive it from the start.
        out.reject_redrivable(error.reason, origin, error.detail, &again(0));
    }
}

/// For stages whose failures are not HTTP ones.
impl From<fetch::ImageRejection> for FetchError {
    fn from(rejection: fetch::ImageRejection) -> Self {
        FetchError::new(rejection.reason, rejection.detail)
    }
}
