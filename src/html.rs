//! Streaming HTML extraction: `<img>` elements with alt text, links, `<base>` and `<title>`.
//!
//! Built on lol_html, a streaming parser made for hostile input at CDN scale: pages are fed in chunks
//! and never held as a DOM. Only this issue's minimum is here (src, alt, links); srcset, lazy-load
//! attributes, captions and dominant-image features come with the full crawler.

use std::cell::RefCell;

use lol_html::{HtmlRewriter, Settings, element, text};
use url::Url;

/// An image reference found on a page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageRef {
    /// Absolute image URL.
    pub url: Url,
    /// Alt text, entities decoded and whitespace collapsed (never empty).
    pub alt: String,
}

/// What a page yields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Page {
    /// The `<title>`, whitespace collapsed.
    pub title: String,
    /// Images with non-empty alt text, deduplicated by (URL, alt), in document order.
    pub images: Vec<ImageRef>,
    /// Absolute http(s) links, deduplicated, fragments removed, in document order.
    pub links: Vec<Url>,
}

#[derive(Default)]
struct Raw {
    base: Option<String>,
    title: String,
    images: Vec<(String, String)>,
    links: Vec<String>,
}

/// Extracts images and links from `html`, resolving relative URLs against `<base href>` or `page_url`.
///
/// Malformed HTML is parsed as browsers would; the parser's own errors (which only arise from
/// internal limits) end extraction early with what was found so far.
pub fn extract(html: &[u8], page_url: &Url) -> Page {
    let raw = RefCell::new(Raw::default());
    {
        let mut rewriter = HtmlRewriter::new(
            Settings::new()
                .append_element_content_handler(element!("base[href]", |el| {
                    let mut raw = raw.borrow_mut();
                    if raw.base.is_none() {
                        raw.base = el.get_attribute("href");
                    }
                    Ok(())
                }))
                .append_element_content_handler(element!("img", |el| {
                    let alt = el.get_attribute("alt").unwrap_or_default();
                    let src = el
                        .get_attribute("src")
                        .filter(|s| !s.trim().is_empty())
                        .or_else(|| el.get_attribute("data-src"));
                    if let Some(src) = src {
                        raw.borrow_mut().images.push((src, alt));
                    }
                    Ok(())
                }))
                .append_element_content_handler(element!("a[href]", |el| {
                    if let Some(href) = el.get_attribute("href") {
                        raw.borrow_mut().links.push(href);
                    }
                    Ok(())
                }))
                .append_element_content_handler(text!("title", |chunk| {
                    raw.borrow_mut().title.push_str(chunk.as_str());
                    Ok(())
                })),
            |_: &[u8]| {},
        );
        // Feed in chunks as a network stream would arrive.
        for chunk in html.chunks(16 * 1024) {
            if rewriter.write(chunk).is_err() {
                break;
            }
        }
        let _ = rewriter.end();
    }
    let raw = raw.into_inner();

    let base = raw
        .base
        .as_deref()
        .and_then(|b| page_url.join(decode_entities(b).trim()).ok())
        .unwrap_or_else(|| page_url.clone());
    let resolve = |s: &str| -> Option<Url> {
        let s = decode_entities(s);
        let s = s.trim();
        if s.is_empty() || s.starts_with("data:") {
            return None;
        }
        let mut url = base.join(s).ok()?;
        if !matches!(url.scheme(), "http" | "https") {
            return None;
        }
        url.set_fragment(None);
        Some(url)
    };

    let mut page = Page {
        title: collapse(&decode_entities(&raw.title)),
        ..Default::default()
    };
    let mut seen_images = std::collections::HashSet::new();
    for (src, alt) in raw.images {
        let alt = collapse(&decode_entities(&alt));
        if alt.is_empty() {
            continue;
        }
        if let Some(url) = resolve(&src)
            && seen_images.insert((url.clone(), alt.clone()))
        {
            page.images.push(ImageRef { url, alt });
        }
    }
    let mut seen_links = std::collections::HashSet::new();
    for href in raw.links {
        if let Some(url) = resolve(&href)
            && seen_links.insert(url.clone())
        {
            page.links.push(url);
        }
    }
    page
}

/// Collapses runs of whitespace to one space and trims.
pub fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Decodes numeric character references and the common named entities of attribute values.
pub fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let end = rest[1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '#'))
            .map(|i| i + 1)
            .unwrap_or(rest.len());
        let name = &rest[1..end];
        let decoded = if let Some(num) = name.strip_prefix('#') {
            let code = match num.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok(),
                None => num.parse().ok(),
            };
            code.map(|c| char::from_u32(c).unwrap_or('\u{fffd}'))
        } else {
            match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => None,
            }
        };
        match decoded {
            Some(c) => {
                out.push(c);
                let consumed = if rest[end..].starts_with(';') {
                    end + 1
                } else {
                    end
                };
                rest = &rest[consumed..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(html: &str) -> Page {
        extract(
            html.as_bytes(),
            &Url::parse("http://site.test/dir/page.html").unwrap(),
        )
    }

    #[test]
    fn images_with_alt_are_resolved_and_deduplicated() {
        let p = page(
            r#"<html><head><title> My
            page </title></head><body>
            <img src="a.jpg" alt="a  red &amp; blue boat">
            <img src="/b.jpg" alt="">
            <img src="c.jpg">
            <img src="a.jpg" alt="a red &amp; blue boat">
            <img data-src="lazy.jpg" alt="lazy one">
            <img src="data:image/png;base64,AAAA" alt="inline">
            <IMG SRC="http://other.test/x.jpg#frag" ALT="upper case tags">
            </body></html>"#,
        );
        assert_eq!(p.title, "My page");
        let got: Vec<(&str, &str)> = p
            .images
            .iter()
            .map(|i| (i.url.as_str(), i.alt.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("http://site.test/dir/a.jpg", "a red & blue boat"),
                ("http://site.test/dir/lazy.jpg", "lazy one"),
                ("http://other.test/x.jpg", "upper case tags"),
            ]
        );
    }

    #[test]
    fn base_href_changes_resolution() {
        let p = page(
            r#"<head><base href="/root/"></head><img src="x.jpg" alt="x y z"><a href="next.html">n</a>"#,
        );
        assert_eq!(p.images[0].url.as_str(), "http://site.test/root/x.jpg");
        assert_eq!(p.links[0].as_str(), "http://site.test/root/next.html");
    }

    #[test]
    fn links_skip_other_schemes_and_fragments() {
        let p = page(
            r##"<a href="#top">t</a><a href="mailto:x@y">m</a><a href="javascript:1">j</a><a href="b.html#s">b</a><a href="b.html">b</a>"##,
        );
        let links: Vec<&str> = p.links.iter().map(Url::as_str).collect();
        assert_eq!(
            links,
            vec![
                "http://site.test/dir/page.html",
                "http://site.test/dir/b.html"
            ]
        );
    }

    #[test]
    fn entities_decode() {
        assert_eq!(
            decode_entities("a &lt;b&gt; &#65;&#x42; &unknown; &"),
            "a <b> AB &unknown; &"
        );
    }

    #[test]
    fn hostile_markup_does_not_panic() {
        for html in [
            "<img alt=\"x",
            "<<<<>>>>",
            "<img src=x alt='y' <a href=",
            "\u{0}\u{ffff}<title>",
            "<svg><img src=a alt=b></svg><math><a href=c>",
        ] {
            let _ = page(html);
        }
        let _ = extract(
            &[0xff, 0xfe, 0x00, 0x3c, 0x69],
            &Url::parse("http://a/").unwrap(),
        );
    }
}
