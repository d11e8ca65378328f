//! Sources that publish candidates directly, next to the live crawl: URL lists (the img2dataset
//! input shape) and web archives (WARC/WAT files, local or in an object store).
//!
//! Every source is read on a blocking thread and handed to the async side in chunks through a
//! channel of two chunks, so a file of any size is read in bounded memory and at the pace the bus
//! accepts.

pub mod archive;
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

/// Consecutive failed attempts to resume an object-store read before the read fails.
const RESUME_ATTEMPTS: u32 = 5;

/// Like [`open_input`], from byte `start` (a ranged read). An object-store read that breaks
/// (GB-sized objects over S3 and HTTPS do) is resumed where it broke, with a ranged request for
/// the same version of the object, after a backoff; only [`RESUME_ATTEMPTS`] failures in a row
/// without a byte read in between fail it, with an error of kind `ConnectionAborted`.
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
    let mut reader = Resuming {
        location: location.to_string(),
        store: store.inner,
        path,
        e_tag: None,
        size: None,
        position: start,
        body: None,
        runtime: tokio::runtime::Handle::current(),
    };
    reader.open().await.map_err(|e| store_error(e.into()))?;
    Ok(Box::new(reader))
}

/// An object-store read that resumes where it broke.
struct Resuming {
    location: String,
    store: std::sync::Arc<dyn object_store::ObjectStore>,
    path: object_store::path::Path,
    /// The version first read: a resumed read must be of the same bytes.
    e_tag: Option<String>,
    size: Option<u64>,
    position: u64,
    body: Option<Box<dyn Read + Send>>,
    runtime: tokio::runtime::Handle,
}

impl Resuming {
    /// Asks for the object from `position` on.
    async fn open(&mut self) -> Result<(), object_store::Error> {
        let options = object_store::GetOptions {
            range: (self.position > 0).then_some(object_store::GetRange::Offset(self.position)),
            if_match: self.e_tag.clone(),
            ..Default::default()
        };
        let object = self.store.get_opts(&self.path, options).await?;
        if self.e_tag.is_none() {
            self.e_tag = object.meta.e_tag.clone();
        }
        self.size = Some(object.meta.size);
        let stream = object.into_stream().map_err(std::io::Error::other);
        self.body = Some(Box::new(tokio_util::io::SyncIoBridge::new_with_handle(
            tokio_util::io::StreamReader::new(stream),
            self.runtime.clone(),
        )));
        Ok(())
    }
}

impl Read for Resuming {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut failures = 0u32;
        loop {
            let outcome = match self.body.as_mut() {
                Some(body) => body.read(buf),
                None => Err(std::io::Error::other("not open")),
            };
            let error = match outcome {
                // An end before the object's size is a connection that closed early.
                Ok(0) if !buf.is_empty() && self.size.is_some_and(|size| self.position < size) => {
                    std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the connection closed before the object's end",
                    )
                }
                Ok(n) => {
                    self.position += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => e,
            };
            failures += 1;
            if failures > RESUME_ATTEMPTS {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionAborted,
                    format!(
                        "{}: reading broke at byte {} and did not resume after {RESUME_ATTEMPTS} \
                         attempts: {error}",
                        self.location, self.position
                    ),
                ));
            }
            let delay = std::time::Duration::from_millis(250 << failures.min(5));
            tracing::warn!(
                location = %self.location,
                position = self.position,
                %error,
                ?delay,
                "an object-store read broke; resuming with a ranged read"
            );
            crate::metrics::source_read_resumed();
            std::thread::sleep(delay);
            self.body = None;
            let runtime = self.runtime.clone();
            if let Err(error) = runtime.block_on(self.open()) {
                // A changed object (its ETag) fails every later attempt the same way.
                tracing::warn!(location = %self.location, %error, "resuming failed");
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
