//! A count-min sketch with conservative update (Cormode & Muthukrishnan 2005; Estan & Varghese
//! 2002): approximate counts of an unbounded set of keys (words, sentences) in fixed memory. An
//! estimate is never below the true count and exceeds it by at most `e·N/width` with probability
//! `1 − e^−depth` (N: total count).

use std::hash::BuildHasher;

use foldhash::quality::FixedState;

/// Most rows a sketch has (more buy nothing at the error rates a filter needs).
pub const MAX_DEPTH: usize = 8;

/// Counts of keys in `width × depth` 32-bit counters.
pub struct CountMinSketch {
    counters: Vec<u32>,
    width: usize,
    depth: usize,
    hasher: FixedState,
}

impl CountMinSketch {
    /// A sketch of `depth` rows (1 to [`MAX_DEPTH`]) of `width` counters (`width` rounded up to a power
    /// of two); it takes
    /// `4 · width · depth` bytes.
    pub fn new(width: usize, depth: usize) -> Self {
        let width = width.max(2).next_power_of_two();
        let depth = depth.clamp(1, MAX_DEPTH);
        Self {
            counters: vec![0; width * depth],
            width,
            depth,
            // A fixed seed: the same input gives the same counts in every process (decisions must
            // not differ between the embedded and the Kafka run).
            hasher: FixedState::with_seed(0x616c_7466_6c6f_7721),
        }
    }

    /// Bytes of counters.
    pub fn bytes(&self) -> usize {
        self.counters.len() * 4
    }

    /// The counter of `key` in each row (double hashing: row r uses h1 + r·h2).
    fn cells(&self, key: &[u8]) -> impl Iterator<Item = usize> + use<> {
        let hash = self.hasher.hash_one(key);
        let (h1, h2) = (hash as u32 as usize, ((hash >> 32) as usize) | 1);
        let (width, depth) = (self.width, self.depth);
        (0..depth).map(move |r| r * width + (h1.wrapping_add(r.wrapping_mul(h2)) & (width - 1)))
    }

    /// The estimated count of `key`.
    pub fn estimate(&self, key: &[u8]) -> u32 {
        self.cells(key).map(|c| self.counters[c]).min().unwrap_or(0)
    }

    /// Counts one more `key` and returns its new estimate. Conservative update: only the counters
    /// at the current minimum grow, which keeps over-estimates far smaller.
    pub fn add(&mut self, key: &[u8]) -> u32 {
        let mut cells = [0usize; MAX_DEPTH];
        for (slot, c) in cells.iter_mut().zip(self.cells(key)) {
            *slot = c;
        }
        let cells = &cells[..self.depth];
        let estimate = cells.iter().map(|&c| self.counters[c]).min().unwrap_or(0);
        let new = estimate.saturating_add(1);
        for &c in cells {
            if self.counters[c] < new {
                self.counters[c] = new;
            }
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_are_exact_when_sparse_and_never_below_the_truth() {
        let mut sketch = CountMinSketch::new(1 << 12, 4);
        assert_eq!(sketch.bytes(), 4 * 4096 * 4);
        for i in 0..7 {
            assert_eq!(sketch.add(b"stock image"), i + 1);
        }
        assert_eq!(sketch.estimate(b"stock image"), 7);
        assert_eq!(sketch.estimate(b"never seen"), 0);
        // Crowded: 20,000 keys in 64 counters per row; every estimate stays ≥ its true count.
        let mut small = CountMinSketch::new(64, 3);
        for i in 0..20_000u32 {
            small.add(&(i % 1000).to_le_bytes());
        }
        assert!((0..1000u32).all(|i| small.estimate(&i.to_le_bytes()) >= 20));
    }
}
