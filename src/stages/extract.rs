//! The extract stage: web archives (WARC and WAT files) named on the `archives` topic, read by the
//! members of a consumer group, a segment at a time, into image candidates.
//!
//! Seeding publishes one [`ArchiveSegment`] per file, from byte 0, keyed by the file. A member reads
//! a segment (about `extract.segment_bytes` of the file, to the next gzip member boundary), and
//! emits its candidates together with the file's next segment, on the same topic and partition.
//! The runner stores the segment's offset only once all of that is acknowledged, so the file's
//! progress travels with what it yielded: a member killed mid-file costs the next owner one segment
//! read again (its candidates are sent twice, and dropped downstream by sample id), never the rest of
//! the file.
//!
//! One case needs more: a member that published a segment's successor and died before storing the
//! segment's offset makes its successor read the segment again and publish the successor a second
//! time. Read twice, those two copies would make two chains through the rest of the file. So where
//! offsets outlive the process (Kafka), a member keeps each file's progress mark in the output store
//! (`_extract/{group}/{hash of the file}.json`: the segment's start, and the partition, offset and
//! attempt of the record that carried it) and skips a segment the mark is past, or the second copy of
//! the segment it marks.

use std::sync::Arc;

use object_store::{ObjectStoreExt, PutPayload};
use serde::{Deserialize, Serialize};

use crate::config::{ArchiveConfig, ExtractConfig, RetryConfig};
use crate::metrics::StageMetrics;
use crate::reason::Reason;
use crate::record::{ArchiveSegment, Candidate};
use crate::sources::archive::{MAX_RECORD_BYTES, SegmentError, is_broken_read, read_segment};
use crate::sources::{ArchiveCandidates, SourceError, open_input_at};
use crate::stage::{Emitter, Failed, Input, Pipelined, StageError, Work};
use crate::stages::retry_or_reject;
use crate::web::http::FetchError;
use crate::writer::store::{Store, StoreError};

/// The extract stage.
pub struct ExtractStage {
    config: ExtractConfig,
    archives: Vec<ArchiveConfig>,
    retry: RetryConfig,
    candidates: ArchiveCandidates,
    output: Arc<str>,
    progress: Option<Progress>,
    metrics: StageMetrics,
}

impl ExtractStage {
    /// An extract stage reading the files of `archives` (the pipeline's `[[archives]]`, for their
    /// store options), honouring opt-outs addressed to `agent` (`None`: ignoring them), producing
    /// candidates to `output`.
    pub fn new(
        config: ExtractConfig,
        archives: Vec<ArchiveConfig>,
        retry: RetryConfig,
        agent: Option<String>,
        output: Arc<str>,
    ) -> Self {
        Self {
            config,
            archives,
            retry,
            candidates: ArchiveCandidates::new(agent),
            output,
            progress: None,
            metrics: StageMetrics::new("extract"),
        }
    }

    /// Keeps each file's progress mark in `store` under `_extract/{group}/`, so that a segment
    /// published twice around a crash is read once (for buses whose offsets outlive the process).
    pub fn with_progress(mut self, store: Store, group: &str) -> Self {
        self.progress = Some(Progress {
            store,
            folder: format!("_extract/{group}"),
            taking: Arc::default(),
        });
        self
    }
}

/// Where a file's reading stands, kept in the output store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
struct Mark {
    /// The start of the segment last taken.
    start: u64,
    /// The partition, offset and attempt of the record that carried it.
    partition: i32,
    offset: i64,
    attempt: u32,
}

impl Mark {
    fn of(input: &Input<ArchiveSegment>) -> Self {
        Mark {
            start: input.record.start,
            partition: input.partition,
            offset: input.offset,
            attempt: input.record.attempt,
        }
    }

    /// Whether a segment (as `next` marks it) comes after this mark: a later part of the file; the
    /// same record again (its reading was not acknowledged); or a later attempt at the same part.
    /// Anything else is a second copy of a segment already taken.
    fn admits(&self, next: &Mark) -> bool {
        next.start > self.start
            || (next.start == self.start
                && ((next.partition, next.offset) == (self.partition, self.offset)
                    || next.attempt > self.attempt))
    }
}

/// The files' progress marks.
#[derive(Clone)]
struct Progress {
    store: Store,
    folder: String,
    /// Held from reading a mark to writing the next: two copies of a segment in flight on one
    /// member at once are taken one after the other, so the second sees the first's mark.
    taking: Arc<tokio::sync::Mutex<()>>,
}

