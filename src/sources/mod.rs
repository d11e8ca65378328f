//! Sources that publish candidates directly, next to the live crawl: URL lists (the img2dataset
//! input shape) and web archives (WARC/WAT files, local or in an object store).
//!
//! Every source is read on a blocking thread and handed to the async side in chunks through a
//! channel of two chunks, so a file of any size is read in bounded memory and at the pace the bus
//! accepts.

pub mod archive;
#[cfg(feature = "sql")]
pub mod index;
pub mod listing;
pub mod lists;

use std::collections::BTreeMap;
use std::io::Read;

use futures::TryStreamExt;

use crate::record::Candidate;
use crate::writer::store::{Store, StoreError};

pub use archive::{ArchiveCandidates, read_archive};
pub use lists::read_url_list;

/// Errors reading a source.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// The file could not be opened or read.
    #[error("{location}: {source}")]
    Io {
        /// The file's path or URL.
        location: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The object store holding the file refused.
    #[error("{location}: {source}")]
    Store {
        /// The file's URL.
        location: String,
        /// Why.
        #[source]
        source: StoreError,
    },
    /// The file's format is not known from its extension.
    #[error("{0}: unknown URL list format (use .csv, .tsv, .jsonl, .json or .parquet)")]
    Format(String),
    /// A configured column is missing.
    #[error("{location}: no column `{column}` (set url_column / caption_column)")]
    MissingColumn {
        /// The file.
        location: String,
        /// The column.
        column: String,
    },
    /// A selection through a columnar index could not be run.
    #[error("{location}: {reason}")]
    Index {
        /// The configuration key of the selection (`archives[0].select`).
        location: String,
        /// What went wrong.
        reason: String,
    },
    /// A row or record could not be parsed.
    #[error("{location}, row {row}: {reason}")]
    Row {
        /// The file.
        location: String,
        /// Row number, from 1 (the header of a CSV is row 0); for archives, the record's index.
        row: u64,
        /// What is wrong.
        reason: String,
    },
}

/// Opens a source file for reading: a local path, or an object-store URL (`s3://`, `gs://`, `az://`,
/// `https://`) streamed in chunks, with object_store `options` (credentials also come from the
/// usual environment variables). The reader blocks: use it on a blocking thread.
pub async fn open_input(
    location: &str,
    options: &BTreeMap<String, String>,
) -> Result<Box<dyn Read + Send>, SourceError> {
    open_input_at(location, options, 0).await
}

/// Like [`open_input`], from byte `start` (a ranged read).
///
/// A read from an object store that breaks mid-body (GB-sized objects over S3 and HTTPS do) is
/// resumed by object_store itself, with a ranged request for the same version of the object
/// (`If-Match` on its ETag), up to its retry limits (10 tries, 3 minutes); when it gives up, the
/// error reaches the reader with kind `ConnectionAborted`, which
/// [`archive::is_broken_read`] tells from damaged bytes.
pub async fn open_input_at(
    location: &str,
    options: &BTreeMap<String, String>,
    start: u64,
) -> Result<Box<dyn Read + Send>, SourceError> {
    let store_error = |source| SourceError::Store {
        location: location.to_string(),
        source,
    };
    if let Ok(crate::writer::store::Output::Local(path)) =
        crate::writer::store::parse_output(location)
    {
        let io_error = |source| SourceError::Io {
            location: location.to_string(),
            source,
        };
        let mut file = std::fs::File::open(&path).map_err(io_error)?;
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(start)).map_err(io_error)?;
        return Ok(Box::new(file));
    }
    let (store, path) = Store::open_object(
        location,
        options.iter().map(|(k, v)| (k.clone(), v.clone())),
    )
    .map_err(store_error)?;
    let request = object_store::GetOptions {
        range: (start > 0).then_some(object_store::GetRange::Offset(start)),
        ..Default::default()
    };
    let object = store
        .inner
        .get_opts(&path, request)
        .await
        .map_err(|e| store_error(e.into()))?;
    let stream = object
        .into_stream()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::ConnectionAborted, e));
    Ok(Box::new(tokio_util::io::SyncIoBridge::new(
        tokio_util::io::StreamReader::new(stream),
    )))
}

