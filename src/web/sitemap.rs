//! Sitemaps (sitemaps.org): a site's own list of its pages, read as a source of page URLs.
//!
//! A sitemap is an XML `<urlset>` of `<url><loc>…</loc><lastmod>…</lastmod></url>` entries, a
//! sitemap index (`<sitemapindex>` of `<sitemap><loc>…</loc></sitemap>` entries pointing to more
//! sitemaps), or plain text with one URL a line; any of them may be gzip-compressed (`.xml.gz`).
//! The protocol caps a file at 50,000 URLs and 50 MB uncompressed; altflow reads at most its own
//! limits of both, streaming (the decompressed text is never held whole), and keeps what it read up
//! to a limit or to damage in the file, saying so.

use std::io::{BufRead, BufReader, Read};

use quick_xml::events::Event;

/// One entry: a page of a `<urlset>` or a sitemap of an index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// `<loc>`, as written (entities resolved, whitespace trimmed).
    pub url: String,
    /// `<lastmod>` (W3C datetime) as written; empty when the entry has none.
    pub lastmod: String,
}

/// What one sitemap file lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sitemap {
    /// Pages (`<urlset>` entries, or the lines of a text sitemap).
    pub pages: Vec<Entry>,
    /// More sitemaps (`<sitemapindex>` entries).
    pub sitemaps: Vec<Entry>,
    /// Why the file was not read to its end, if it was not: a limit reached, or damage (a
    /// truncated gzip stream, malformed XML). What came before is kept.
    pub incomplete: Option<String>,
}

/// Reads the sitemap in `body` (gzip-compressed or not): at most `max_bytes` of its decompressed
/// text and `max_entries` entries.
pub fn parse(body: &[u8], max_bytes: usize, max_entries: usize) -> Sitemap {
    let mut out = Sitemap::default();
    let mut reader: Box<dyn BufRead> = if body.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::new(LimitedReader::new(
            flate2::read::MultiGzDecoder::new(body),
            max_bytes,
        )))
    } else {
        Box::new(BufReader::new(LimitedReader::new(body, max_bytes)))
    };
    // XML starts with `<` (after a byte-order mark and blank space); anything else is the text
    // format.
    let xml = match first_significant_byte(&mut reader) {
        Ok(Some(byte)) => byte == b'<',
        Ok(None) => return out,
        Err(error) => {
            out.incomplete = Some(format!("unreadable: {error}"));
            return out;
        }
    };
    let problem = if xml {
        read_xml(reader, max_entries, &mut out)
    } else {
        read_text(reader, max_entries, &mut out)
    };
    out.incomplete = problem;
    out
}

/// Skips a UTF-8 byte-order mark and whitespace; the next byte, not consumed.
fn first_significant_byte(reader: &mut dyn BufRead) -> std::io::Result<Option<u8>> {
    loop {
        let buffer = reader.fill_buf()?;
        let Some(&byte) = buffer.first() else {
            return Ok(None);
        };
        if buffer.starts_with(&[0xef, 0xbb, 0xbf]) {
            reader.consume(3);
        } else if byte.is_ascii_whitespace() {
            reader.consume(1);
        } else {
            return Ok(Some(byte));
        }
    }
}

/// The text format: one absolute URL a line.
fn read_text(reader: impl BufRead, max_entries: usize, out: &mut Sitemap) -> Option<String> {
    for line in reader.split(b'\n') {
        let line = match line {
            Ok(line) => line,
            Err(error) => return Some(error.to_string()),
        };
        let url = String::from_utf8_lossy(&line).trim().to_string();
        if url.is_empty() {
            continue;
        }
        if out.pages.len() >= max_entries {
            return Some(format!("more than {max_entries} entries"));
        }
        out.pages.push(Entry {
            url,
            lastmod: String::new(),
        });
    }
    None
}

/// Which element's text is being read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    None,
    Loc,
    Lastmod,
}

