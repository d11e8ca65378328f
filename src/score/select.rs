//! Selection by score: a fixed threshold (LAION's CLIP cosine ≥ 0.28), or the top share of the
//! stream (DataComp's top 30 %, seed 001's amalgams of "the top-scoring examples by one metric").
//!
//! A stream has no end to sort, so "top N %" is judged against the scores of a sliding window,
//! kept in a quantile sketch of bounded size: log-spaced buckets whose every value is within a
//! relative error α of the quantile it stands for (the scheme of DDSketch, Masson et al., VLDB
//! 2019). The window is a ring of blocks, each its own sketch: when the newest block is full the
//! oldest one is subtracted from the total, so the window slides by a block at a time and covers
//! between `window − window/BLOCKS` and `window` scores.

use std::collections::{BTreeMap, VecDeque};

use crate::config::SelectConfig;

/// Relative accuracy of the quantile sketch: a returned quantile is within 0.5 % of a score that
/// has the asked rank.
const ALPHA: f64 = 0.005;
/// Magnitudes below this count as zero (keeps the bucket range of tiny scores bounded).
const MIN_MAGNITUDE: f64 = 1e-9;
/// Blocks the window is made of.
const BLOCKS: u64 = 8;

/// Counts of scores in log-spaced buckets, by sign.
#[derive(Clone, Debug, Default)]
struct Sketch {
    positive: BTreeMap<i32, u64>,
    negative: BTreeMap<i32, u64>,
    zero: u64,
    count: u64,
}

fn gamma() -> f64 {
    (1.0 + ALPHA) / (1.0 - ALPHA)
}

/// The bucket of magnitude `m` (> MIN_MAGNITUDE): bucket i holds (γ^(i−1), γ^i].
fn bucket(m: f64) -> i32 {
    (m.ln() / gamma().ln()).ceil() as i32
}

/// The value a bucket stands for: within α of every magnitude in it.
fn representative(i: i32) -> f64 {
    2.0 * gamma().powi(i) / (gamma() + 1.0)
}

impl Sketch {
    fn add(&mut self, value: f64) {
        self.count += 1;
        let m = value.abs();
        if m < MIN_MAGNITUDE {
            self.zero += 1;
        } else if value > 0.0 {
            *self.positive.entry(bucket(m)).or_default() += 1;
        } else {
            *self.negative.entry(bucket(m)).or_default() += 1;
        }
    }

    /// Removes the counts of `other` (which were added to `self` before).
    fn subtract(&mut self, other: &Sketch) {
        fn sub(into: &mut BTreeMap<i32, u64>, from: &BTreeMap<i32, u64>) {
            for (i, n) in from {
                if let Some(c) = into.get_mut(i) {
                    *c -= n;
                    if *c == 0 {
                        into.remove(i);
                    }
                }
            }
        }
        sub(&mut self.positive, &other.positive);
        sub(&mut self.negative, &other.negative);
        self.zero -= other.zero;
        self.count -= other.count;
    }

    /// The score at quantile `q` ∈ [0, 1] (lower rank ⌊q·(n−1)⌋), or `None` when empty.
    fn quantile(&self, q: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = (q.clamp(0.0, 1.0) * (self.count - 1) as f64).floor() as u64;
        let mut seen = 0;
        // Ascending order: the most negative first (largest magnitude), then zero, then positive.
        for (&i, &n) in self.negative.iter().rev() {
            seen += n;
            if seen > rank {
                return Some(-representative(i));
            }
        }
        seen += self.zero;
        if seen > rank {
            return Some(0.0);
        }
        for (&i, &n) in &self.positive {
            seen += n;
            if seen > rank {
                return Some(representative(i));
            }
        }
        unreachable!("rank {rank} < count {}", self.count)
    }

    fn buckets(&self) -> usize {
        self.positive.len() + self.negative.len() + 1
    }
}

/// Quantiles of the last `window` scores, approximately (see the module docs).
#[derive(Clone, Debug)]
pub struct SlidingQuantiles {
    /// Full blocks, oldest first.
    blocks: VecDeque<Sketch>,
    current: Sketch,
    /// Everything in `blocks` and `current`.
    total: Sketch,
    block_len: u64,
}

impl SlidingQuantiles {
    /// A window over the last `window` (≥ 1) scores.
    pub fn new(window: u64) -> Self {
        Self {
            blocks: VecDeque::new(),
            current: Sketch::default(),
            total: Sketch::default(),
            block_len: window.div_ceil(BLOCKS).max(1),
        }
    }

    /// Adds a score (NaN is ignored).
    pub fn add(&mut self, value: f32) {
        if value.is_nan() {
            return;
        }
        if self.current.count == self.block_len {
            self.blocks.push_back(std::mem::take(&mut self.current));
            if self.blocks.len() as u64 >= BLOCKS {
                let oldest = self.blocks.pop_front().expect("just checked");
                self.total.subtract(&oldest);
            }
        }
        self.current.add(value as f64);
        self.total.add(value as f64);
    }

    /// The score at quantile `q` of the window, or `None` before any score.
    pub fn quantile(&self, q: f64) -> Option<f32> {
        self.total.quantile(q).map(|v| v as f32)
    }

    /// Scores in the window.
    pub fn len(&self) -> u64 {
        self.total.count
    }

    /// Whether no score was added yet.
    pub fn is_empty(&self) -> bool {
        self.total.count == 0
    }

    /// Buckets held in all (bounded: at most about 10,900 per sign for any `f32`, 460 for
    /// magnitudes between 0.01 and 1, per block).
    pub fn buckets(&self) -> usize {
        self.total.buckets()
            + self.current.buckets()
            + self.blocks.iter().map(Sketch::buckets).sum::<usize>()
    }
}

