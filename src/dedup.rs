//! A set that remembers at most a fixed number of the most recently added keys.
//!
//! Used wherever "have we seen this?" must hold memory bounded whatever the input size: pages the
//! crawler visited, sample ids the writer wrote, images seen across a site. Older keys are forgotten
//! first.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hash;

/// A bounded insertion-ordered set.
#[derive(Debug)]
pub struct BoundedSet<T> {
    capacity: usize,
    order: VecDeque<T>,
    set: HashSet<T>,
}

impl<T: Hash + Eq + Clone> BoundedSet<T> {
    /// A set that keeps at most `capacity` keys (at least one).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            order: VecDeque::new(),
            set: HashSet::new(),
        }
    }

    /// Adds `key`; returns false if it was already there. Forgets the oldest key when full.
    pub fn insert(&mut self, key: T) -> bool {
        if self.set.contains(&key) {
            return false;
        }
        if self.order.len() == self.capacity
            && let Some(old) = self.order.pop_front()
        {
            self.set.remove(&old);
        }
        self.set.insert(key.clone());
        self.order.push_back(key);
        true
    }

    /// Whether `key` is remembered.
    pub fn contains(&self, key: &T) -> bool {
        self.set.contains(key)
    }

    /// Number of keys remembered.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
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
    fn counter_counts_and_forgets() {
        let mut counter = BoundedCounter::new(2);
        assert_eq!(counter.increment("a"), 1);
        assert_eq!(counter.increment("a"), 2);
        counter.increment("b");
        counter.increment("c");
        assert_eq!(counter.increment("a"), 1, "a was forgotten");
    }
}