impl Progress {
    /// Whether to read the segment `input` carries (marking it taken), or skip it as a second copy
    /// or a segment the file's progress is past.
    async fn take(&self, input: &Input<ArchiveSegment>) -> Result<bool, StoreError> {
        let _taking = self.taking.lock().await;
        let next = Mark::of(input);
        if let Some(mark) = self.get(&input.record.path).await?
            && !mark.admits(&next)
        {
            return Ok(false);
        }
        self.put(&input.record.path, next).await?;
        Ok(true)
    }

    fn path(&self, file: &str) -> object_store::path::Path {
        let hash = crate::bus::stable_hash(file.as_bytes());
        self.store
            .path(&format!("{}/{hash:016x}.json", self.folder))
    }

    async fn get(&self, file: &str) -> Result<Option<Mark>, StoreError> {
        match self.store.inner.get(&self.path(file)).await {
            Ok(object) => {
                let bytes = object.bytes().await?;
                // A mark that does not parse is no mark: the segment is read (a duplicate at worst).
                Ok(serde_json::from_slice(&bytes).ok())
            }
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error.into()),
        }
    }

    async fn put(&self, file: &str, mark: Mark) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec(&mark).unwrap_or_default();
        self.store
            .inner
            .put(&self.path(file), PutPayload::from(bytes))
            .await?;
        Ok(())
    }
}

/// What reading one segment gave.
struct Outcome {
    found: Vec<Candidate>,
    read: Result<crate::sources::archive::SegmentRead, Failure>,
}

/// Why a segment's reading failed.
enum Failure {
    /// The file could not be opened.
    Open(SourceError),
    /// Reading stopped inside the file.
    Read(SegmentError),
    /// The reading panicked, with this message: the record goes to the dead letters, as any
    /// stage's record whose work panics.
    Panicked(String),
}

impl Failure {
    /// A reading thread that did not finish: it panicked (with this message) or was cancelled.
    fn joined(error: tokio::task::JoinError) -> Self {
        Failure::Panicked(match error.try_into_panic() {
            Ok(panic) => crate::stage::panic_message(&*panic),
            Err(error) => error.to_string(),
        })
    }

    /// What went wrong, for a report.
    fn text(&self) -> String {
        match self {
            Failure::Open(error) => error.to_string(),
            Failure::Read(error) => error.to_string(),
            Failure::Panicked(panic) => panic.clone(),
        }
    }

    /// Whether another try may pass (the network, not the bytes).
    fn is_transient(&self) -> bool {
        match self {
            Failure::Open(SourceError::Store {
                source: StoreError::Store(object_store::Error::NotFound { .. }),
                ..
            }) => false,
            Failure::Open(SourceError::Store { .. }) => true,
            Failure::Open(SourceError::Io { source, .. }) => is_broken_read(source),
            Failure::Open(_) | Failure::Panicked(_) => false,
            Failure::Read(error) => error.is_transient(),
        }
    }
}

/// What reading a segment gave: a run of the file, or a selection's single records.
enum Read {
    Run(Outcome),
    Records(RecordsOutcome),
}

/// What reading a selection's records gave.
#[derive(Default)]
struct RecordsOutcome {
    found: Vec<Candidate>,
    /// Bytes read.
    bytes: u64,
    /// Records whose bytes are no WARC record: offset, length and why.
    damaged: Vec<(u64, u64, String)>,
    /// Where reading stopped, if it did: the index of the first record not read, and why.
    stopped: Option<(usize, Failure)>,
}

/// Where a failed segment came from, for retries and the failures topic: its file.
fn origin(input: &Input<ArchiveSegment>) -> Failed<'_> {
    Failed {
        topic: &input.topic,
        key: &input.record.path,
        id: "",
        url: &input.record.path,
    }
}

/// Records fetched at once from one file: ranged requests overlap their latency.
const RANGED_AT_ONCE: usize = 8;

