//! HTML extraction on arbitrary bytes: never panics, and every candidate it returns is a resolved
//! http(s) URL with a non-empty alt (the invariants the crawl stage relies on).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let page_url = url::Url::parse("https://example.com/a/page.html").unwrap();
    let page = altflow::web::html::extract(data, &page_url);
    for image in &page.images {
        let candidate = altflow::web::html::candidate(image, &page, &page_url, 1);
        assert!(
            candidate.image_url.starts_with("http://") || candidate.image_url.starts_with("https://"),
            "{}",
            candidate.image_url
        );
        assert!(!candidate.alt.trim().is_empty());
    }
});
