//! Streaming HTML extraction: image candidates with their text and layout features, and links.
//!
//! Built on lol_html, a streaming parser made for hostile input at CDN scale: pages are fed in chunks
//! and never held as a DOM. For every `<img>` it records the URL (`src`, the widest `srcset` entry, or a
//! lazy-load attribute), the alt and title text, the enclosing `<figure>`'s caption, bounded text around
//! the image, and the features used to tell the page's dominant images from decoration (LAIT, seed 003:
//! "detect dominant images by HTML tags and DOM tree features"): declared size, position, whether it sits
//! in navigation/header/footer/aside or inside a link.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use lol_html::{HtmlRewriter, Settings, element, text};
use url::Url;

use crate::record::{Candidate, sample_id};

/// Dominance score from which an image counts as the page's content.
pub const DOMINANT: f32 = 0.5;

/// Characters of text kept on each side of an image as its context.
pub const CONTEXT_CHARS: usize = 200;

/// Attributes that lazy-loading scripts use instead of `src`, in order of preference.
const LAZY_SRC: [&str; 4] = ["data-src", "data-lazy-src", "data-original", "data-url"];

/// An image reference found on a page.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageRef {
    /// Absolute image URL.
    pub url: Url,
    /// Alt text, entities decoded and whitespace collapsed (never empty).
    pub alt: String,
    /// The `title` attribute.
    pub title: String,
    /// Text of the enclosing `<figure>`'s `<figcaption>`.
    pub figcaption: String,
    /// Up to [`CONTEXT_CHARS`] characters of visible text before and after the image.
    pub context: String,
    /// Declared `width` attribute in pixels (0 when absent or not a plain number).
    pub declared_width: u32,
    /// Declared `height` attribute in pixels.
    pub declared_height: u32,
    /// Position among the page's `<img>` elements, from 0.
    pub position: u32,
    /// Inside `<nav>`, `<header>`, `<footer>` or `<aside>`.
    pub in_boilerplate: bool,
    /// Inside an `<a>` element.
    pub in_link: bool,
    /// Dominance score in [0, 1], see [`dominance`].
    pub dominance: f32,
}

/// What a page yields.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Page {
    /// The `<title>`, whitespace collapsed.
    pub title: String,
    /// The `lang` attribute of `<html>`, lower-cased (empty when absent).
    pub language: String,
    /// Images with non-empty alt text, deduplicated by (URL, alt), in document order. Images that
    /// cannot carry a training sample are left out: `data:` URIs, SVG, and tracking pixels
    /// (declared 2×2 or smaller).
    pub images: Vec<ImageRef>,
    /// Absolute http(s) links, deduplicated, fragments removed, in document order.
    pub links: Vec<Url>,
    /// The contents of `<meta name="robots">` elements, joined with commas.
    pub robots: String,
}

/// Layout features of an image, as far as the HTML tells them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Layout {
    /// Declared width (0: unknown).
    pub width: u32,
    /// Declared height (0: unknown).
    pub height: u32,
    /// Inside navigation, header, footer or aside.
    pub in_boilerplate: bool,
    /// Inside a link.
    pub in_link: bool,
    /// Pages of the same site the image was seen on so far (1: only this one).
    pub pages_seen: u32,
}

/// How likely an image is the page's content rather than decoration, in [0, 1].
///
/// A transparent heuristic over the features LAIT names (seed 003): declared size against the 300 px
/// side LAIT requires (unknown size is neutral), placement in navigation/header/footer/aside, being a
/// link to another page, and repetition across the site's pages (logos, badges). Images scoring at
/// least [`DOMINANT`] are flagged dominant. A picture inside a link to another page is a teaser of
/// that page far more often than the page's subject (real news pages, `scripts/quality_report.py`:
/// with ×0.8 for a link the flag's precision was 0.59, with ×0.45 0.70 at a recall of 0.94), so a
/// link alone takes even a large image below the threshold.
pub fn dominance(layout: &Layout) -> f32 {
    let size = if layout.width > 0 && layout.height > 0 {
        let short = layout.width.min(layout.height) as f32;
        0.2 + 0.8 * (short / 300.0).min(1.0)
    } else {
        0.6
    };
    let mut score = size;
    if layout.in_boilerplate {
        score *= 0.4;
    }
    if layout.in_link {
        score *= 0.45;
    }
    if layout.pages_seen >= 3 {
        score *= 0.4;
    }
    score.clamp(0.0, 1.0)
}