/// Why a score failed its selection.
#[derive(Clone, Debug, PartialEq)]
pub struct Failed {
    /// The threshold it was held against.
    pub threshold: f32,
    /// Which rule: `min` or `top_percent`.
    pub rule: &'static str,
}

/// The selection on one score.
#[derive(Clone, Debug)]
pub struct Selector {
    min: Option<f32>,
    /// Share kept and the window it is judged on.
    top: Option<(f64, SlidingQuantiles)>,
}

impl Selector {
    /// The selection `config` describes.
    pub fn new(config: &SelectConfig) -> Self {
        Self {
            min: config.min,
            top: config
                .top_percent
                .map(|p| (p / 100.0, SlidingQuantiles::new(config.window))),
        }
    }

    /// Judges a batch of scores: first every score joins the window, then each is held against
    /// the thresholds of that window, so that the first pairs of a stream are judged against a
    /// batch rather than against themselves alone. `None` for a kept score; a missing or NaN score
    /// fails.
    pub fn judge(&mut self, scores: &[Option<f32>]) -> Vec<Option<Failed>> {
        let top = self.top.as_mut().and_then(|(share, window)| {
            for s in scores.iter().flatten() {
                window.add(*s);
            }
            window.quantile(1.0 - *share).map(|t| (t, *share))
        });
        scores
            .iter()
            .map(|score| {
                let Some(score) = score.filter(|s| !s.is_nan()) else {
                    return Some(Failed {
                        threshold: f32::NAN,
                        rule: "missing",
                    });
                };
                if let Some(min) = self.min
                    && score < min
                {
                    return Some(Failed {
                        threshold: min,
                        rule: "min",
                    });
                }
                match top {
                    // The sketch's quantile is within α of a true score; a full share keeps all.
                    Some((threshold, share)) if share < 1.0 && score < threshold => Some(Failed {
                        threshold,
                        rule: "top_percent",
                    }),
                    _ => None,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact_quantile(values: &[f32], q: f64) -> f32 {
        let mut sorted = values.to_vec();
        sorted.sort_by(f32::total_cmp);
        sorted[(q * (sorted.len() - 1) as f64).floor() as usize]
    }

    #[test]
    fn quantiles_are_within_the_relative_accuracy() {
        let mut rng = fastrand::Rng::with_seed(7);
        // Scores of every sign and scale the scorers produce: cosines, sums of cosines, big sums.
        for scale in [0.3f32, 3.0, 1000.0] {
            let values: Vec<f32> = (0..20_000)
                .map(|_| (rng.f32() * 2.0 - 0.6) * scale)
                .collect();
            let mut window = SlidingQuantiles::new(1_000_000);
            for &v in &values {
                window.add(v);
            }
            for q in [0.0, 0.1, 0.5, 0.7, 0.9, 0.99, 1.0] {
                let exact = exact_quantile(&values, q);
                let sketch = window.quantile(q).unwrap();
                assert!(
                    (sketch - exact).abs() <= ALPHA as f32 * exact.abs() + 1e-6,
                    "scale {scale} q {q}: sketch {sketch} exact {exact}"
                );
            }
        }
    }

    #[test]
    fn the_window_forgets_old_scores_and_memory_stays_bounded() {
        let mut window = SlidingQuantiles::new(8_000);
        let mut rng = fastrand::Rng::with_seed(1);
        // A long stream of low scores, then the distribution moves up.
        for _ in 0..200_000 {
            window.add(rng.f32() * 0.2);
        }
        assert!(window.len() <= 8_000 && window.len() >= 7_000);
        let before = window.buckets();
        for _ in 0..8_000 {
            window.add(0.5 + rng.f32() * 0.2);
        }
        // The oldest block may still be in: at most 1/8 of the window is old.
        let median = window.quantile(0.5).unwrap();
        assert!((0.5..=0.71).contains(&median), "median {median}");
        assert!(window.quantile(0.2).unwrap() >= 0.5);
        assert!(
            window.buckets() < 4 * before.max(400),
            "{} buckets",
            window.buckets()
        );
    }

    #[test]
    fn top_share_keeps_about_that_share() {
        let mut selector = Selector::new(&SelectConfig {
            min: None,
            top_percent: Some(30.0),
            window: 10_000,
        });
        let mut rng = fastrand::Rng::with_seed(3);
        let mut kept = 0;
        let mut judged = 0;
        for _ in 0..200 {
            let batch: Vec<Option<f32>> = (0..64).map(|_| Some(rng.f32())).collect();
            let verdicts = selector.judge(&batch);
            judged += batch.len();
            kept += verdicts.iter().filter(|v| v.is_none()).count();
        }
        let share = kept as f64 / judged as f64;
        assert!((0.28..=0.32).contains(&share), "kept {share}");
    }

    #[test]
    fn min_threshold_and_missing_scores() {
        let mut selector = Selector::new(&SelectConfig {
            min: Some(0.28),
            top_percent: None,
            window: 1,
        });
        let verdicts = selector.judge(&[Some(0.3), Some(0.28), Some(0.2), None, Some(f32::NAN)]);
        assert_eq!(verdicts[0], None);
        assert_eq!(verdicts[1], None);
        assert_eq!(
            verdicts[2],
            Some(Failed {
                threshold: 0.28,
                rule: "min"
            })
        );
        assert_eq!(verdicts[3].as_ref().unwrap().rule, "missing");
        assert_eq!(verdicts[4].as_ref().unwrap().rule, "missing");
    }
}
