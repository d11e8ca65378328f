//! The retry stage's backlog: parked records ordered by due time, in memory up to a budget and in
//! spill files on local disk beyond it.
//!
//! The spill files are a cache, not a log: the retry topic is the record of what is parked, and the
//! stage never commits past a parked record ([`Backlog::held_from`]), so a member that dies with a
//! full backlog loses its files and nothing else — the next owner reads the records again from the
//! topic. That is why the files need no fsync, no index on disk and no recovery.
//!
//! What stays in memory per spilled record is its place in the due order and in its partition's
//! held offsets (94–120 bytes measured, by resident memory over a million spilled records with due
//! times in random and in increasing order); its payload is on disk. Files are written in
//! segments and a segment is deleted once every record in it has gone back or was revoked. Each
//! backlog's folder holds a lock file it keeps locked while it lives; a member killed outright
//! leaves its folder behind, and the next one to start on the same directory removes every folder
//! whose lock no process holds.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::record::{Record, Retry};

/// The lock file of a spill folder.
const LOCK: &str = "lock";

/// How a spill folder's name starts: `altflow-retry-PID-SUFFIX`.
const FOLDER_PREFIX: &str = "altflow-retry-";

/// Bytes a spill segment grows to before the next one starts (smaller segments free disk sooner).
const SEGMENT_BYTES: u64 = 16 << 20;

/// The spill directory could not be used, or a spilled record could not be read back.
#[derive(Debug, thiserror::Error)]
pub enum BacklogError {
    /// Creating, writing or reading a spill file failed.
    #[error("retry.spill_dir: {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A spilled record did not decode (the file was changed under the stage).
    #[error("retry.spill_dir: {path} at byte {at}: a spilled record does not decode: {source}")]
    Corrupt {
        /// The segment file.
        path: PathBuf,
        /// Where the record starts.
        at: u64,
        /// The cause.
        source: prost::DecodeError,
    },
}

/// Where a parked record's payload is.
enum Parked {
    Memory(Box<Retry>),
    Disk { segment: u32, at: u64, len: u32 },
}

/// One spill file.
struct Segment {
    file: File,
    path: PathBuf,
    /// Bytes written.
    len: u64,
    /// Records in it not yet taken back or dropped.
    live: usize,
}

/// Parked records by due time, within a memory budget.
pub struct Backlog {
    /// Parked records by (due time, partition, offset).
    due: BTreeMap<(u64, i32, i64), Parked>,
    /// Offsets still parked, per partition.
    held: HashMap<i32, BTreeSet<i64>>,
    /// Payload bytes held in memory, and the most they may be.
    memory: usize,
    budget: usize,
    /// The spill directory (made on first spill, removed with the backlog), and its lock file,
    /// held while the directory is in use, and its segments.
    dir: PathBuf,
    lock: Option<File>,
    segments: BTreeMap<u32, Segment>,
    /// The segment being written.
    current: u32,
}

/// The bytes a parked record holds in memory, beyond its place in the order.
fn footprint(retry: &Retry) -> usize {
    retry.payload.len()
        + retry.key.len()
        + retry.topic.len()
        + retry.stage.len()
        + retry.reason.len()
}

impl Backlog {
    /// An empty backlog holding at most `budget` payload bytes in memory and spilling the rest
    /// into a directory of its own under `spill_dir`, made on the first spill.
    pub fn new(budget: usize, spill_dir: &Path) -> Self {
        let dir = spill_dir.join(format!(
            "{FOLDER_PREFIX}{}-{:x}",
            std::process::id(),
            rand_suffix()
        ));
        Self {
            due: BTreeMap::new(),
            held: HashMap::new(),
            memory: 0,
            budget,
            dir,
            lock: None,
            segments: BTreeMap::new(),
            current: 0,
        }
    }