/// The XML formats, `<urlset>` and `<sitemapindex>`, by local names (any namespace prefix).
fn read_xml(reader: impl BufRead, max_entries: usize, out: &mut Sitemap) -> Option<String> {
    let mut xml = quick_xml::Reader::from_reader(reader);
    let mut buffer = Vec::new();
    // The entry being read (`url` or `sitemap` element open), and which of its fields.
    let mut entry: Option<(bool, Entry)> = None;
    let mut field = Field::None;
    loop {
        let event = match xml.read_event_into(&mut buffer) {
            Ok(event) => event,
            Err(error) => {
                return Some(format!(
                    "malformed XML at byte {}: {error}",
                    xml.buffer_position()
                ));
            }
        };
        match event {
            Event::Start(element) => match element.local_name().as_ref() {
                b"url" => entry = Some((false, Entry::default())),
                b"sitemap" => entry = Some((true, Entry::default())),
                b"loc" if entry.is_some() => field = Field::Loc,
                b"lastmod" if entry.is_some() => field = Field::Lastmod,
                _ => field = Field::None,
            },
            Event::End(element) => match element.local_name().as_ref() {
                b"url" | b"sitemap" => {
                    if let Some((index, mut done)) = entry.take() {
                        done.url = done.url.trim().to_string();
                        done.lastmod = done.lastmod.trim().to_string();
                        if done.url.is_empty() {
                            continue;
                        }
                        if out.pages.len() + out.sitemaps.len() >= max_entries {
                            return Some(format!("more than {max_entries} entries"));
                        }
                        if index {
                            out.sitemaps.push(done);
                        } else {
                            out.pages.push(done);
                        }
                    }
                }
                _ => field = Field::None,
            },
            Event::Text(text) => push(&mut entry, field, &text.decode().unwrap_or_default()),
            Event::CData(text) => push(&mut entry, field, &text.decode().unwrap_or_default()),
            Event::GeneralRef(reference) => {
                let resolved = match reference.resolve_char_ref() {
                    Ok(Some(c)) => Some(c),
                    _ => match &*reference {
                        b"amp" => Some('&'),
                        b"lt" => Some('<'),
                        b"gt" => Some('>'),
                        b"quot" => Some('"'),
                        b"apos" => Some('\''),
                        _ => None,
                    },
                };
                if let Some(c) = resolved {
                    push(&mut entry, field, c.encode_utf8(&mut [0; 4]));
                }
            }
            Event::Eof => return None,
            _ => {}
        }
        buffer.clear();
    }
}

/// Appends `text` to the open entry's `field`.
fn push(entry: &mut Option<(bool, Entry)>, field: Field, text: &str) {
    let Some((_, entry)) = entry else { return };
    // A URL is at most a few KiB; a `<loc>` longer than that is junk, not a longer URL.
    const MAX_FIELD: usize = 8 * 1024;
    let target = match field {
        Field::Loc => &mut entry.url,
        Field::Lastmod => &mut entry.lastmod,
        Field::None => return,
    };
    if target.len() + text.len() <= MAX_FIELD {
        target.push_str(text);
    }
}

/// A reader that stops with an error after `limit` bytes, so that a sitemap past the limit is
/// reported as such instead of silently ending.
struct LimitedReader<R> {
    inner: R,
    left: usize,
    limit: usize,
}

impl<R> LimitedReader<R> {
    fn new(inner: R, limit: usize) -> Self {
        Self {
            inner,
            left: limit,
            limit,
        }
    }
}

