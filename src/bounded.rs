//! Structures that remember at most a fixed number of the most recently added keys.
//!
//! Used wherever "have we seen this?" must hold memory bounded whatever the input size: pages the
//! crawler visited, sample ids the writer wrote, images seen across a site, perceptual hashes of the
//! images kept. Older keys are forgotten first.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

/// A bounded insertion-ordered set (a [`BoundedCounter`] whose counts are not needed).
#[derive(Debug)]
pub struct BoundedSet<T>(BoundedCounter<T>);

impl<T: Hash + Eq + Clone> BoundedSet<T> {
    /// A set that keeps at most `capacity` keys (at least one).
    pub fn new(capacity: usize) -> Self {
        Self(BoundedCounter::new(capacity))
    }

    /// Adds `key`; returns false if it was already there. Forgets the oldest key when full.
    pub fn insert(&mut self, key: T) -> bool {
        self.0.increment(key) == 1
    }

    /// Whether `key` is remembered.
    pub fn contains(&self, key: &T) -> bool {
        self.0.counts.contains_key(key)
    }

    /// Number of keys remembered.
    pub fn len(&self) -> usize {
        self.0.order.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.order.is_empty()
    }
}

/// "Seen before?" for an unbounded stream of keys in fixed memory: two Bloom filters, the current one
/// and the one before it. When the current one holds `capacity` keys it becomes the previous one and a
/// fresh one starts, so memory stays at two filters, keys are remembered for at least `capacity`
/// insertions, and the false-positive rate stays near the one asked for.
pub struct SeenFilter {
    current: Bloom,
    previous: Bloom,
    capacity: usize,
    false_positive: f64,
    inserted: usize,
}

struct Bloom {
    bits: Vec<u64>,
    hashes: u32,
    state: std::collections::hash_map::RandomState,
}

impl Bloom {
    fn new(capacity: usize, false_positive: f64) -> Self {
        // m = −n·ln p / (ln 2)², k = (m / n)·ln 2
        let n = capacity.max(1) as f64;
        let m = (-n * false_positive.ln() / std::f64::consts::LN_2.powi(2))
            .ceil()
            .max(64.0);
        let hashes = ((m / n) * std::f64::consts::LN_2).round().clamp(1.0, 16.0) as u32;
        Self {
            bits: vec![0; (m as usize).div_ceil(64)],
            hashes,
            state: std::collections::hash_map::RandomState::new(),
        }
    }

    /// The bit positions of `key` (double hashing from one 64-bit hash).
    fn positions<K: Hash>(&self, key: &K) -> impl Iterator<Item = usize> + '_ {
        use std::hash::BuildHasher;
        let hash = self.state.hash_one(key);
        let (h1, h2) = (hash & 0xffff_ffff, (hash >> 32) | 1);
        let m = (self.bits.len() * 64) as u64;
        (0..u64::from(self.hashes)).map(move |i| (h1.wrapping_add(i.wrapping_mul(h2)) % m) as usize)
    }

    fn contains<K: Hash>(&self, key: &K) -> bool {
        self.positions(key)
            .all(|p| self.bits[p / 64] & (1 << (p % 64)) != 0)
    }

    fn insert<K: Hash>(&mut self, key: &K) {
        let positions: Vec<usize> = self.positions(key).collect();
        for p in positions {
            self.bits[p / 64] |= 1 << (p % 64);
        }
    }
}

impl SeenFilter {
    /// A filter remembering at least `capacity` keys with about `false_positive` chance of calling a
    /// new key seen.
    pub fn new(capacity: usize, false_positive: f64) -> Self {
        let p = false_positive.clamp(1e-9, 0.5);
        Self {
            current: Bloom::new(capacity, p),
            previous: Bloom::new(capacity, p),
            capacity: capacity.max(1),
            false_positive: p,
            inserted: 0,
        }
    }

    /// Whether `key` was (probably) inserted before.
    pub fn contains<K: Hash>(&self, key: &K) -> bool {
        self.current.contains(key) || self.previous.contains(key)
    }

    /// Records `key`; returns false if it was (probably) there already.
    pub fn insert<K: Hash>(&mut self, key: &K) -> bool {
        if self.contains(key) {
            return false;
        }
        if self.inserted == self.capacity {
            let fresh = Bloom::new(self.capacity, self.false_positive);
            self.previous = std::mem::replace(&mut self.current, fresh);
            self.inserted = 0;
        }
        self.current.insert(key);
        self.inserted += 1;
        true
    }

