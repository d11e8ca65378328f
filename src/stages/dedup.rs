//! The dedup stage: seed 003's image–text aggregation, duplicate images and test-set overlap.
//!
//! Pairs arrive keyed by the SHA-256 of the original image, so one member sees every text of an
//! image. The stage holds a window of pairs per partition (never committing past them), then decides
//! the window at once:
//!
//! 1. an image listed in a test set goes (`test_set`; seed 004 checks COCO, nocaps and CC);
//! 2. a text that came with more than `max_images_per_text` distinct images goes with all of them
//!    (`shared_text`; seed 003: "if too many images have the same description, we will directly
//!    drop all these pairs");
//! 3. of the texts an image came with, the best scored is kept and the others go (`better_text`;
//!    seed 003: "we only select the best scored <text, image> pair");
//! 4. an image already kept goes (`duplicate_image`), and so does one whose perceptual hash lies
//!    within `near_distance` bits of a kept one (`near_duplicate`).
//!
//! What "already kept" and a text's image count remember is bounded (a fixed number of recent images,
//! a count-min sketch of texts) and per member: an image's texts meet only within one window, and a
//! text's images spread over the members owning them. Kept pairs go on keyed by sample id, as the
//! writer's own dedup needs. The shared-text rule counted exactly, over everything written, is a
//! second pass: `altflow query --max-images-per-text N` (see [`crate::query::drop_shared_texts`]).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;

use crate::bounded::{BoundedSet, NearIndex};
use crate::config::DedupConfig;
use crate::filter::sketch::CountMinSketch;
use crate::reason::Reason;
use crate::record::Sample;
use crate::stage::held::Held;
use crate::stage::{Emitter, Input, Stage, StageError, isolate};

/// A test-set hash file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TestSetError {
    /// The file could not be read.
    #[error("dedup.test_sets: {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is not a hash.
    #[error(
        "dedup.test_sets: {path}, line {line}: `{text}` is neither a SHA-256 (64 hex digits) nor a perceptual hash (16 hex digits)"
    )]
    BadLine {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The line.
        text: String,
    },
}

impl From<TestSetError> for crate::stage::StageError {
    fn from(error: TestSetError) -> Self {
        crate::stage::StageError::failed(error)
    }
}

/// Hashes of test-set images: SHA-256 of the files, and perceptual hashes matched within a distance.
pub struct TestSets {
    sha256: HashSet<[u8; 32]>,
    phash: NearIndex,
}

impl TestSets {
    /// Reads hash files (see [`DedupConfig::test_sets`]); a perceptual hash matches within
    /// `distance` bits.
    pub fn load(paths: &[PathBuf], distance: u32) -> Result<Self, TestSetError> {
        let mut sha256 = HashSet::new();
        let mut phashes = Vec::new();
        for path in paths {
            let text = std::fs::read_to_string(path).map_err(|source| TestSetError::Read {
                path: path.clone(),
                source,
            })?;
            for (number, line) in text.lines().enumerate() {
                let content = line.split('#').next().unwrap_or("");
                // A line starts with a hash; more hashes may follow, then anything (a file name,
                // as `altflow hash` writes it).
                for (i, token) in content.split_whitespace().enumerate() {
                    let mut digest = [0u8; 32];
                    if token.len() == 64 && hex::decode_to_slice(token, &mut digest).is_ok() {
                        sha256.insert(digest);
                    } else if let Some(hash) = (token.len() == 16)
                        .then(|| u64::from_str_radix(token, 16).ok())
                        .flatten()
                    {
                        phashes.push(hash);
                    } else if i == 0 {
                        return Err(TestSetError::BadLine {
                            path: path.clone(),
                            line: number + 1,
                            text: line.to_string(),
                        });
                    } else {
                        break;
                    }
                }
            }
        }
        let mut phash = NearIndex::new(distance, phashes.len());
        for hash in phashes {
            phash.insert(hash);
        }
        Ok(Self { sha256, phash })
    }

    /// No hashes.
    pub fn empty() -> Self {
        Self {
            sha256: HashSet::new(),
            phash: NearIndex::new(0, 1),
        }
    }

    /// Whether the image with these hashes is in a test set.
    pub fn contains(&self, sha256: &[u8], phash: u64) -> bool {
        <[u8; 32]>::try_from(sha256).is_ok_and(|d| self.sha256.contains(&d))
            || (!self.phash.is_empty() && self.phash.find(phash).is_some())
    }