/// Reads a selection's records of one file, each with a ranged request (a few at once), and
/// parses them on a blocking thread. A record that fails to arrive stops the reading there (the
/// rest is tried again); one whose bytes are damaged is reported and the others read.
async fn read_records(
    segment: ArchiveSegment,
    options: std::collections::BTreeMap<String, String>,
    candidates: ArchiveCandidates,
) -> RecordsOutcome {
    use futures::StreamExt;
    let pairs: Vec<(u64, u64)> = segment.ranges.chunks(2).map(|p| (p[0], p[1])).collect();
    let mut outcome = RecordsOutcome::default();
    let file = match crate::sources::Ranged::open(&segment.path, &options) {
        Ok(file) => std::sync::Arc::new(file),
        Err(error) => {
            outcome.stopped = Some((0, Failure::Open(error)));
            return outcome;
        }
    };
    let mut fetched = Vec::with_capacity(pairs.len());
    let mut reads = futures::stream::iter(pairs.clone())
        .map(|(offset, length)| {
            let file = file.clone();
            async move {
                if length > MAX_RECORD_BYTES as u64 {
                    return Err(None);
                }
                file.read(offset, length).await.map_err(Some)
            }
        })
        .buffered(RANGED_AT_ONCE);
    while let Some(read) = reads.next().await {
        let (offset, length) = pairs[fetched.len()];
        match read {
            Ok(bytes) => fetched.push(Some(bytes)),
            Err(None) => {
                outcome.damaged.push((
                    offset,
                    length,
                    format!("a record of {length} bytes, over the {MAX_RECORD_BYTES}-byte limit"),
                ));
                fetched.push(None);
            }
            Err(Some(error)) => {
                outcome.stopped = Some((fetched.len(), Failure::Open(error)));
                break;
            }
        }
    }
    drop(reads);
    let work = move || {
        for ((offset, length), bytes) in pairs.into_iter().zip(fetched) {
            let Some(bytes) = bytes else { continue };
            outcome.bytes += bytes.len() as u64;
            let read = read_segment(&bytes[..], offset, u64::MAX, MAX_RECORD_BYTES, |record| {
                outcome.found.extend(candidates.of_record(&record));
                true
            });
            if let Err(error) = read {
                outcome.damaged.push((offset, length, error.to_string()));
            }
        }
        outcome
    };
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|error| RecordsOutcome {
            stopped: Some((0, Failure::joined(error))),
            ..Default::default()
        })
}

/// Reads one segment on a blocking thread.
async fn read(
    segment: ArchiveSegment,
    options: std::collections::BTreeMap<String, String>,
    budget: u64,
    candidates: ArchiveCandidates,
) -> Outcome {
    let input = match open_input_at(&segment.path, &options, segment.start).await {
        Ok(input) => input,
        Err(error) => {
            return Outcome {
                found: Vec::new(),
                read: Err(Failure::Open(error)),
            };
        }
    };
    let work = move || {
        let mut found = Vec::new();
        let read = read_segment(input, segment.start, budget, MAX_RECORD_BYTES, |record| {
            found.extend(candidates.of_record(&record));
            true
        });
        Outcome {
            found,
            read: read.map_err(Failure::Read),
        }
    };
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|error| Outcome {
            found: Vec::new(),
            read: Err(Failure::joined(error)),
        })
}

/// A segment's work handed back: the record, and what reading it gave (`None`: skipped, the file's
/// progress is past it).
pub struct Done {
    input: Input<ArchiveSegment>,
    read: Result<Option<Read>, StoreError>,
}

impl Pipelined for ExtractStage {
    type Input = ArchiveSegment;
    type Done = Done;

    /// Each segment is read on its own task, `extract.files_at_once` at a time: while one
    /// segment's candidates are being published, the others go on reading.
    fn admit(&mut self, input: Input<ArchiveSegment>, _out: &mut Emitter) -> Option<Work<Done>> {
        let options = self
            .archives
            .get(input.record.source as usize)
            .map(|a| a.store_options.clone())
            .unwrap_or_default();
        let candidates = self.candidates.clone();
        let budget = self.config.segment_bytes;
        let progress = self.progress.clone();
        Some(Box::pin(async move {
            // A selection's records have no successor to fork; read twice, they are dropped
            // downstream by sample id.
            if input.record.ranges.is_empty()
                && let Some(progress) = &progress
            {
                match progress.take(&input).await {
                    Ok(true) => {}
                    Ok(false) => {
                        return Done {
                            input,
                            read: Ok(None),
                        };
                    }
                    Err(error) => {
                        return Done {
                            input,
                            read: Err(error),
                        };
                    }
                }
            }
            let segment = input.record.clone();
            let read = if segment.ranges.is_empty() {
                Read::Run(read(segment, options, budget, candidates).await)
            } else {
                Read::Records(read_records(segment, options, candidates).await)
            };
            Done {
                input,
                read: Ok(Some(read)),
            }
        }))
    }

    fn complete(&mut self, done: Done, out: &mut Emitter) -> Result<(), StageError> {
        let input = &done.input;
        match done.read? {
            None => {
                tracing::info!(
                    path = %input.record.path,
                    start = input.record.start,
                    "skipping an archive segment the file's progress is past"
                );
                self.metrics.archive_segment_skipped();
            }
            Some(Read::Run(outcome)) => self.emit_outcome(input, outcome, out),
            Some(Read::Records(outcome)) => self.emit_records(input, outcome, out),
        }
        Ok(())
    }
}

