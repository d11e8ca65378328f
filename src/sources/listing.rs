//! Which files an `[[archives]]` entry names: one path; every file matching a glob, or below a
//! prefix, on any store; or the lines of a manifest (Common Crawl's `wat.paths.gz`), given or
//! derived from a crawl id; optionally a slice of them.

use std::io::{BufRead, BufReader};

use futures::TryStreamExt;

use crate::config::ArchiveConfig;
use crate::sources::{SourceError, open_input};
use crate::writer::store::{Output, Store, parse_output};

/// Common Crawl's HTTPS server, where a `crawl`'s manifest and files are read by default.
pub const COMMON_CRAWL: &str = "https://data.commoncrawl.org/";

/// The part of a columnar index file's path that marks the subset of successful captures.
const INDEX_SUBSET: &str = "/subset=warc/";

/// What an entry's relative paths are relative to (a manifest's lines, a crawl's manifest, a
/// selection's `warc_filename`s): `base`, else for a crawl Common Crawl's HTTPS server, for a
/// manifest its base, for a path its folder.
pub fn archive_base(config: &ArchiveConfig) -> String {
    if !config.base.is_empty() {
        return with_slash(&config.base);
    }
    if config.crawl.is_some() {
        return COMMON_CRAWL.to_string();
    }
    match (&config.manifest, &config.path) {
        (Some(manifest), _) => manifest_base(manifest),
        (None, Some(path)) => folder_of(path),
        (None, None) => String::new(),
    }
}

/// Parses `files`: empty (all), `N`, or `FIRST-LAST` (both included, from 0).
pub fn parse_files(files: &str) -> Result<Option<(u64, u64)>, String> {
    let files = files.trim();
    if files.is_empty() {
        return Ok(None);
    }
    let number = |s: &str| {
        s.trim()
            .parse::<u64>()
            .map_err(|_| format!("`{files}` is not `N` or `FIRST-LAST` (line numbers from 0)"))
    };
    let (first, last) = match files.split_once('-') {
        Some((first, last)) => (number(first)?, number(last)?),
        None => (number(files)?, number(files)?),
    };
    if first > last {
        return Err(format!("`{files}`: the first file is after the last"));
    }
    Ok(Some((first, last)))
}

/// The files `config` names, in order: a glob's or prefix's matches sorted by name, a manifest's
/// in its order. The config has been checked (one of `path`, `manifest`, `crawl`).
pub async fn list_archives(config: &ArchiveConfig) -> Result<Vec<String>, SourceError> {
    let slice = parse_files(&config.files).map_err(|reason| SourceError::Row {
        location: "archives.files".into(),
        row: 0,
        reason,
    })?;
    let path = config.path.as_deref().unwrap_or_default();
    let files = if let Some(crawl) = &config.crawl {
        let base = archive_base(config);
        if config.select.is_some() {
            // The columnar index's files of every subset are listed together; only `warc`
            // (successful captures) points at pages.
            let manifest = format!("{base}crawl-data/{crawl}/cc-index-table.paths.gz");
            read_manifest(&manifest, &base, config, slice, Some(INDEX_SUBSET)).await?
        } else {
            let manifest = format!("{base}crawl-data/{crawl}/{}.paths.gz", config.kind);
            read_manifest(&manifest, &base, config, slice, None).await?
        }
    } else if let Some(manifest) = &config.manifest {
        let base = archive_base(config);
        read_manifest(manifest, &base, config, slice, None).await?
    } else if is_pattern(path) {
        let mut files = list_matching(path, config).await?;
        if let Some((first, last)) = slice {
            files = files
                .into_iter()
                .skip(first as usize)
                .take((last - first + 1) as usize)
                .collect();
        }
        files
    } else {
        vec![path.to_string()]
    };
    Ok(files)
}

/// Whether `path` names several files: a wildcard in its last part, or a `/` at its end.
pub fn is_pattern(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or("");
    path.ends_with('/') || last.contains(['*', '?', '['])
}

