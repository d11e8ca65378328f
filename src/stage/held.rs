//! Input a stage holds per partition before acting on it (a file to write, a window to decide),
//! with the first held offset for [`super::Stage::held_from`], the time of the latest input for
//! flushing an idle partition, and the time the value was started for flushing an old one.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What is held for one partition.
struct Entry<T> {
    first_offset: i64,
    started: Instant,
    last_input: Instant,
    value: T,
}

/// Held values by partition, in partition order (a stage that flushes them all does so in a
/// fixed order).
pub struct Held<T> {
    partitions: BTreeMap<i32, Entry<T>>,
}

impl<T> Default for Held<T> {
    fn default() -> Self {
        Self {
            partitions: BTreeMap::new(),
        }
    }
}

impl<T> Held<T> {
    /// The value held for `partition`, made by `start` when none is, now holding input from
    /// `offset` on; counts as input just now.
    pub fn input(&mut self, partition: i32, offset: i64, start: impl FnOnce() -> T) -> &mut T {
        let entry = self.partitions.entry(partition).or_insert_with(|| Entry {
            first_offset: offset,
            started: Instant::now(),
            last_input: Instant::now(),
            value: start(),
        });
        entry.last_input = Instant::now();
        &mut entry.value
    }

    /// The first offset held for `partition`, if any.
    pub fn held_from(&self, partition: i32) -> Option<i64> {
        self.partitions.get(&partition).map(|e| e.first_offset)
    }

    /// Partitions without input for at least `after`.
    pub fn idle(&self, after: Duration) -> Vec<i32> {
        self.due(after, Duration::MAX)
    }

    /// Partitions without input for at least `idle`, or whose value was started at least
    /// `max_age` ago however steady their input.
    pub fn due(&self, idle: Duration, max_age: Duration) -> Vec<i32> {
        self.partitions
            .iter()
            .filter(|(_, e)| e.last_input.elapsed() >= idle || e.started.elapsed() >= max_age)
            .map(|(p, _)| *p)
            .collect()
    }

    /// Every partition holding something.
    pub fn partitions(&self) -> Vec<i32> {
        self.partitions.keys().copied().collect()
    }

    /// Takes what `partition` holds, with its first offset.
    pub fn take(&mut self, partition: i32) -> Option<(i64, T)> {
        self.partitions
            .remove(&partition)
            .map(|e| (e.first_offset, e.value))
    }

    /// Drops what revoked partitions hold: their new owner replays it from the committed offset.
    pub fn revoke(&mut self, partitions: &[(Arc<str>, i32)]) {
        for (_, partition) in partitions {
            self.partitions.remove(partition);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_from_the_first_offset_until_taken() {
        let mut held: Held<Vec<i64>> = Held::default();
        held.input(3, 10, Vec::new).push(10);
        held.input(3, 11, Vec::new).push(11);
        held.input(1, 5, Vec::new).push(5);
        assert_eq!(held.held_from(3), Some(10));
        assert_eq!(held.partitions(), [1, 3]);
        assert_eq!(held.idle(Duration::ZERO), [1, 3]);
        assert!(held.idle(Duration::from_secs(3600)).is_empty());
        assert_eq!(held.take(3), Some((10, vec![10, 11])));
        assert_eq!(held.held_from(3), None);
        held.revoke(&[(Arc::from("t"), 1)]);
        assert!(held.partitions().is_empty());
    }
}