/// Raw findings, before URL resolution.
#[derive(Default)]
struct Raw {
    base: Option<String>,
    title: String,
    language: String,
    images: Vec<RawImage>,
    links: Vec<String>,
    robots: String,
    /// Open nav/header/footer/aside elements.
    boilerplate_depth: u32,
    /// Open `<a>` elements.
    link_depth: u32,
    /// Open figures: the images inside each, and its caption so far.
    figures: Vec<(Vec<usize>, String)>,
    img_count: u32,
}

struct RawImage {
    src: String,
    alt: String,
    title: String,
    figcaption: String,
    /// Byte offset of the `<img>` tag in the document, where its surrounding text is cut.
    at: usize,
    width: u32,
    height: u32,
    position: u32,
    in_boilerplate: bool,
    in_link: bool,
}

/// Elements whose content is not body text; the same ones lol_html's tokenizer treats as raw text
/// (or that hold metadata).
const HIDDEN: [&[u8]; 5] = [b"script", b"style", b"noscript", b"template", b"title"];

/// A document's visible text (outside tags, comments and [`HIDDEN`] elements) with where each run of
/// it starts in the document, so that the text around any element is a lookup. Built in one pass of
/// a small scanner: much cheaper than having the HTML parser capture every text node.
struct VisibleText {
    text: String,
    /// (document offset, text offset) where each run of text starts, both increasing.
    runs: Vec<(usize, usize)>,
}

impl VisibleText {
    fn scan(html: &[u8]) -> Self {
        let mut text = String::new();
        let mut runs = Vec::new();
        let mut i = 0;
        let n = html.len();
        while i < n {
            let lt = html[i..]
                .iter()
                .position(|&b| b == b'<')
                .map_or(n, |p| i + p);
            if lt > i {
                runs.push((i, text.len()));
                text.push_str(&String::from_utf8_lossy(&html[i..lt]));
            }
            i = lt;
            if i >= n {
                break;
            }
            let rest = &html[i + 1..];
            i = match rest.first() {
                Some(b'!') if rest.starts_with(b"!--") => {
                    find(html, i + 4, b"-->").map_or(n, |end| end + 3)
                }
                Some(&c) if c.is_ascii_alphabetic() || matches!(c, b'/' | b'!' | b'?') => {
                    let end = tag_end(html, i + 1);
                    let name: Vec<u8> = rest
                        .iter()
                        .take_while(|b| b.is_ascii_alphanumeric())
                        .map(u8::to_ascii_lowercase)
                        .collect();
                    if HIDDEN.contains(&name.as_slice()) {
                        // Skip to the element's end tag (case-insensitive), or the document's end.
                        let mut close = b"</".to_vec();
                        close.extend_from_slice(&name);
                        find_ignore_case(html, end, &close).map_or(n, |at| tag_end(html, at + 1))
                    } else {
                        end
                    }
                }
                // A `<` that starts no tag is text.
                _ => {
                    runs.push((i, text.len()));
                    text.push('<');
                    i + 1
                }
            };
        }
        Self { text, runs }
    }