fn with_slash(location: &str) -> String {
    if location.ends_with('/') {
        location.to_string()
    } else {
        format!("{location}/")
    }
}

/// What a manifest's relative lines are relative to: for Common Crawl's
/// (`…/crawl-data/CC-MAIN-…/wat.paths.gz`, whose lines start `crawl-data/`), the folder above
/// `crawl-data/`; for any other, its own folder.
fn manifest_base(manifest: &str) -> String {
    match manifest.rfind("crawl-data/") {
        Some(at) if manifest[at..].matches('/').count() == 2 => manifest[..at].to_string(),
        _ => folder_of(manifest),
    }
}

/// The folder holding `location`, with its `/`.
fn folder_of(location: &str) -> String {
    match location.rfind('/') {
        Some(at) => location[..=at].to_string(),
        None => String::new(),
    }
}

/// The lines of a manifest (gzip or plain), each resolved against `base` unless it is a URL or an
/// absolute path, in `slice` if one is given; with `only`, the lines holding it (the slice counts
/// those).
async fn read_manifest(
    manifest: &str,
    base: &str,
    config: &ArchiveConfig,
    slice: Option<(u64, u64)>,
    only: Option<&'static str>,
) -> Result<Vec<String>, SourceError> {
    let input = open_input(manifest, &config.store_options).await?;
    let location = manifest.to_string();
    let base = base.to_string();
    let read = move || -> Result<Vec<String>, SourceError> {
        let mut input = BufReader::new(input);
        let gzip = input
            .fill_buf()
            .map_err(|source| SourceError::Io {
                location: location.clone(),
                source,
            })?
            .starts_with(&[0x1f, 0x8b]);
        let input: Box<dyn BufRead> = if gzip {
            Box::new(BufReader::new(flate2::bufread::MultiGzDecoder::new(input)))
        } else {
            Box::new(input)
        };
        let (first, last) = slice.unwrap_or((0, u64::MAX));
        let mut files = Vec::new();
        let mut index = 0u64;
        for line in input.lines() {
            let line = line.map_err(|source| SourceError::Io {
                location: location.clone(),
                source,
            })?;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') || only.is_some_and(|o| !line.contains(o)) {
                continue;
            }
            if index > last {
                break;
            }
            if index >= first {
                let absolute = line.starts_with('/') || url::Url::parse(line).is_ok();
                files.push(if absolute {
                    line.to_string()
                } else {
                    format!("{base}{line}")
                });
            }
            index += 1;
        }
        Ok(files)
    };
    tokio::task::spawn_blocking(read)
        .await
        .unwrap_or_else(|panic| {
            Err(SourceError::Io {
                location: manifest.to_string(),
                source: std::io::Error::other(format!("reading panicked: {panic}")),
            })
        })
}