    /// Number of hashes.
    pub fn len(&self) -> usize {
        self.sha256.len() + self.phash.len()
    }

    /// Whether there are no hashes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The dedup stage.
pub struct DedupStage {
    config: DedupConfig,
    output: Arc<str>,
    test_sets: TestSets,
    /// Pairs of each partition waiting for their window to close.
    held: Held<Vec<Input<Sample>>>,
    kept: BoundedSet<[u8; 32]>,
    near: NearIndex,
    texts: CountMinSketch,
}

impl DedupStage {
    /// A dedup stage producing kept pairs to `output`.
    pub fn new(config: DedupConfig, test_sets: TestSets, output: Arc<str>) -> Self {
        Self {
            kept: BoundedSet::new(config.remember),
            near: NearIndex::new(config.near_distance, config.remember),
            texts: CountMinSketch::new(config.sketch_width, 4),
            config,
            output,
            test_sets,
            held: Held::default(),
        }
    }

    /// Loads the configured test sets and builds the stage.
    pub fn from_config(config: DedupConfig, output: Arc<str>) -> Result<Self, TestSetError> {
        let test_sets = TestSets::load(&config.test_sets, config.near_distance)?;
        Ok(Self::new(config, test_sets, output))
    }

    /// The score that ranks an image's texts.
    fn score(&self, pair: &Sample) -> f32 {
        let candidate = pair.candidate.as_ref();
        if self.config.score == "dominance" {
            return candidate.map_or(0.0, |c| c.dominance);
        }
        pair.scores
            .get(&self.config.score)
            .copied()
            .unwrap_or(f32::NEG_INFINITY)
    }

    /// What the window's decision needs of one pair, read from the pair alone (no state changes):
    /// `Err` with the reason it goes before the decision (incomplete, in a test set).
    fn read(&self, pair: &Sample) -> Result<Read, (Reason, String)> {
        let (id, url) = pair.id_and_url();
        let Some(image) = pair.image.as_ref().filter(|_| pair.candidate.is_some()) else {
            return Err((Reason::Incomplete, "pair without image or text".into()));
        };
        let Ok(sha) = <[u8; 32]>::try_from(image.sha256.as_slice()) else {
            return Err((Reason::Incomplete, "image without a SHA-256".into()));
        };
        if self.test_sets.contains(&sha, image.phash) {
            return Err((
                Reason::TestSet,
                format!("image {} is in a test set", hex::encode(&sha[..8])),
            ));
        }
        let text = text_key(pair);
        #[cfg(test)]
        if text == tests::POISON {
            panic!("a text the tests poisoned");
        }
        let words = pair
            .candidate
            .as_ref()
            .map_or(0, |c| c.alt.split_whitespace().count());
        Ok(Read {
            id,
            url,
            sha,
            phash: image.phash,
            text,
            rank: (self.score(pair), words),
        })
    }