    /// Bytes of memory the filter's bits take.
    pub fn memory_bytes(&self) -> usize {
        (self.current.bits.len() + self.previous.bits.len()) * 8
    }
}

/// Counts per key for at most a fixed number of the most recently first-seen keys.
#[derive(Debug)]
pub struct BoundedCounter<T> {
    capacity: usize,
    order: VecDeque<T>,
    counts: HashMap<T, u32>,
}

impl<T: Hash + Eq + Clone> BoundedCounter<T> {
    /// A counter that tracks at most `capacity` keys (at least one).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            order: VecDeque::new(),
            counts: HashMap::new(),
        }
    }

    /// Adds one to `key`'s count and returns the new count. Forgets the oldest key when full.
    pub fn increment(&mut self, key: T) -> u32 {
        if let Some(count) = self.counts.get_mut(&key) {
            *count += 1;
            return *count;
        }
        if self.order.len() == self.capacity
            && let Some(old) = self.order.pop_front()
        {
            self.counts.remove(&old);
        }
        self.order.push_back(key.clone());
        self.counts.insert(key, 1);
        1
    }

    /// Sets `key`'s count to `value` if that is higher than its count, or if `key` is not
    /// counted; returns whether it did. Forgets the oldest key when full.
    pub fn raise(&mut self, key: T, value: u32) -> bool {
        match self.counts.get_mut(&key) {
            Some(count) if *count >= value => false,
            Some(count) => {
                *count = value;
                true
            }
            None => {
                self.increment(key.clone());
                self.counts.insert(key, value);
                true
            }
        }
    }

    /// `key`'s count (0 if it was never counted or has been forgotten).
    pub fn get(&self, key: &T) -> u32 {
        self.counts.get(key).copied().unwrap_or(0)
    }
}

/// Perceptual hashes of recently kept images, searchable for one within a Hamming distance.
///
/// Multi-index hashing (Norouzi, Punjani & Fleet 2012): the 64 bits are cut into `distance + 1`
/// blocks, and two hashes within `distance` bits agree exactly on at least one block (pigeonhole), so
/// a query looks up each of its blocks in a table instead of comparing with every hash kept. Holds at
/// most `capacity` hashes; the oldest go first.
#[derive(Debug)]
pub struct NearIndex {
    distance: u32,
    capacity: usize,
    /// (shift, mask) of each block.
    blocks: Vec<(u32, u64)>,
    /// The hashes kept, oldest first; the front one has id `first_id`.
    hashes: VecDeque<u64>,
    first_id: u64,
    /// (block number, block value) → ids of the hashes with that value there, oldest first.
    table: HashMap<(u8, u64), VecDeque<u64>>,
}

impl NearIndex {
    /// An index finding hashes within `distance` bits (0–63) of a query, holding at most `capacity`.
    pub fn new(distance: u32, capacity: usize) -> Self {
        let distance = distance.min(63);
        let count = distance + 1;
        let blocks = (0..count)
            .map(|b| {
                // Blocks as even as 64 bits allow: the first 64 % count are one bit longer.
                let (base, extra) = (64 / count, 64 % count);
                let start = b * base + b.min(extra);
                let width = base + u32::from(b < extra);
                let mask = if width == 64 {
                    u64::MAX
                } else {
                    (1 << width) - 1
                };
                (start, mask)
            })
            .collect();
        Self {
            distance,
            capacity: capacity.max(1),
            blocks,
            hashes: VecDeque::new(),
            first_id: 0,
            table: HashMap::new(),
        }
    }