    /// Up to [`CONTEXT_CHARS`] characters of visible text before document offset `at` (the start
    /// of a tag), and up to as many after it.
    fn around(&self, at: usize) -> (&str, &str) {
        let next = self.runs.partition_point(|(doc, _)| *doc < at);
        let split = self.runs.get(next).map_or(self.text.len(), |(_, t)| *t);
        let (before, after) = self.text.split_at(split);
        let start = before
            .char_indices()
            .rev()
            .nth(CONTEXT_CHARS - 1)
            .map_or(0, |(i, _)| i);
        let end = after
            .char_indices()
            .nth(CONTEXT_CHARS)
            .map_or(after.len(), |(i, _)| i);
        (&before[start..], &after[..end])
    }
}

/// The offset just past the `>` closing the tag whose name starts at `from`, with quoted attribute
/// values skipped (an `alt="a > b"` does not end the tag); the document's end if there is none.
fn tag_end(html: &[u8], from: usize) -> usize {
    let mut quote = None;
    for (i, &b) in html.iter().enumerate().skip(from) {
        match (quote, b) {
            (None, b'>') => return i + 1,
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            _ => {}
        }
    }
    html.len()
}

/// Where `needle` next occurs in `html` from `from`.
fn find(html: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    html.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// Where `needle` (lower-case) next occurs in `html` from `from`, ignoring ASCII case.
fn find_ignore_case(html: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    html.get(from..)?
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|p| from + p)
}

/// The widest candidate of a `srcset` (by `w` descriptor, else `x` density), or None.
///
/// Parsed as the HTML standard does: a URL is a run of non-whitespace (so it may contain commas, as
/// image-CDN URLs do), then descriptors up to the next comma.
pub fn widest_in_srcset(srcset: &str) -> Option<String> {
    let mut candidates: Vec<(String, f32)> = Vec::new();
    let mut rest = srcset;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if rest.is_empty() {
            break;
        }
        let url_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let mut url = &rest[..url_end];
        rest = &rest[url_end..];
        let descriptor = if url.ends_with(',') {
            // "a.jpg, b.jpg 2x": a trailing comma ends a candidate without descriptors.
            url = url.trim_end_matches(',');
            ""
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            let descriptor = rest[..end].trim();
            rest = &rest[end..];
            descriptor
        };
        let weight = match descriptor.split_whitespace().next() {
            Some(d) if d.ends_with('w') => d.trim_end_matches('w').parse::<f32>().ok(),
            // Densities rank below any width, but among themselves by density.
            Some(d) if d.ends_with('x') => {
                d.trim_end_matches('x').parse::<f32>().ok().map(|x| x / 1e6)
            }
            _ => Some(1e-6),
        };
        if let (false, Some(weight)) = (url.is_empty(), weight) {
            candidates.push((url.to_string(), weight));
        }
    }
    candidates
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(url, _)| url)
}