    /// Decides one partition's window.
    ///
    /// Each pair is first read on its own ([`Self::read`]), isolated: a pair whose reading panics
    /// goes to the dead letters and the window is decided without it (replayed, it would panic on
    /// every member that took it). The decision itself changes the stage's memory of kept images
    /// and counted texts, so it is not isolated; it works only on what the reading computed
    /// (hashes, keys, ranks), never on the records' contents.
    fn decide(&mut self, partition: i32, out: &mut Emitter) {
        let Some((_, window)) = self.held.take(partition) else {
            return;
        };
        let mut live: Vec<(Sample, Read)> = Vec::with_capacity(window.len());
        for input in window {
            match isolate(|| self.read(&input.record)) {
                Ok(Ok(read)) => live.push((input.record, read)),
                Ok(Err((reason, detail))) => {
                    let (id, url) = input.record.id_and_url();
                    out.reject(reason, &id, &url, detail);
                }
                Err(panic) => out.panicked(&input, &panic),
            }
        }

        // Distinct new images per text in this window, added to what earlier windows counted.
        let mut images_per_text: HashMap<&str, HashSet<[u8; 32]>> = HashMap::new();
        for (_, read) in &live {
            if !self.kept.contains(&read.sha) {
                images_per_text
                    .entry(&read.text)
                    .or_default()
                    .insert(read.sha);
            }
        }
        let mut shared: HashMap<String, u32> = HashMap::new();
        for (text, images) in images_per_text {
            // One count per distinct image; the last `add` returns the text's new count.
            let mut count = 0;
            for _ in &images {
                count = self.texts.add(text.as_bytes());
            }
            if count > self.config.max_images_per_text {
                shared.insert(text.to_string(), count);
            }
        }

        // The texts of each image, in order of the image's first pair.
        let mut order: Vec<[u8; 32]> = Vec::new();
        let mut by_image: HashMap<[u8; 32], Vec<(Sample, Read)>> = HashMap::new();
        for (pair, read) in live {
            if let Some(&count) = shared.get(&read.text) {
                out.reject(
                    Reason::SharedText,
                    &read.id,
                    &read.url,
                    format!(
                        "{:?} came with {count} images (at most {})",
                        read.text, self.config.max_images_per_text
                    ),
                );
                continue;
            }
            by_image
                .entry(read.sha)
                .or_insert_with(|| {
                    order.push(read.sha);
                    Vec::new()
                })
                .push((pair, read));
        }
        for sha in order {
            let mut pairs = by_image.remove(&sha).unwrap_or_default();
            let (winner, won) = pairs.swap_remove(best(&pairs));
            for (_, other) in pairs {
                // The same sample again (one image and text on two pages) is a plain duplicate.
                let (reason, detail) = if other.id == won.id {
                    (Reason::Duplicate, "the same sample came twice".to_string())
                } else {
                    (
                        Reason::BetterText,
                        format!("the same image is kept as {}", won.id),
                    )
                };
                out.reject(reason, &other.id, &other.url, detail);
            }
            if self.kept.contains(&sha) {
                out.reject(
                    Reason::DuplicateImage,
                    &won.id,
                    &won.url,
                    format!("image {} was already kept", hex::encode(&sha[..8])),
                );
                continue;
            }
            if self.config.near_duplicates
                && let Some(similar) = self.near.find(won.phash)
            {
                out.reject(
                    Reason::NearDuplicate,
                    &won.id,
                    &won.url,
                    format!(
                        "perceptual hash {:016x} is {} bits from kept {similar:016x}",
                        won.phash,
                        (won.phash ^ similar).count_ones()
                    ),
                );
                continue;
            }
            self.kept.insert(sha);
            self.near.insert(won.phash);
            out.emit(&self.output, &won.id, &winner);
        }
    }
}

/// What the window's decision needs of one pair ([`DedupStage::read`]).
struct Read {
    id: String,
    url: String,
    sha: [u8; 32],
    phash: u64,
    /// The text the pair is compared by ([`text_key`]).
    text: String,
    /// Its rank among the image's texts: score, then number of words.
    rank: (f32, usize),
}

/// Index of the best-ranked pair: highest score, then most words, then the first.
fn best(pairs: &[(Sample, Read)]) -> usize {
    let mut best = 0;
    for (i, (_, read)) in pairs.iter().enumerate().skip(1) {
        let top = pairs[best].1.rank;
        if read.rank.0 > top.0 || (read.rank.0 == top.0 && read.rank.1 > top.1) {
            best = i;
        }
    }
    best
}

/// The description a text is compared by: the page's alt text, lower case, white space collapsed
/// (not the filter's transformed caption, whose name tokens would make different texts equal).
fn text_key(pair: &Sample) -> String {
    let alt = pair.candidate.as_ref().map_or("", |c| c.alt.as_str());
    alt.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

#[async_trait]
impl Stage for DedupStage {
    type Input = Sample;

    async fn process(
        &mut self,
        batch: Vec<Input<Sample>>,
        out: &mut Emitter,
    ) -> Result<(), StageError> {
        let mut full = Vec::new();
        for input in batch {
            let partition = input.partition;
            let window = self.held.input(partition, input.offset, Vec::new);
            window.push(input);
            if window.len() >= self.config.window && !full.contains(&partition) {
                full.push(partition);
            }
        }
        for partition in full {
            self.decide(partition, out);
        }
        Ok(())
    }

    async fn tick(&mut self, out: &mut Emitter) -> Result<(), StageError> {
        for partition in self.held.idle(self.config.flush_after) {
            self.decide(partition, out);
        }
        Ok(())
    }

    fn held_from(&self, _topic: &str, partition: i32) -> Option<i64> {
        self.held.held_from(partition)
    }

    async fn revoked(&mut self, partitions: &[(Arc<str>, i32)]) {
        self.held.revoke(partitions);
    }

    async fn finish(&mut self, out: &mut Emitter) -> Result<(), StageError> {
        for partition in self.held.partitions() {
            self.decide(partition, out);
        }
        Ok(())
    }
}

/// Both hashes of an image file as the fetch stage computes them (the SHA-256 of the file's bytes,
/// the perceptual hash of the image resized to `max_side`), for building test-set files.
pub fn hash_image_file(path: &Path, max_side: u32) -> Result<(String, String), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let config = crate::config::FetchConfig {
        max_side,
        ..Default::default()
    };
    let image = super::fetch::process_image(&bytes, &config, &Default::default())
        .map_err(|r| format!("{}: {} ({})", path.display(), r.reason, r.detail))?;
    Ok((hex::encode(&image.sha256), format!("{:016x}", image.phash)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Candidate, Image, Record, Reject};

    fn pair(url: &str, alt: &str, image: u8, phash: u64, dominance: f32) -> Sample {
        Sample {
            candidate: Some(Candidate {
                id: crate::record::sample_id(url, alt),
                image_url: url.into(),
                alt: alt.into(),
                dominance,
                ..Default::default()
            }),
            image: Some(Image {
                sha256: vec![image; 32],
                phash,
                jpeg: vec![0xFF, 0xD8],
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn batch(pairs: Vec<Sample>) -> Vec<Input<Sample>> {
        pairs
            .into_iter()
            .enumerate()
            .map(|(i, record)| Input {
                record,
                topic: Arc::from("pairs"),
                partition: 0,
                offset: 100 + i as i64,
            })
            .collect()
    }

    /// Runs the pairs through one window; returns the kept alt texts and the rejection reasons by
    /// alt text.
    async fn run(
        stage: &mut DedupStage,
        pairs: Vec<Sample>,
    ) -> (Vec<String>, Vec<(String, String)>) {
        let alts: HashMap<String, String> = pairs
            .iter()
            .map(|p| {
                let c = p.candidate.as_ref().unwrap();
                (c.id.clone(), c.alt.clone())
            })
            .collect();
        let mut out = Emitter::new(
            "dedup",
            Arc::from("rejects"),
            Arc::from("retry"),
            Arc::from("dead"),
        );
        stage.process(batch(pairs), &mut out).await.unwrap();
        assert_eq!(stage.held_from("pairs", 0), Some(100), "held until decided");
        stage.finish(&mut out).await.unwrap();
        assert_eq!(stage.held_from("pairs", 0), None);
        let (messages, _) = out.take();
        let mut kept = Vec::new();
        let mut rejected = Vec::new();
        for m in messages {
            if &*m.topic == "unique" {
                let p = Sample::from_bytes(&m.payload).unwrap();
                let c = p.candidate.unwrap();
                assert_eq!(
                    m.key.as_ref(),
                    c.id.as_bytes(),
                    "kept pairs keyed by sample id"
                );
                kept.push(c.alt);
            } else {
                let r = Reject::from_bytes(&m.payload).unwrap();
                rejected.push((alts[&r.id].clone(), r.reason));
            }
        }
        (kept, rejected)
    }

    fn stage(config: DedupConfig) -> DedupStage {
        DedupStage::new(config, TestSets::empty(), Arc::from("unique"))
    }

    #[tokio::test]
    async fn an_image_keeps_its_best_scored_text() {
        let mut s = stage(DedupConfig::default());
        let (kept, rejected) = run(
            &mut s,
            vec![
                pair("http://a/1.jpg", "a red boat", 1, 0x0, 0.2),
                pair("http://b/1.jpg", "a red boat on a calm sea", 1, 0x0, 0.9),
                pair("http://c/1.jpg", "boat picture at the harbour", 1, 0x0, 0.9),
                pair("http://d/2.jpg", "a green field", 2, u64::MAX, 0.1),
            ],
        )
        .await;
        // 0.9 beats 0.2; of the two at 0.9 the one with more words wins.
        assert_eq!(kept, ["a red boat on a calm sea", "a green field"]);
        assert_eq!(
            rejected,
            [
                ("a red boat".to_string(), "better_text".to_string()),
                ("boat picture at the harbour".into(), "better_text".into()),
            ]
        );
        // A later window: the same image again is a duplicate.
        let (kept, rejected) = run(
            &mut s,
            vec![pair("http://e/1.jpg", "the boat again", 1, 0x0, 1.0)],
        )
        .await;
        assert!(kept.is_empty());
        assert_eq!(rejected[0].1, "duplicate_image");
    }

    #[tokio::test]
    async fn a_named_score_ranks_the_texts() {
        let mut s = stage(DedupConfig {
            score: "clip_similarity".into(),
            ..Default::default()
        });
        let mut low = pair("http://a/1.jpg", "a dog in a long sentence here", 1, 0, 0.9);
        low.scores.insert("clip_similarity".into(), 0.21);
        let mut high = pair("http://b/1.jpg", "a dog", 1, 0, 0.1);
        high.scores.insert("clip_similarity".into(), 0.35);
        let (kept, _) = run(&mut s, vec![low, high]).await;
        assert_eq!(kept, ["a dog"]);
    }

    #[tokio::test]
    async fn a_text_on_too_many_images_is_dropped_for_all_of_them() {
        let mut s = stage(DedupConfig {
            max_images_per_text: 2,
            ..Default::default()
        });
        let spread = |i: u8| (i as u64) << (8 * (i % 8)) | (i as u64).rotate_left(29);
        let mut pairs: Vec<Sample> = (1..=3)
            .map(|i| {
                pair(
                    &format!("http://x/{i}.jpg"),
                    "Stock  Photo",
                    i,
                    spread(i),
                    0.5,
                )
            })
            .collect();
        // The same image with another text keeps that one instead.
        pairs.push(pair(
            "http://y/1.jpg",
            "a lighthouse at dusk",
            1,
            spread(1),
            0.1,
        ));
        pairs.push(pair(
            "http://z/9.jpg",
            "a quiet street",
            9,
            0xFFFF_0000_FFFF_0000,
            0.5,
        ));
        let (kept, rejected) = run(&mut s, pairs).await;
        assert_eq!(kept, ["a lighthouse at dusk", "a quiet street"]);
        assert_eq!(
            rejected.iter().filter(|(_, r)| r == "shared_text").count(),
            3
        );
        // Within the limit, a shared text stays: two images of "sunset", in two windows.
        let mut s = stage(DedupConfig {
            max_images_per_text: 2,
            near_duplicates: false,
            ..Default::default()
        });
        let (kept, _) = run(&mut s, vec![pair("http://a/1", "sunset", 1, 0, 0.5)]).await;
        assert_eq!(kept.len(), 1);
        let (kept, _) = run(&mut s, vec![pair("http://a/2", "sunset", 2, 0, 0.5)]).await;
        assert_eq!(kept.len(), 1);
        // The third image of "sunset" crosses the limit: counts carry across windows.
        let (kept, rejected) = run(&mut s, vec![pair("http://a/3", "sunset", 3, 0, 0.5)]).await;
        assert!(kept.is_empty());
        assert_eq!(rejected[0].1, "shared_text");
    }

    #[tokio::test]
    async fn near_duplicates_within_the_distance_are_dropped() {
        let mut s = stage(DedupConfig {
            near_distance: 4,
            ..Default::default()
        });
        let base = 0x0123_4567_89AB_CDEF_u64;
        let (kept, rejected) = run(
            &mut s,
            vec![
                pair("http://a/1", "the original photo", 1, base, 0.5),
                // 4 bits away: a re-encoded copy.
                pair("http://b/2", "a resized copy", 2, base ^ 0b1111, 0.5),
                // 5 bits away: a different image.
                pair("http://c/3", "another picture", 3, base ^ 0b11111, 0.5),
            ],
        )
        .await;
        assert_eq!(kept, ["the original photo", "another picture"]);
        assert_eq!(
            rejected,
            [("a resized copy".into(), "near_duplicate".into())]
        );
    }

    #[tokio::test]
    async fn test_set_images_are_dropped_by_either_hash() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("coco.txt");
        std::fs::write(
            &file,
            format!(
                "# COCO val images\n{}\n{:016x}  # a perceptual hash\n\n",
                hex::encode([7u8; 32]),
                0xAAAA_AAAA_AAAA_AAAA_u64
            ),
        )
        .unwrap();
        let sets = TestSets::load(std::slice::from_ref(&file), 4).unwrap();
        assert_eq!(sets.len(), 2);
        let mut s = DedupStage::new(DedupConfig::default(), sets, Arc::from("unique"));
        let (kept, rejected) = run(
            &mut s,
            vec![
                pair("http://a/1", "a test image", 7, 0, 0.5),
                pair(
                    "http://a/2",
                    "a resized test image",
                    8,
                    0xAAAA_AAAA_AAAA_AAAB,
                    0.5,
                ),
                pair(
                    "http://a/3",
                    "a training image",
                    9,
                    0x5555_0000_5555_0000,
                    0.5,
                ),
            ],
        )
        .await;
        assert_eq!(kept, ["a training image"]);
        assert!(rejected.iter().all(|(_, r)| r == "test_set"));
        assert_eq!(rejected.len(), 2);

        std::fs::write(&file, "0123\n").unwrap();
        let error = TestSets::load(&[file], 4).err().unwrap().to_string();
        assert!(error.contains("coco.txt, line 1: `0123`"), "{error}");
    }

    /// A text on which the pair's reading panics (in tests only).
    pub(super) const POISON: &str = "a poisoned text";

    #[tokio::test]
    async fn a_pair_whose_reading_panics_is_dead_lettered_and_its_window_decided_without_it() {
        let mut s = stage(DedupConfig::default());
        let mut out = Emitter::new(
            "dedup",
            Arc::from("rejects"),
            Arc::from("retry"),
            Arc::from("dead"),
        );
        let poison = pair("http://a/2", POISON, 2, 0xF0F0, 0.9);
        let pairs = vec![
            pair("http://a/1", "a red boat", 1, 0, 0.5),
            poison.clone(),
            // The poisoned pair's image with another text: kept, as if the poison had never come.
            pair("http://b/2", "a blue boat", 2, 0xF0F0, 0.1),
        ];
        s.process(batch(pairs), &mut out).await.unwrap();
        s.finish(&mut out).await.unwrap();
        let (messages, _) = out.take();
        let letters = crate::stage::dead_letters(&messages);
        assert_eq!(letters.len(), 1);
        assert_eq!((letters[0].partition, letters[0].offset), (0, 101));
        assert!(
            letters[0].error.contains("a text the tests poisoned"),
            "{}",
            letters[0].error
        );
        assert_eq!(Sample::from_bytes(&letters[0].payload).unwrap(), poison);
        let kept: Vec<String> = messages
            .iter()
            .filter(|m| &*m.topic == "unique")
            .map(|m| {
                Sample::from_bytes(&m.payload)
                    .unwrap()
                    .candidate
                    .unwrap()
                    .alt
            })
            .collect();
        assert_eq!(kept, ["a red boat", "a blue boat"]);
        assert!(messages.iter().all(|m| &*m.topic != "rejects"));
        // The stage goes on: a later window is decided as usual.
        let (kept, _) = run(
            &mut s,
            vec![pair("http://a/3", "a green boat", 3, 0xFF, 0.5)],
        )
        .await;
        assert_eq!(kept, ["a green boat"]);
    }

    #[tokio::test]
    async fn a_full_window_is_decided_at_once_and_revoked_pairs_are_dropped() {
        let mut s = stage(DedupConfig {
            window: 2,
            ..Default::default()
        });
        let mut out = Emitter::new(
            "dedup",
            Arc::from("rejects"),
            Arc::from("retry"),
            Arc::from("dead"),
        );
        let pairs = vec![
            pair("http://a/1", "one photo", 1, 0, 0.5),
            pair("http://a/2", "two photos", 2, u64::MAX, 0.5),
            pair("http://a/3", "three photos", 3, 0xFFFF_FFFF, 0.5),
        ];
        s.process(batch(pairs), &mut out).await.unwrap();
        // The window filled at the second pair; the rest of the batch is decided with it.
        assert_eq!(out.take().1, 3);
        assert_eq!(s.held_from("pairs", 0), None);
        s.process(
            batch(vec![pair("http://a/4", "four", 4, 0xF0, 0.5)]),
            &mut out,
        )
        .await
        .unwrap();
        assert_eq!(s.held_from("pairs", 0), Some(100));
        s.revoked(&[(Arc::from("pairs"), 0)]).await;
        assert_eq!(s.held_from("pairs", 0), None);
        s.finish(&mut out).await.unwrap();
        assert_eq!(
            out.take().1,
            0,
            "a revoked partition's pairs are the new owner's"
        );
    }
}