    fn keys(&self, hash: u64) -> impl Iterator<Item = (u8, u64)> + '_ {
        self.blocks
            .iter()
            .enumerate()
            .map(move |(b, &(shift, mask))| (b as u8, (hash >> shift) & mask))
    }

    /// A kept hash within the distance of `hash`, if any.
    pub fn find(&self, hash: u64) -> Option<u64> {
        self.keys(hash)
            .filter_map(|key| self.table.get(&key))
            .flatten()
            .map(|&id| self.hashes[(id - self.first_id) as usize])
            .find(|kept| (kept ^ hash).count_ones() <= self.distance)
    }

    /// Keeps `hash`, forgetting the oldest when full.
    pub fn insert(&mut self, hash: u64) {
        if self.hashes.len() == self.capacity
            && let Some(old) = self.hashes.pop_front()
        {
            let keys: Vec<(u8, u64)> = self.keys(old).collect();
            for key in keys {
                if let Some(ids) = self.table.get_mut(&key) {
                    // Ids go in in order, so the oldest hash is first in each of its lists.
                    ids.pop_front();
                    if ids.is_empty() {
                        self.table.remove(&key);
                    }
                }
            }
            self.first_id += 1;
        }
        let id = self.first_id + self.hashes.len() as u64;
        self.hashes.push_back(hash);
        let keys: Vec<(u8, u64)> = self.keys(hash).collect();
        for key in keys {
            self.table.entry(key).or_default().push_back(id);
        }
    }

    /// Number of hashes kept.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Whether no hash is kept.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgets_oldest_beyond_capacity() {
        let mut set = BoundedSet::new(2);
        assert!(set.insert("a"));
        assert!(!set.insert("a"));
        assert!(set.insert("b"));
        assert!(set.insert("c"));
        assert_eq!(set.len(), 2);
        assert!(!set.contains(&"a"));
        assert!(set.contains(&"b") && set.contains(&"c"));
        assert!(set.insert("a"));
    }

    #[test]
    fn seen_filter_remembers_with_few_false_positives_in_fixed_memory() {
        let mut seen = SeenFilter::new(10_000, 0.001);
        let memory = seen.memory_bytes();
        // A new key may collide with earlier ones (that is the false-positive rate at work).
        let collisions = (0..10_000)
            .filter(|i| !seen.insert(&format!("http://site/{i}")))
            .count();
        assert!(collisions < 20, "{collisions} new keys taken as seen");
        // No false negatives.
        assert!((0..10_000).all(|i| seen.contains(&format!("http://site/{i}"))));
        let false_positives = (0..10_000)
            .filter(|i| seen.contains(&format!("http://other/{i}")))
            .count();
        assert!(
            false_positives < 50,
            "{false_positives} false positives in 10000"
        );
        // Rotation: far more keys than capacity, memory unchanged, recent keys still remembered.
        for i in 0..50_000 {
            seen.insert(&format!("http://more/{i}"));
        }
        assert_eq!(seen.memory_bytes(), memory);
        assert!(seen.contains(&"http://more/49999".to_string()));
    }

    #[test]
    fn raise_keeps_the_highest_and_says_when_it_rose() {
        let mut rounds = BoundedCounter::new(2);
        assert!(rounds.raise("a", 2));
        assert!(!rounds.raise("a", 2), "the same round again");
        assert!(!rounds.raise("a", 1), "an older round");
        assert!(rounds.raise("a", 3));
        assert_eq!(rounds.get(&"a"), 3);
        rounds.raise("b", 1);
        rounds.raise("c", 1);
        assert_eq!(rounds.get(&"a"), 0, "forgotten beyond capacity");
    }

    #[test]
    fn counter_counts_and_forgets() {
        let mut counter = BoundedCounter::new(2);
        assert_eq!(counter.increment("a"), 1);
        assert_eq!(counter.increment("a"), 2);
        counter.increment("b");
        counter.increment("c");
        assert_eq!(counter.increment("a"), 1, "a was forgotten");
    }

    #[test]
    fn near_index_finds_exactly_the_hashes_within_the_distance() {
        let mut rng = fastrand::Rng::with_seed(7);
        for distance in [0, 1, 4, 10] {
            let mut index = NearIndex::new(distance, 1000);
            let kept: Vec<u64> = (0..500).map(|_| rng.u64(..)).collect();
            for &h in &kept {
                index.insert(h);
            }
            for _ in 0..2000 {
                // Queries near a kept hash (some within the distance, some beyond) and random ones.
                let flips = rng.u32(0..=distance + 2);
                let mut query = kept[rng.usize(..kept.len())];
                for _ in 0..flips {
                    query ^= 1 << rng.u32(0..64);
                }
                if rng.bool() {
                    query = rng.u64(..);
                }
                let naive = kept.iter().any(|k| (k ^ query).count_ones() <= distance);
                let found = index.find(query);
                assert_eq!(
                    found.is_some(),
                    naive,
                    "distance {distance}, query {query:x}"
                );
                if let Some(h) = found {
                    assert!((h ^ query).count_ones() <= distance);
                }
            }
        }
    }

    #[test]
    fn near_index_forgets_the_oldest_beyond_capacity() {
        let mut index = NearIndex::new(3, 2);
        index.insert(0);
        index.insert(u64::MAX);
        assert_eq!(index.find(0b111), Some(0));
        index.insert(0xF0F0_F0F0_F0F0_F0F0);
        assert_eq!(index.len(), 2);
        assert_eq!(index.find(0b111), None, "0 was forgotten");
        assert_eq!(index.find(u64::MAX >> 2), Some(u64::MAX));
        assert!(index.table.values().all(|ids| ids.len() == 1));
    }
}
