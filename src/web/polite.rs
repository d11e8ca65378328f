//! Per-host politeness and a member's request limit, as queues rather than polling.
//!
//! Every host has its own queue: a fair (FIFO) semaphore of `http.per_host_concurrency` slots, and a
//! pacer that spaces the starts of its requests by `http.min_host_delay` (or the host's robots.txt
//! `Crawl-delay`, when longer) and holds them back while a server's `Retry-After` runs. A request
//! waits in its host's queue first, and takes one of the member's `http.concurrency` connections
//! only when its host would let it start. So a slow or throttled host's waiting requests hold no
//! connection, and a request to any other host starts as soon as a connection is free: the model of
//! StormCrawler's FetcherBolt and Nutch's fetcher, whose fetch threads take from whichever host
//! queue is ready.
//!
//! Nothing polls: waiters sleep on the semaphores' FIFO queues or, for the one request at the head of
//! a host's pacer, until the host's next allowed start.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::metrics::WebMetrics;
use crate::sync::lock;

/// Hosts whose queues are kept while idle; beyond this, idle hosts are forgotten.
const HOSTS_KEPT: usize = 10_000;

/// One host's queue.
struct HostQueue {
    /// Requests in flight to the host, at most `per_host` (FIFO: the first to wait starts first).
    slots: Arc<Semaphore>,
    /// Held by the request whose start is being paced; the others queue behind it in order.
    pacer: tokio::sync::Mutex<()>,
    /// No request to the host may start before this (minimum delay, or a server's `Retry-After`).
    not_before: Mutex<Instant>,
    /// Least time between the starts of two requests: the member's minimum delay, or the host's
    /// own `Crawl-delay` when that is longer.
    delay: Mutex<Duration>,
    /// Requests waiting for this host (for the queued-hosts gauge).
    waiting: AtomicUsize,
}

/// The politeness of one stage member: host queues and the member's request limit.
pub struct Politeness {
    per_host: usize,
    min_delay: Duration,
    requests: Arc<Semaphore>,
    hosts: Mutex<HashMap<String, Arc<HostQueue>>>,
    metrics: WebMetrics,
}

/// The right to have one request in flight to a host; frees the host's slot and the connection when
/// dropped.
pub struct Permit {
    _host: OwnedSemaphorePermit,
    _request: OwnedSemaphorePermit,
    metrics: WebMetrics,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.metrics.in_flight(-1);
    }
}

/// Counts a request as waiting for `queue` until dropped, also when the waiting future is dropped.
struct Waiting<'a> {
    queue: &'a HostQueue,
    metrics: &'a WebMetrics,
}

impl<'a> Waiting<'a> {
    fn new(queue: &'a HostQueue, metrics: &'a WebMetrics) -> Self {
        metrics.queued(1);
        if queue.waiting.fetch_add(1, Ordering::Relaxed) == 0 {
            metrics.hosts_queued(1);
        }
        Self { queue, metrics }
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.metrics.queued(-1);
        if self.queue.waiting.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.metrics.hosts_queued(-1);
        }
    }
}

impl Politeness {
    /// At most `per_host` requests in flight to one host and `concurrency` in all, the starts of a
    /// host's requests at least `min_delay` apart; gauges reported for `stage`.
    pub fn new(
        per_host: usize,
        concurrency: usize,
        min_delay: Duration,
        stage: &'static str,
    ) -> Self {
        Self {
            per_host: per_host.max(1),
            min_delay,
            requests: Arc::new(Semaphore::new(concurrency.max(1))),
            hosts: Mutex::new(HashMap::new()),
            metrics: WebMetrics::new(stage),
        }
    }

    fn queue(&self, host: &str) -> Arc<HostQueue> {
        let mut hosts = lock(&self.hosts);
        if hosts.len() > HOSTS_KEPT {
            let now = Instant::now();
            // A queue someone holds (a waiter or a request in flight) or that is still paused stays.
            hosts.retain(|_, q| Arc::strong_count(q) > 1 || *lock(&q.not_before) > now);
        }
        hosts
            .entry(host.to_string())
            .or_insert_with(|| {
                Arc::new(HostQueue {
                    slots: Arc::new(Semaphore::new(self.per_host)),
                    pacer: tokio::sync::Mutex::new(()),
                    not_before: Mutex::new(Instant::now()),
                    delay: Mutex::new(self.min_delay),
                    waiting: AtomicUsize::new(0),
                })
            })
            .clone()
    }