impl<R: Read> Read for LimitedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            // One byte more tells a file of exactly the limit from a longer one.
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(std::io::Error::other(format!(
                    "more than {} bytes",
                    self.limit
                ))),
            };
        }
        let wanted = buf.len().min(self.left);
        let read = self.inner.read(&mut buf[..wanted])?;
        self.left -= read;
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    const URLSET: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/a?x=1&amp;y=2</loc><lastmod>2026-11-20</lastmod></url>
  <url>
    <loc>
      https://example.com/b
    </loc>
  </url>
  <url><loc><![CDATA[https://example.com/c]]></loc><changefreq>daily</changefreq></url>
  <url><lastmod>2026-01-01</lastmod></url>
</urlset>"#;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn a_urlset_gives_its_pages_with_their_lastmod() {
        let sitemap = parse(URLSET.as_bytes(), 1 << 20, 100);
        let urls: Vec<(&str, &str)> = sitemap
            .pages
            .iter()
            .map(|e| (e.url.as_str(), e.lastmod.as_str()))
            .collect();
        assert_eq!(
            urls,
            [
                ("https://example.com/a?x=1&y=2", "2026-11-20"),
                ("https://example.com/b", ""),
                ("https://example.com/c", ""),
            ]
        );
        assert!(sitemap.sitemaps.is_empty());
        assert_eq!(sitemap.incomplete, None);
        // The same, compressed.
        assert_eq!(parse(&gzip(URLSET.as_bytes()), 1 << 20, 100), sitemap);
    }

    #[test]
    fn an_index_gives_its_sitemaps_and_a_prefix_is_any_namespace() {
        let index = "\u{feff}\n<sm:sitemapindex xmlns:sm=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                     <sm:sitemap><sm:loc>https://example.com/s1.xml.gz</sm:loc>\
                     <sm:lastmod>2026-11-01T10:00:00+00:00</sm:lastmod></sm:sitemap>\
                     <sm:sitemap><sm:loc>https://example.com/s2.xml</sm:loc></sm:sitemap>\
                     </sm:sitemapindex>";
        let sitemap = parse(index.as_bytes(), 1 << 20, 100);
        assert!(sitemap.pages.is_empty());
        assert_eq!(sitemap.sitemaps.len(), 2);
        assert_eq!(sitemap.sitemaps[0].lastmod, "2026-11-01T10:00:00+00:00");
        assert_eq!(sitemap.sitemaps[1].url, "https://example.com/s2.xml");
    }

    #[test]
    fn the_text_format_is_one_url_a_line() {
        let text = "https://example.com/1\r\n\nhttps://example.com/2\n";
        let sitemap = parse(&gzip(text.as_bytes()), 1 << 20, 100);
        let urls: Vec<&str> = sitemap.pages.iter().map(|e| e.url.as_str()).collect();
        assert_eq!(urls, ["https://example.com/1", "https://example.com/2"]);
    }

    #[test]
    fn limits_and_damage_keep_what_came_before_and_say_why() {
        let many: String = (0..50)
            .map(|i| format!("<url><loc>https://e.com/{i}</loc></url>"))
            .collect();
        let xml = format!("<urlset>{many}</urlset>");
        let capped = parse(xml.as_bytes(), 1 << 20, 10);
        assert_eq!(capped.pages.len(), 10);
        assert!(capped.incomplete.unwrap().contains("more than 10 entries"));
        // Past the byte limit (decompressed, for a gzip file: a zip bomb stops there).
        let bomb = gzip(format!("<urlset>{}", " ".repeat(10 << 20)).as_bytes());
        assert!(bomb.len() < 100 << 10);
        let stopped = parse(&bomb, 1 << 20, 100);
        assert!(
            stopped
                .incomplete
                .unwrap()
                .contains("more than 1048576 bytes")
        );
        let sized = parse(xml.as_bytes(), 200, 100);
        assert!(sized.pages.len() < 10 && sized.incomplete.is_some());
        // A gzip stream cut short: the entries before the cut.
        let cut = gzip(xml.as_bytes());
        let cut = parse(&cut[..cut.len() / 2], 1 << 20, 100);
        assert!(!cut.pages.is_empty() && cut.pages.len() < 50, "{cut:?}");
        assert!(cut.incomplete.is_some());
        // Malformed XML: the entries before the damage.
        let broken = "<urlset><url><loc>https://e.com/ok</loc></url><url><loc>x</l></urlset>";
        let broken = parse(broken.as_bytes(), 1 << 20, 100);
        assert_eq!(broken.pages.len(), 1);
        assert!(broken.incomplete.unwrap().contains("malformed XML"));
    }
}