impl ExtractStage {
    /// Emits a segment's candidates and what comes next: the file's next segment, a retry from the
    /// last good boundary, or a rejection naming where the file is damaged.
    fn emit_outcome(&self, input: &Input<ArchiveSegment>, outcome: Outcome, out: &mut Emitter) {
        let segment = &input.record;
        let found = outcome.found.len() as u64;
        for candidate in &outcome.found {
            out.emit(&self.output, &candidate.id, candidate);
        }
        let candidates = segment.candidates + found;
        let failure = match outcome.read {
            Ok(read) => {
                match read.next {
                    Some(next) => {
                        self.metrics.archive_read(next - segment.start);
                        let successor = ArchiveSegment {
                            start: next,
                            index: segment.index + 1,
                            candidates,
                            attempt: 0,
                            ..segment.clone()
                        };
                        out.emit_side(&input.topic, &segment.path, &successor);
                    }
                    None => tracing::info!(
                        path = %segment.path,
                        segments = segment.index + 1,
                        candidates,
                        "read an archive to its end"
                    ),
                }
                return;
            }
            Err(failure) => failure,
        };
        // Where a later try starts: the last good boundary (what came before it was emitted).
        let (resume, detail) = match &failure {
            Failure::Panicked(panic) => {
                out.panicked(input, panic);
                return;
            }
            Failure::Open(error) => (segment.start, error.to_string()),
            Failure::Read(error) => {
                self.metrics.archive_read(error.offset - segment.start);
                (error.offset, format!("{}: {error}", segment.path))
            }
        };
        let detail = format!("{detail} ({candidates} candidates before)");
        let again = |attempt| ArchiveSegment {
            start: resume,
            candidates,
            attempt,
            ..segment.clone()
        };
        self.report(input, &failure, detail, again, out);
    }

    /// Emits a selection's records' candidates, reports the damaged ones, and tries again the
    /// records not read.
    fn emit_records(
        &self,
        input: &Input<ArchiveSegment>,
        outcome: RecordsOutcome,
        out: &mut Emitter,
    ) {
        let segment = &input.record;
        self.metrics.archive_read(outcome.bytes);
        for candidate in &outcome.found {
            out.emit(&self.output, &candidate.id, candidate);
        }
        let origin = origin(input);
        for (offset, length, why) in outcome.damaged {
            let detail = format!("{}, the record at byte {offset}: {why}", segment.path);
            tracing::error!(%detail, "a selected record is damaged; the others are kept");
            let alone = ArchiveSegment {
                ranges: vec![offset, length],
                attempt: 0,
                ..segment.clone()
            };
            out.reject_redrivable(Reason::Archive, origin, detail, &alone);
        }
        let Some((first, failure)) = outcome.stopped else {
            return;
        };
        if let Failure::Panicked(panic) = &failure {
            out.panicked(input, panic);
            return;
        }
        let rest = segment.ranges[2 * first..].to_vec();
        let detail = format!("{} ({} records not read)", failure.text(), rest.len() / 2);
        let again = |attempt| ArchiveSegment {
            ranges: rest.clone(),
            attempt,
            ..segment.clone()
        };
        self.report(input, &failure, detail, again, out);
    }

    /// Sends a segment whose reading failed to `retry` (transient) or to the failures topic.
    fn report(
        &self,
        input: &Input<ArchiveSegment>,
        failure: &Failure,
        detail: String,
        again: impl Fn(u32) -> ArchiveSegment,
        out: &mut Emitter,
    ) {
        let segment = &input.record;
        let origin = origin(input);
        if failure.is_transient() {
            tracing::warn!(%detail, "reading an archive broke");
            let error = FetchError::new(Reason::Network, detail);
            retry_or_reject(out, &self.retry, error, origin, segment.attempt, again);
        } else {
            // Damaged bytes stay damaged, a missing file missing: reported, not retried.
            tracing::error!(%detail, "an archive is damaged or missing; what came before is kept");
            out.reject_redrivable(Reason::Archive, origin, detail, &again(0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(start: u64, offset: i64, attempt: u32) -> Mark {
        Mark {
            start,
            partition: 0,
            offset,
            attempt,
        }
    }

    #[test]
    fn a_mark_admits_later_segments_its_own_record_and_retries_only() {
        let taken = mark(100, 7, 0);
        assert!(taken.admits(&mark(200, 9, 0)), "the next segment");
        assert!(taken.admits(&mark(100, 7, 0)), "the same record, replayed");
        assert!(taken.admits(&mark(100, 12, 1)), "a retry of the segment");
        assert!(!taken.admits(&mark(100, 9, 0)), "a second copy");
        assert!(
            !taken.admits(&mark(0, 3, 0)),
            "an earlier segment, or the file seeded again"
        );
        assert!(
            !taken.admits(&Mark {
                partition: 1,
                ..taken
            }),
            "the same offset of another partition"
        );
    }
}