/// A file opened for reading single records by their byte ranges (a selection's rows).
pub enum Ranged {
    /// A local file.
    Local(std::path::PathBuf),
    /// An object in a store.
    Object(
        std::sync::Arc<dyn object_store::ObjectStore>,
        object_store::path::Path,
    ),
}

impl Ranged {
    /// Opens `location` (a local path or an object-store URL, with object_store `options`).
    pub fn open(location: &str, options: &BTreeMap<String, String>) -> Result<Self, SourceError> {
        if let Ok(crate::writer::store::Output::Local(path)) =
            crate::writer::store::parse_output(location)
        {
            return Ok(Ranged::Local(path));
        }
        let (store, path) = Store::open_object(
            location,
            options.iter().map(|(k, v)| (k.clone(), v.clone())),
        )
        .map_err(|source| SourceError::Store {
            location: location.to_string(),
            source,
        })?;
        Ok(Ranged::Object(store.inner, path))
    }

    /// The `length` bytes from byte `start`: one ranged request. A range past the end of a local
    /// file is an error of kind `UnexpectedEof`.
    pub async fn read(&self, start: u64, length: u64) -> Result<bytes::Bytes, SourceError> {
        match self {
            Ranged::Local(path) => {
                use tokio::io::{AsyncReadExt, AsyncSeekExt};
                let io_error = |source| SourceError::Io {
                    location: path.display().to_string(),
                    source,
                };
                let mut file = tokio::fs::File::open(path).await.map_err(io_error)?;
                file.seek(std::io::SeekFrom::Start(start))
                    .await
                    .map_err(io_error)?;
                let mut bytes = vec![0; length as usize];
                file.read_exact(&mut bytes).await.map_err(io_error)?;
                Ok(bytes.into())
            }
            Ranged::Object(store, path) => {
                object_store::ObjectStoreExt::get_range(store.as_ref(), path, start..start + length)
                    .await
                    .map_err(|e| SourceError::Store {
                        location: path.to_string(),
                        source: e.into(),
                    })
            }
        }
    }
}

/// Where a source's reading thread puts candidates: it cuts them into chunks and waits while the
/// async side is two chunks behind.
pub struct Sink {
    chunk: usize,
    batch: Vec<Candidate>,
    sender: tokio::sync::mpsc::Sender<Vec<Candidate>>,
    total: u64,
}

impl Sink {
    /// Adds a candidate; false once the receiving side has gone (stop reading).
    pub fn push(&mut self, candidate: Candidate) -> bool {
        self.batch.push(candidate);
        self.total += 1;
        if self.batch.len() >= self.chunk {
            return self.flush();
        }
        true
    }

    fn flush(&mut self) -> bool {
        if self.batch.is_empty() {
            return true;
        }
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(self.chunk));
        self.sender.blocking_send(batch).is_ok()
    }
}

/// Runs `read` on a blocking thread and calls `each` with its candidates in chunks of at most `chunk`
/// (so the caller can send them on with backpressure); returns how many candidates there were.
pub(crate) async fn drive<R, F, Fut>(chunk: usize, read: R, mut each: F) -> Result<u64, SourceError>
where
    R: FnOnce(&mut Sink) -> Result<(), SourceError> + Send + 'static,
    F: FnMut(Vec<Candidate>) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let (sender, mut receiver) = tokio::sync::mpsc::channel(2);
    let reader = tokio::task::spawn_blocking(move || {
        let mut sink = Sink {
            chunk: chunk.max(1),
            batch: Vec::new(),
            sender,
            total: 0,
        };
        read(&mut sink)?;
        sink.flush();
        Ok(sink.total)
    });
    while let Some(batch) = receiver.recv().await {
        each(batch).await;
    }
    reader.await.unwrap_or_else(|panic| {
        Err(SourceError::Io {
            location: "a source".into(),
            source: std::io::Error::other(format!("reader panicked: {panic}")),
        })
    })
}