/// A plain pixel count from an attribute (`640` or `640px`); 0 otherwise.
fn pixels(value: Option<String>) -> u32 {
    value
        .map(|v| v.trim().trim_end_matches("px").trim().to_string())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Extracts images and links from `html`, resolving relative URLs against `<base href>` or `page_url`.
///
/// Malformed HTML is parsed as browsers would; the parser's own errors (which only arise from
/// internal limits) end extraction early with what was found so far.
pub fn extract(html: &[u8], page_url: &Url) -> Page {
    let raw = Rc::new(RefCell::new(Raw::default()));
    {
        // End-tag handlers must be 'static, so they hold their own handle on the state.
        let depth_counter = |field: fn(&mut Raw) -> &mut u32| {
            let raw = raw.clone();
            move |el: &mut lol_html::html_content::Element<'_, '_>| {
                *field(&mut raw.borrow_mut()) += 1;
                let raw = raw.clone();
                if let Some(handlers) = el.end_tag_handlers() {
                    handlers.push(Box::new(move |_| {
                        let mut raw = raw.borrow_mut();
                        let depth = field(&mut raw);
                        *depth = depth.saturating_sub(1);
                        Ok(())
                    }));
                } else {
                    // No end tag will come (void or self-closing): nothing to count.
                    let mut raw = raw.borrow_mut();
                    let depth = field(&mut raw);
                    *depth = depth.saturating_sub(1);
                }
                Ok(())
            }
        };
        let figure_raw = raw.clone();
        let links_raw = raw.clone();
        let link_depth = depth_counter(|r| &mut r.link_depth);
        let mut rewriter = HtmlRewriter::new(
            Settings::new()
                .append_element_content_handler(element!("html[lang]", |el| {
                    raw.borrow_mut().language = el
                        .get_attribute("lang")
                        .unwrap_or_default()
                        .trim()
                        .to_lowercase();
                    Ok(())
                }))
                .append_element_content_handler(element!("meta[name][content]", |el| {
                    let name = el
                        .get_attribute("name")
                        .unwrap_or_default()
                        .to_ascii_lowercase();
                    if name == "robots" {
                        let mut raw = raw.borrow_mut();
                        let content = el.get_attribute("content").unwrap_or_default();
                        if !raw.robots.is_empty() {
                            raw.robots.push(',');
                        }
                        raw.robots.push_str(&decode_entities(&content));
                    }
                    Ok(())
                }))
                .append_element_content_handler(element!("base[href]", |el| {
                    let mut raw = raw.borrow_mut();
                    if raw.base.is_none() {
                        raw.base = el.get_attribute("href");
                    }
                    Ok(())
                }))
                .append_element_content_handler(element!(
                    "nav, header, footer, aside",
                    depth_counter(|r| &mut r.boilerplate_depth)
                ))
                // One handler for links and link depth: each selector costs a match per element.
                .append_element_content_handler(element!("a", move |el| {
                    let href = el.get_attribute("href");
                    // A link to an image file opens the picture's full-size version: the image is
                    // the page's content, not a way to another page.
                    let zoom = href.as_deref().is_some_and(is_image_file);
                    if let Some(href) = href {
                        links_raw.borrow_mut().links.push(href);
                    }
                    if zoom { Ok(()) } else { link_depth(el) }
                }))
                .append_element_content_handler(element!("figure", move |el| {
                    figure_raw
                        .borrow_mut()
                        .figures
                        .push((Vec::new(), String::new()));
                    let raw = figure_raw.clone();
                    let close = move || {
                        let mut raw = raw.borrow_mut();
                        if let Some((images, caption)) = raw.figures.pop() {
                            let caption = crate::web::html::collapse(&decode_entities(&caption));
                            for i in images {
                                raw.images[i].figcaption = caption.clone();
                            }
                        }
                    };
                    match el.end_tag_handlers() {
                        Some(handlers) => {
                            let handler: lol_html::EndTagHandler<'static> = Box::new(move |_| {
                                close();
                                Ok(())
                            });
                            handlers.push(handler);
                        }
                        None => close(),
                    }
                    Ok(())
                }))
                .append_element_content_handler(element!("img", |el| {
                    // The widest srcset rendition first, then src, then lazy-load attributes.
                    let src = el
                        .get_attribute("srcset")
                        .and_then(|s| widest_in_srcset(&s))
                        .or_else(|| {
                            el.get_attribute("src").filter(|s| {
                                !s.trim().is_empty() && !s.trim_start().starts_with("data:")
                            })
                        })
                        .or_else(|| LAZY_SRC.iter().find_map(|a| el.get_attribute(a)))
                        .or_else(|| {
                            el.get_attribute("data-srcset")
                                .and_then(|s| widest_in_srcset(&s))
                        });
                    let mut raw = raw.borrow_mut();
                    let position = raw.img_count;
                    raw.img_count += 1;
                    let Some(src) = src else {
                        return Ok(());
                    };
                    let index = raw.images.len();
                    let image = RawImage {
                        src,
                        alt: el.get_attribute("alt").unwrap_or_default(),
                        title: el.get_attribute("title").unwrap_or_default(),
                        figcaption: String::new(),
                        at: el.source_location().bytes().start,
                        width: pixels(el.get_attribute("width")),
                        height: pixels(el.get_attribute("height")),
                        position,
                        in_boilerplate: raw.boilerplate_depth > 0,
                        in_link: raw.link_depth > 0,
                    };
                    raw.images.push(image);
                    if let Some((images, _)) = raw.figures.last_mut() {
                        images.push(index);
                    }
                    Ok(())
                }))
                .append_element_content_handler(text!("title", |chunk| {
                    raw.borrow_mut().title.push_str(chunk.as_str());
                    Ok(())
                }))
                // Only caption text is captured while parsing: capturing every text node (for the
                // surrounding text) made lol_html re-serialise them all, a fifth of its time. The
                // surrounding text comes from one cheap pass instead (`VisibleText`).
                .append_element_content_handler(text!("figcaption", |chunk| {
                    if let Some((_, caption)) = raw.borrow_mut().figures.last_mut() {
                        caption.push_str(chunk.as_str());
                    }
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
    let raw = std::mem::take(&mut *raw.borrow_mut());
    // Only needed for images that have alt text.
    let text = if raw.images.iter().any(|i| !i.alt.trim().is_empty()) {
        VisibleText::scan(html)
    } else {
        VisibleText {
            text: String::new(),
            runs: Vec::new(),
        }
    };

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
        language: raw.language,
        robots: raw.robots,
        ..Default::default()
    };
    let mut seen_images = HashSet::new();
    for image in raw.images {
        let alt = collapse(&decode_entities(&image.alt));
        if alt.is_empty() {
            continue;
        }
        let tracking_pixel =
            image.width > 0 && image.height > 0 && image.width <= 2 && image.height <= 2;
        let Some(url) = resolve(&image.src) else {
            continue;
        };
        if tracking_pixel || url.path().to_ascii_lowercase().ends_with(".svg") {
            continue;
        }
        if !seen_images.insert((url.clone(), alt.clone())) {
            continue;
        }
        let layout = Layout {
            width: image.width,
            height: image.height,
            in_boilerplate: image.in_boilerplate,
            in_link: image.in_link,
            pages_seen: 1,
        };
        let (before, after) = text.around(image.at);
        let context = collapse(&decode_entities(&format!("{before} {after}")));
        page.images.push(ImageRef {
            url,
            alt,
            title: collapse(&decode_entities(&image.title)),
            figcaption: image.figcaption,
            context,
            declared_width: image.width,
            declared_height: image.height,
            position: image.position,
            in_boilerplate: image.in_boilerplate,
            in_link: image.in_link,
            dominance: dominance(&layout),
        });
    }
    let mut seen_links = HashSet::new();
    for href in raw.links {
        if let Some(url) = resolve(&href)
            && seen_links.insert(url.clone())
        {
            page.links.push(url);
        }
    }
    page
}

/// The candidate record for `image` found on `page` at `page_url`, whose image was seen on
/// `pages_seen` pages of the site so far (dominance is recomputed with it).
pub fn candidate(image: &ImageRef, page: &Page, page_url: &Url, pages_seen: u32) -> Candidate {
    let layout = Layout {
        width: image.declared_width,
        height: image.declared_height,
        in_boilerplate: image.in_boilerplate,
        in_link: image.in_link,
        pages_seen,
    };
    let score = dominance(&layout);
    Candidate {
        id: sample_id(image.url.as_str(), &image.alt),
        page_url: page_url.to_string(),
        image_url: image.url.to_string(),
        alt: image.alt.clone(),
        page_title: page.title.clone(),
        depth: 0,
        image_title: image.title.clone(),
        figcaption: image.figcaption.clone(),
        context: image.context.clone(),
        page_language: page.language.clone(),
        declared_width: image.declared_width,
        declared_height: image.declared_height,
        position: image.position,
        in_boilerplate: image.in_boilerplate,
        in_link: image.in_link,
        pages_seen,
        dominance: score,
        dominant: score >= DOMINANT,
        attempt: 0,
        caption: String::new(),
    }
}

/// Whether `href` names an image file (by its path's extension, query and fragment aside).
fn is_image_file(href: &str) -> bool {
    let path = href
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    [".jpg", ".jpeg", ".png", ".gif", ".webp"]
        .iter()
        .any(|ext| path.ends_with(ext))
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

    fn urls(p: &Page) -> Vec<(&str, &str)> {
        p.images
            .iter()
            .map(|i| (i.url.as_str(), i.alt.as_str()))
            .collect()
    }

    #[test]
    fn images_with_alt_are_resolved_and_deduplicated() {
        let p = page(
            r#"<html lang="EN-gb"><head><title> My
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
        assert_eq!(p.language, "en-gb");
        assert_eq!(p.robots, "");
        let q = page(
            r#"<meta name="Robots" content="noindex"><meta name="robots" content="noimageai">"#,
        );
        assert_eq!(q.robots, "noindex,noimageai");
        assert_eq!(
            urls(&p),
            vec![
                ("http://site.test/dir/a.jpg", "a red & blue boat"),
                ("http://site.test/dir/lazy.jpg", "lazy one"),
                ("http://other.test/x.jpg", "upper case tags"),
            ]
        );
        // Positions count every <img>, kept or not.
        let positions: Vec<u32> = p.images.iter().map(|i| i.position).collect();
        assert_eq!(positions, vec![0, 4, 6]);
    }

    #[test]
    fn srcset_lazy_attributes_and_non_photos() {
        let p = page(
            r#"<img src="small.jpg" srcset="small.jpg 320w, big.jpg 1280w, mid.jpg 640w" alt="wide pick">
            <img srcset="a1.jpg 1x, a2.jpg 2x" alt="density pick">
            <img src="data:image/gif;base64,R0lG" data-lazy-src="real.jpg" alt="lazy behind a placeholder">
            <img src="logo.svg" alt="vector logo">
            <img src="pixel.gif" width="1" height="1" alt="tracking pixel">"#,
        );
        assert_eq!(
            urls(&p),
            vec![
                ("http://site.test/dir/big.jpg", "wide pick"),
                ("http://site.test/dir/a2.jpg", "density pick"),
                ("http://site.test/dir/real.jpg", "lazy behind a placeholder"),
            ]
        );
        assert_eq!(widest_in_srcset("x.jpg"), Some("x.jpg".into()));
        assert_eq!(widest_in_srcset(" , "), None);
        assert_eq!(
            widest_in_srcset(
                "https://cdn.test/w_300,c_fill/a.jpg 300w, https://cdn.test/w_900,c_fill/a.jpg 900w"
            ),
            Some("https://cdn.test/w_900,c_fill/a.jpg".into())
        );
        assert_eq!(widest_in_srcset("a.jpg, b.jpg 2x"), Some("b.jpg".into()));
    }

    #[test]
    fn captions_context_and_title() {
        let p = page(
            r#"<p>Before the picture we talk about boats.</p>
            <script>var hidden = "not visible text";</script>
            <figure><img src="boat.jpg" alt="a boat" title="Boat &amp; sea">
            <figcaption>A red boat at <b>sunset</b>.</figcaption></figure>
            <p>After the picture, more about the harbour.</p>"#,
        );
        let image = &p.images[0];
        assert_eq!(image.title, "Boat & sea");
        assert_eq!(image.figcaption, "A red boat at sunset.");
        assert!(
            image
                .context
                .starts_with("Before the picture we talk about boats."),
            "{}",
            image.context
        );
        assert!(
            image.context.contains("After the picture"),
            "{}",
            image.context
        );
        assert!(!image.context.contains("not visible"), "{}", image.context);
    }

    #[test]
    fn visible_text_skips_markup_comments_and_hidden_elements() {
        let text = |html: &str| VisibleText::scan(html.as_bytes()).text;
        assert_eq!(text(r#"<p title="a > b" class='c>d'>x</p>"#), "x");
        assert_eq!(text("<!-- <img src=a> -->y<!---->"), "y");
        assert_eq!(text(r#"<SCRIPT>var a = "<p>";</SCRIPT >z"#), "z");
        assert_eq!(text("1 < 2 and 3 > 2"), "1 < 2 and 3 > 2");
        assert_eq!(
            text("<style>p{}</style><title>T</title><!DOCTYPE html>body"),
            "body"
        );
        assert_eq!(text("a<script>never closed"), "a");
        assert_eq!(text("<p unterminated=\"x>lost"), "");
        assert_eq!(text("é<b>ü</b>\u{1F600}"), "éü\u{1F600}");
    }

    #[test]
    fn text_around_an_offset_is_bounded_by_characters() {
        let html = format!(
            "<p>{}</p><img src=a><p>{}</p>",
            "é".repeat(300),
            "ü".repeat(300)
        );
        let at = html.find("<img").unwrap();
        let visible = VisibleText::scan(html.as_bytes());
        let (before, after) = visible.around(at);
        assert_eq!(before, "é".repeat(CONTEXT_CHARS));
        assert_eq!(after, "ü".repeat(CONTEXT_CHARS));
        let (before, after) = visible.around(0);
        assert_eq!((before, after.chars().count()), ("", CONTEXT_CHARS));
    }

    #[test]
    fn context_is_bounded() {
        let long = "word ".repeat(500);
        let p = page(&format!(
            "<p>{long}</p><img src=a.jpg alt='x y z'><p>{long}</p>"
        ));
        assert!(p.images[0].context.chars().count() <= 2 * CONTEXT_CHARS + 1);
    }

    #[test]
    fn layout_features_and_dominance() {
        let p = page(
            r#"<header><a href="/"><img src="logo.png" width="120" height="40" alt="site logo"></a></header>
            <nav><img src="icon.png" alt="menu icon"></nav>
            <article><img src="photo.jpg" width="800" height="600" alt="the article photo"></article>
            <footer><img src="badge.png" width="88" height="31" alt="valid html badge"></footer>"#,
        );
        let by_alt = |alt: &str| p.images.iter().find(|i| i.alt == alt).unwrap().clone();
        let logo = by_alt("site logo");
        assert!(logo.in_boilerplate && logo.in_link);
        assert_eq!((logo.declared_width, logo.declared_height), (120, 40));
        let photo = by_alt("the article photo");
        assert!(!photo.in_boilerplate && !photo.in_link);
        assert!(photo.dominance >= 0.5, "{}", photo.dominance);
        for other in ["site logo", "menu icon", "valid html badge"] {
            assert!(
                by_alt(other).dominance < 0.5,
                "{other}: {}",
                by_alt(other).dominance
            );
        }
        // Repetition across a site demotes even a large image.
        let repeated = Layout {
            width: 800,
            height: 600,
            pages_seen: 5,
            ..Layout::default()
        };
        assert!(dominance(&repeated) < 0.5);
        // A link to the picture's full-size file is not navigation; a link to a page is.
        let p = page(
            r#"<a href="/img/large/pompeo.JPG?v=2"><img src="pompeo.jpg" alt="the zoomable photo"></a>
            <a href="/story/2"><img src="teaser.jpg" alt="another story"></a>"#,
        );
        assert!(!p.images[0].in_link && p.images[0].dominance >= 0.5);
        assert!(p.images[1].in_link);
        assert_eq!(p.links.len(), 2);
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
            "<figure><figure><img src=a alt=b></figure>",
            "</nav></nav></a><img src=a alt=b>",
        ] {
            let _ = page(html);
        }
        let _ = extract(
            &[0xff, 0xfe, 0x00, 0x3c, 0x69],
            &Url::parse("http://a/").unwrap(),
        );
    }
}