    /// Checks at start that `spill_dir` is a directory the stage can write, so that a bad setting
    /// fails then rather than when the first host goes down; and removes the spill folders of
    /// members that died without removing theirs (a folder whose lock no live process holds).
    pub fn check_dir(spill_dir: &Path) -> Result<(), BacklogError> {
        std::fs::create_dir_all(spill_dir).map_err(io(spill_dir))?;
        let probe = spill_dir.join(format!(".altflow-probe-{}", std::process::id()));
        File::create(&probe).map_err(io(spill_dir))?;
        std::fs::remove_file(&probe).map_err(io(spill_dir))?;
        for entry in std::fs::read_dir(spill_dir)
            .map_err(io(spill_dir))?
            .flatten()
        {
            if !entry
                .file_name()
                .to_string_lossy()
                .starts_with(FOLDER_PREFIX)
            {
                continue;
            }
            let folder = entry.path();
            let Ok(lock) = File::open(folder.join(LOCK)) else {
                continue;
            };
            if lock.try_lock().is_ok() {
                tracing::info!(folder = %folder.display(), "removing a dead member's spill files");
                if let Err(error) = std::fs::remove_dir_all(&folder) {
                    tracing::warn!(folder = %folder.display(), %error, "could not remove");
                }
            }
        }
        Ok(())
    }

    /// Parks `retry`, read at `partition`/`offset`, until `retry.not_before_ms`.
    pub fn park(&mut self, partition: i32, offset: i64, retry: Retry) -> Result<(), BacklogError> {
        let key = (retry.not_before_ms, partition, offset);
        let size = footprint(&retry);
        let parked = if self.memory + size <= self.budget {
            self.memory += size;
            Parked::Memory(Box::new(retry))
        } else {
            self.spill(&retry)?
        };
        // A record read twice (a replay within one assignment) is parked once.
        if let Some(old) = self.due.insert(key, parked) {
            self.forget(old);
        }
        self.held.entry(partition).or_default().insert(offset);
        Ok(())
    }

    /// Takes the earliest record due at `now` (Unix milliseconds), if any.
    pub fn take_due(&mut self, now: u64) -> Result<Option<Retry>, BacklogError> {
        let Some(entry) = self.due.first_entry() else {
            return Ok(None);
        };
        if entry.key().0 > now {
            return Ok(None);
        }
        let ((_, partition, offset), parked) = entry.remove_entry();
        if let Some(held) = self.held.get_mut(&partition) {
            held.remove(&offset);
        }
        let retry = match parked {
            Parked::Memory(retry) => {
                self.memory -= footprint(&retry);
                *retry
            }
            Parked::Disk { segment, at, len } => {
                let retry = self.read(segment, at, len);
                self.release(segment);
                retry?
            }
        };
        Ok(Some(retry))
    }

    /// The earliest offset of `partition` still parked.
    pub fn held_from(&self, partition: i32) -> Option<i64> {
        self.held.get(&partition).and_then(|h| h.first().copied())
    }

    /// Drops what `partition` holds: its new owner reads it again from the topic.
    pub fn revoke(&mut self, partition: i32) {
        self.held.remove(&partition);
        let gone: Vec<_> = self
            .due
            .keys()
            .filter(|(_, p, _)| *p == partition)
            .copied()
            .collect();
        for key in gone {
            if let Some(parked) = self.due.remove(&key) {
                self.forget(parked);
            }
        }
    }

    /// Records parked, and how many of them are on disk.
    pub fn len(&self) -> (usize, usize) {
        let on_disk = self.segments.values().map(|s| s.live).sum();
        (self.due.len(), on_disk)
    }

    /// Payload bytes held in memory.
    pub fn memory_bytes(&self) -> usize {
        self.memory
    }

    /// Bytes of spill files on disk.
    pub fn disk_bytes(&self) -> u64 {
        self.segments.values().map(|s| s.len).sum()
    }