    /// Waits until `host` may receive another request and a connection is free, then takes both.
    pub async fn acquire(&self, host: &str) -> Permit {
        let queue = self.queue(host);
        let waiting = Waiting::new(&queue, &self.metrics);
        let host_slot = queue
            .slots
            .clone()
            .acquire_owned()
            .await
            .expect("host semaphores are never closed");
        let _turn = queue.pacer.lock().await;
        let request = loop {
            let paused = lock(&queue.not_before).checked_duration_since(Instant::now());
            if let Some(wait) = paused.filter(|w| !w.is_zero()) {
                tokio::time::sleep(wait).await;
                continue;
            }
            let request = self
                .requests
                .clone()
                .acquire_owned()
                .await
                .expect("the request semaphore is never closed");
            // A Retry-After may have arrived while this request waited for a connection.
            let mut not_before = lock(&queue.not_before);
            let now = Instant::now();
            if *not_before <= now {
                *not_before = now + *lock(&queue.delay);
                break request;
            }
        };
        drop(waiting);
        self.metrics.in_flight(1);
        Permit {
            _host: host_slot,
            _request: request,
            metrics: self.metrics.clone(),
        }
    }

    /// Spaces the starts of requests to `host` by `delay` (its robots.txt's `Crawl-delay`), or by
    /// the member's minimum delay if that is longer. Returns whether the host's spacing changed.
    pub fn pace(&self, host: &str, delay: Duration) -> bool {
        let queue = self.queue(host);
        let delay = delay.max(self.min_delay);
        let mut spacing = lock(&queue.delay);
        let changed = *spacing != delay;
        *spacing = delay;
        changed
    }

    /// Keeps every request away from `host` for `pause` from now (a server's `Retry-After`).
    pub fn back_off(&self, host: &str, pause: Duration) {
        let queue = self.queue(host);
        let mut not_before = lock(&queue.not_before);
        *not_before = (*not_before).max(Instant::now() + pause);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_paused_host_does_not_hold_back_another() {
        let polite = Arc::new(Politeness::new(1, 1, Duration::ZERO, "test"));
        polite.back_off("slow", Duration::from_secs(2));
        let started = Instant::now();
        let slow = {
            let polite = polite.clone();
            tokio::spawn(async move {
                let _permit = polite.acquire("slow").await;
                started.elapsed()
            })
        };
        tokio::task::yield_now().await;
        // The only connection is free while "slow" waits out its pause.
        let fast = polite.acquire("fast").await;
        assert!(started.elapsed() < Duration::from_millis(500));
        drop(fast);
        assert!(slow.await.unwrap() >= Duration::from_secs(2));
    }

    #[tokio::test]
    async fn starts_to_one_host_are_spaced_and_limited() {
        let polite = Arc::new(Politeness::new(2, 8, Duration::from_millis(300), "test"));
        let started = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..4 {
            let polite = polite.clone();
            tasks.push(tokio::spawn(async move {
                let permit = polite.acquire("h").await;
                let at = started.elapsed();
                // Each request takes 1 s: the third must wait for a slot, not only the delay.
                tokio::time::sleep(Duration::from_secs(1)).await;
                drop(permit);
                at
            }));
        }
        let mut starts = Vec::new();
        for task in tasks {
            starts.push(task.await.unwrap().as_millis());
        }
        starts.sort();
        // Two start 300 ms apart; the next two only when those finish (1 s and 1.3 s). The lower
        // bounds are the rules; the upper ones, loose for a busy machine, show no needless wait.
        let expected = [0, 300, 1000, 1300];
        for (start, want) in starts.iter().zip(expected) {
            assert!((want..want + 400).contains(start), "{starts:?}");
        }
        assert!(
            starts[1] - starts[0] >= 300 && starts[3] - starts[2] >= 300,
            "{starts:?}"
        );
    }
}