/// Every file below the folder of `pattern` whose name matches its last part (a `/` at the end:
/// every file below), sorted by name.
async fn list_matching(pattern: &str, config: &ArchiveConfig) -> Result<Vec<String>, SourceError> {
    let folder = folder_of(pattern);
    let glob = &pattern[folder.len()..];
    let store_error = |source| SourceError::Store {
        location: pattern.to_string(),
        source,
    };
    // Store::open makes a missing local folder (it is how outputs are opened); a source's must
    // exist.
    if let Ok(Output::Local(dir)) = parse_output(&folder)
        && !dir.is_dir()
    {
        return Err(SourceError::Io {
            location: pattern.to_string(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder"),
        });
    }
    let store = Store::open(&folder, &config.store_options).map_err(store_error)?;
    let prefix = (!store.prefix.as_ref().is_empty()).then_some(&store.prefix);
    let mut names: Vec<String> = store
        .inner
        .list(prefix)
        .map_ok(|meta| {
            let full = meta.location.as_ref();
            full.strip_prefix(store.prefix.as_ref())
                .unwrap_or(full)
                .trim_start_matches('/')
                .to_string()
        })
        .try_collect()
        .await
        .map_err(|e| store_error(e.into()))?;
    names.retain(|name| glob.is_empty() || (!name.contains('/') && matches(glob, name)));
    names.sort();
    Ok(names
        .into_iter()
        .map(|name| format!("{folder}{name}"))
        .collect())
}

/// Whether `name` matches the glob `pattern`: `*` any run of characters, `?` one, `[abc]`,
/// `[a-z]` and `[!…]` one of (or none of) a set.
pub fn matches(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    // Backtracking to the last `*` only: linear in practice, quadratic at worst.
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() {
            match pattern[p] {
                '*' => {
                    star = Some((p, n));
                    p += 1;
                    continue;
                }
                '?' => {
                    p += 1;
                    n += 1;
                    continue;
                }
                '[' => {
                    if let Some((hit, len)) = class(&pattern[p..], name[n])
                        && hit
                    {
                        p += len;
                        n += 1;
                        continue;
                    }
                }
                c if c == name[n] => {
                    p += 1;
                    n += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, sn)) => {
                p = sp + 1;
                n = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

/// Whether `c` is in the class at the start of `pattern` (`[…]`), and the class's length; `None`
/// when the `[` opens no class (it then matches itself).
fn class(pattern: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negated = matches!(pattern.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut hit = false;
    let mut first = true;
    while let Some(&ch) = pattern.get(i) {
        if ch == ']' && !first {
            return Some((hit != negated, i + 1));
        }
        first = false;
        if pattern.get(i + 1) == Some(&'-') && pattern.get(i + 2).is_some_and(|e| *e != ']') {
            hit |= (ch..=pattern[i + 2]).contains(&c);
            i += 3;
        } else {
            hit |= ch == c;
            i += 1;
        }
    }
    if pattern.first() == Some(&c) {
        return Some((true, 1));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_as_shells_do() {
        assert!(matches("*.warc.gz", "CC-1.warc.gz"));
        assert!(!matches("*.warc.gz", "CC-1.wat.gz"));
        assert!(matches("CC-?.wat.gz", "CC-7.wat.gz"));
        assert!(!matches("CC-?.wat.gz", "CC-17.wat.gz"));
        assert!(matches("CC-[0-4]*", "CC-3x"));
        assert!(!matches("CC-[!0-4]*", "CC-3x"));
        assert!(matches("a*b*c", "aXXbYYbc"));
        assert!(matches("*", ""));
        assert!(matches("[", "["));
    }

    #[test]
    fn common_crawl_manifests_are_relative_to_the_root_others_to_their_folder() {
        assert_eq!(
            manifest_base("s3://commoncrawl/crawl-data/CC-MAIN-2024-10/wat.paths.gz"),
            "s3://commoncrawl/"
        );
        assert_eq!(
            manifest_base("https://data.commoncrawl.org/crawl-data/CC-MAIN-2024-10/warc.paths.gz"),
            "https://data.commoncrawl.org/"
        );
        assert_eq!(manifest_base("/data/lists/files.txt"), "/data/lists/");
        assert_eq!(
            manifest_base("/data/crawl-data/x/y/files.txt"),
            "/data/crawl-data/x/y/"
        );
    }

    #[tokio::test]
    async fn a_glob_in_a_missing_folder_is_an_error_and_makes_no_folder() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nowhere");
        let config = ArchiveConfig {
            path: Some(format!("{}/*.warc.gz", missing.display())),
            ..Default::default()
        };
        let error = list_archives(&config).await.unwrap_err();
        assert!(error.to_string().contains("no such folder"), "{error}");
        assert!(!missing.exists());
    }

    #[test]
    fn file_slices_parse_or_say_what_is_wrong() {
        assert_eq!(parse_files(""), Ok(None));
        assert_eq!(parse_files("1000-1999"), Ok(Some((1000, 1999))));
        assert_eq!(parse_files("5"), Ok(Some((5, 5))));
        assert!(parse_files("9-1").unwrap_err().contains("after"));
        assert!(parse_files("a-b").unwrap_err().contains("FIRST-LAST"));
    }
}