    /// Appends `retry` to the current segment (starting a new one when it is full).
    fn spill(&mut self, retry: &Retry) -> Result<Parked, BacklogError> {
        if self.lock.is_none() {
            // Made under another name and renamed once its lock is held, so that a member
            // starting meanwhile (`check_dir`) never sees it unlocked and takes it for a dead one.
            let name = self.dir.file_name().unwrap_or_default().to_string_lossy();
            let making = self.dir.with_file_name(format!(".making-{name}"));
            std::fs::create_dir_all(&making).map_err(io(&making))?;
            // Held for the backlog's life; the OS lets it go when the process dies, however it
            // dies, which is how a later member's `check_dir` tells a dead member's folder.
            let path = making.join(LOCK);
            let lock = File::create(&path).map_err(io(&path))?;
            lock.lock().map_err(io(&path))?;
            std::fs::rename(&making, &self.dir).map_err(io(&self.dir))?;
            self.lock = Some(lock);
        }
        if self
            .segments
            .get(&self.current)
            .is_none_or(|s| s.len >= SEGMENT_BYTES)
        {
            if self.segments.contains_key(&self.current) {
                self.current += 1;
            }
            let path = self.dir.join(format!("{:08}.spill", self.current));
            let file = File::options()
                .create_new(true)
                .read(true)
                .append(true)
                .open(&path)
                .map_err(io(&path))?;
            self.segments.insert(
                self.current,
                Segment {
                    file,
                    path,
                    len: 0,
                    live: 0,
                },
            );
        }
        let bytes = retry.to_bytes();
        let segment = self.segments.get_mut(&self.current).expect("made above");
        // Written straight through (no buffer): a record is read back only after its delay,
        // and the page cache keeps recent writes cheap to read.
        segment.file.write_all(&bytes).map_err(io(&segment.path))?;
        let at = segment.len;
        segment.len += bytes.len() as u64;
        segment.live += 1;
        Ok(Parked::Disk {
            segment: self.current,
            at,
            len: bytes.len() as u32,
        })
    }

    /// Reads a spilled record back.
    fn read(&self, segment: u32, at: u64, len: u32) -> Result<Retry, BacklogError> {
        let segment = &self.segments[&segment];
        let mut bytes = vec![0; len as usize];
        segment
            .file
            .read_exact_at(&mut bytes, at)
            .map_err(io(&segment.path))?;
        Retry::from_bytes(&bytes).map_err(|source| BacklogError::Corrupt {
            path: segment.path.clone(),
            at,
            source,
        })
    }

    /// A parked record is gone without being read back.
    fn forget(&mut self, parked: Parked) {
        match parked {
            Parked::Memory(retry) => self.memory -= footprint(&retry),
            Parked::Disk { segment, .. } => self.release(segment),
        }
    }

    /// One record of `segment` is gone; a segment with none left is deleted (the one being
    /// written too: the next spill starts it again).
    fn release(&mut self, segment: u32) {
        let Some(s) = self.segments.get_mut(&segment) else {
            return;
        };
        s.live -= 1;
        if s.live == 0 {
            let s = self.segments.remove(&segment).expect("found above");
            if let Err(error) = std::fs::remove_file(&s.path) {
                tracing::warn!(path = %s.path.display(), %error, "could not delete a spent spill file");
            }
        }
    }
}

