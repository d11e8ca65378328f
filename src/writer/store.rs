//! Object stores from URLs: where shards are written and read back.

use std::path::{Path as FsPath, PathBuf};
use std::sync::Arc;

use object_store::ObjectStore;
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path;
use url::Url;

/// Errors opening or using an object store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The output is not a URL or path altflow can write to.
    #[error("`{url}` is not a supported output: {reason}")]
    Unsupported {
        /// The configured value.
        url: String,
        /// Why.
        reason: String,
    },
    /// A local directory could not be created.
    #[error("cannot create directory {path}: {source}")]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The object store refused an operation.
    #[error("object store: {0}")]
    Store(#[from] object_store::Error),
}

impl From<StoreError> for crate::stage::StageError {
    fn from(error: StoreError) -> Self {
        crate::stage::StageError::failed(error)
    }
}

/// Where output goes, as parsed from `write.output`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// A local directory (made absolute against the working directory).
    Local(PathBuf),
    /// A store kept in memory for the life of the process (tests).
    Memory,
    /// A cloud store URL (`s3://`, `gs://`, `az://`, …).
    Cloud(Url),
}

/// Parses an output URL or path without touching anything.
pub fn parse_output(output: &str) -> Result<Output, StoreError> {
    let unsupported = |reason: &str| StoreError::Unsupported {
        url: output.to_string(),
        reason: reason.to_string(),
    };
    if output.is_empty() {
        return Err(unsupported("it is empty"));
    }
    if output == "memory://" || output == "memory:///" {
        return Ok(Output::Memory);
    }
    // `file://./out` is not a valid URL but it is what people write for "out here": accept it.
    if let Some(rest) = output.strip_prefix("file://") {
        return Ok(Output::Local(absolute(FsPath::new(rest))));
    }
    match Url::parse(output) {
        Ok(url) => match url.scheme() {
            "s3" | "s3a" | "gs" | "az" | "adl" | "azure" | "abfs" | "abfss" | "http" | "https" => {
                Ok(Output::Cloud(url))
            }
            other => Err(unsupported(&format!(
                "scheme `{other}` (use file://, memory://, s3://, gs:// or az://)"
            ))),
        },
        // Not a URL: a plain path.
        Err(_) => Ok(Output::Local(absolute(FsPath::new(output)))),
    }
}

fn absolute(path: &FsPath) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("."))
            .join(path)
    }
}

/// A cloud store for `url`: options from the environment, as the cloud SDKs name them
/// (`AWS_ACCESS_KEY_ID`, `AWS_ENDPOINT`, `GOOGLE_SERVICE_ACCOUNT`, `AZURE_STORAGE_ACCOUNT_NAME`, …,
/// lower-cased as object_store's keys are: how a cluster hands credentials over from a Secret),
/// overridden by `options`.
fn cloud_store(
    url: &Url,
    options: impl IntoIterator<Item = (String, String)>,
) -> Result<(Box<dyn ObjectStore>, Path), object_store::Error> {
    let mut merged: std::collections::BTreeMap<String, String> = std::env::vars()
        .filter(|(k, _)| {
            ["AWS_", "GOOGLE_", "AZURE_"]
                .iter()
                .any(|p| k.starts_with(p))
        })
        .map(|(k, v)| (k.to_ascii_lowercase(), v))
        .collect();
    merged.extend(options);
    object_store::parse_url_opts(url, merged)
}

/// An object store and the prefix under which altflow writes.
#[derive(Clone)]
pub struct Store {
    /// The store.
    pub inner: Arc<dyn ObjectStore>,
    /// Prefix of every object written.
    pub prefix: Path,
    /// URL of the prefix, for announcements and messages.
    pub base_url: String,
    /// Whether listings come in key order (cloud stores and memory do; a local directory is walked
    /// in the file system's order), so that a listing of a name range can stop past its end.
    pub listed_in_order: bool,
}

impl Store {
    /// Opens the store for `output` with object_store `options` (region, endpoint, credentials, …),
    /// over those from the environment.
    pub fn open<'a>(
        output: &str,
        options: impl IntoIterator<Item = (&'a String, &'a String)>,
    ) -> Result<Self, StoreError> {
        match parse_output(output)? {
            Output::Local(dir) => {
                std::fs::create_dir_all(&dir).map_err(|source| StoreError::CreateDir {
                    path: dir.clone(),
                    source,
                })?;
                let dir = dir.canonicalize().unwrap_or(dir);
                Ok(Self {
                    inner: Arc::new(LocalFileSystem::new_with_prefix(&dir)?),
                    prefix: Path::default(),
                    base_url: format!("file://{}", dir.display()),
                    listed_in_order: false,
                })
            }
            Output::Memory => Ok(Self {
                inner: Arc::new(InMemory::new()),
                prefix: Path::default(),
                base_url: "memory://".into(),
                listed_in_order: true,
            }),
            Output::Cloud(url) => {
                let options = options.into_iter().map(|(k, v)| (k.clone(), v.clone()));
                let (store, prefix) = cloud_store(&url, options)?;
                Ok(Self {
                    inner: Arc::from(store),
                    prefix,
                    base_url: url.as_str().trim_end_matches('/').to_string(),
                    listed_in_order: true,
                })
            }
        }
    }

    /// Opens the store holding one object, given the object's URL or local path, and its path there.
    /// `options` are object_store options for cloud URLs (endpoint, region, credentials), over those
    /// from the environment.
    pub fn open_object(
        url: &str,
        options: impl IntoIterator<Item = (String, String)>,
    ) -> Result<(Self, Path), StoreError> {
        match parse_output(url)? {
            Output::Local(file) => {
                let dir = file.parent().map(FsPath::to_path_buf).unwrap_or_default();
                let name = file
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let store = Self::open(&dir.to_string_lossy(), std::iter::empty())?;
                Ok((store, Path::from(name)))
            }
            Output::Memory => Err(StoreError::Unsupported {
                url: url.into(),
                reason: "a memory:// store is gone once its process ends".into(),
            }),
            Output::Cloud(parsed) => {
                let (store, path) = cloud_store(&parsed, options)?;
                Ok((
                    Self {
                        inner: Arc::from(store),
                        prefix: Path::default(),
                        base_url: String::new(),
                        listed_in_order: true,
                    },
                    path,
                ))
            }
        }
    }

    /// The path of object `name` under the prefix.
    pub fn path(&self, name: &str) -> Path {
        self.prefix.clone().join(name)
    }

    /// The URL of object `name`.
    pub fn url(&self, name: &str) -> String {
        format!("{}/{}", self.base_url, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_parse() {
        assert_eq!(parse_output("memory://").unwrap(), Output::Memory);
        assert!(
            matches!(parse_output("file://./out").unwrap(), Output::Local(p) if p.is_absolute() && p.ends_with("out"))
        );
        assert_eq!(
            parse_output("file:///tmp/x").unwrap(),
            Output::Local(PathBuf::from("/tmp/x"))
        );
        assert!(matches!(
            parse_output("s3://bucket/prefix").unwrap(),
            Output::Cloud(_)
        ));
        assert!(matches!(
            parse_output("out/shards").unwrap(),
            Output::Local(_)
        ));
        let err = parse_output("ftp://host/x").unwrap_err().to_string();
        assert!(err.contains("ftp"), "{err}");
        assert!(parse_output("").is_err());
    }
}