impl Drop for Backlog {
    fn drop(&mut self) {
        if self.lock.is_some() {
            // Best effort: the files are a cache of the retry topic.
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Turns an I/O error on `path` into a [`BacklogError`].
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BacklogError {
    let path = path.to_path_buf();
    move |source| BacklogError::Io { path, source }
}

/// A suffix that tells apart two backlogs of one process (one per retry stage instance).
fn rand_suffix() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    // Each `RandomState` is keyed afresh, so the hash of nothing differs between calls.
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retry(due: u64, n: usize) -> Retry {
        Retry {
            topic: "accepted".into(),
            key: format!("k{n}"),
            payload: vec![n as u8; 1000],
            not_before_ms: due,
            ..Default::default()
        }
    }

    fn walk(dir: &Path) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        entries
            .flatten()
            .flat_map(|e| {
                let path = e.path();
                if path.is_dir() {
                    walk(&path)
                } else {
                    vec![path]
                }
            })
            .collect()
    }

    /// The spill segments under `dir`.
    fn segments(dir: &Path) -> Vec<PathBuf> {
        walk(dir)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "spill"))
            .collect()
    }

    #[test]
    fn records_past_the_memory_budget_wait_on_disk_and_come_back_whole_in_due_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut backlog = Backlog::new(10_000, dir.path());
        // 3,000 records of ~1 KB each, due in reverse order of arrival.
        for n in 0..3000 {
            backlog
                .park(n as i32 % 4, n as i64, retry(10_000 - n as u64, n))
                .unwrap();
        }
        assert!(
            backlog.memory_bytes() <= 10_000,
            "{}",
            backlog.memory_bytes()
        );
        let (parked, on_disk) = backlog.len();
        assert_eq!(parked, 3000);
        assert!(on_disk >= 2990, "{on_disk} on disk");
        assert!(backlog.disk_bytes() >= 2990 * 1000);
        assert!(!segments(dir.path()).is_empty());
        assert_eq!(backlog.held_from(1), Some(1));
        // Nothing is due before its time.
        assert!(backlog.take_due(7_000).unwrap().is_none());
        let mut back = Vec::new();
        while let Some(r) = backlog.take_due(u64::MAX).unwrap() {
            back.push(r);
        }
        assert_eq!(back.len(), 3000);
        for (i, r) in back.iter().enumerate() {
            let n = 2999 - i;
            assert_eq!(r, &retry(10_000 - n as u64, n), "record {n}");
        }
        assert_eq!(backlog.len(), (0, 0));
        assert_eq!(backlog.memory_bytes(), 0);
        assert!(
            segments(dir.path()).is_empty(),
            "spent segments are deleted"
        );
        assert_eq!(backlog.held_from(1), None);
    }

    #[test]
    fn a_revoked_partition_frees_its_memory_and_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut backlog = Backlog::new(0, dir.path());
        for n in 0..100 {
            backlog.park(7, n, retry(5, n as usize)).unwrap();
        }
        // The same record read again (a replay) is parked once.
        backlog.park(7, 3, retry(5, 3)).unwrap();
        assert_eq!(backlog.len(), (100, 100));
        backlog.park(8, 0, retry(5, 0)).unwrap();
        backlog.revoke(7);
        assert_eq!(backlog.len(), (1, 1));
        assert_eq!(backlog.held_from(7), None);
        assert_eq!(backlog.take_due(5).unwrap().unwrap().key, "k0");
        assert!(segments(dir.path()).is_empty());
        drop(backlog);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "its directory goes too"
        );
    }

    #[test]
    fn a_dead_members_spill_folder_is_removed_at_start_and_a_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mut live = Backlog::new(0, dir.path());
        live.park(0, 0, retry(5, 0)).unwrap();
        // A member killed mid-run: its folder, lock file (no longer held) and a segment remain.
        let dead = dir.path().join("altflow-retry-1-dead");
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join(LOCK), b"").unwrap();
        std::fs::write(dead.join("00000000.spill"), vec![0; 4096]).unwrap();
        // Someone else's folder is not touched.
        let other = dir.path().join("other");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join(LOCK), b"").unwrap();
        Backlog::check_dir(dir.path()).unwrap();
        assert!(!dead.exists(), "the dead member's files are gone");
        assert!(other.exists());
        assert_eq!(
            walk(&live.dir).len(),
            2,
            "the live member's lock and segment stay"
        );
        assert_eq!(live.take_due(5).unwrap().unwrap().key, "k0");
    }

    #[test]
    fn an_unwritable_spill_dir_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-dir");
        std::fs::write(&file, b"x").unwrap();
        let error = Backlog::check_dir(&file).unwrap_err().to_string();
        assert!(error.starts_with("retry.spill_dir: "), "{error}");
        assert!(error.contains("not-a-dir"), "{error}");
    }
}
