//! CPU-bound work of async stages (image decoding, model inference), run on blocking threads
//! but never more of it at once than the machine has cores.
//!
//! Why the limit: a stage keeps dozens of downloads in flight, and each finished one used to start
//! its decode on its own blocking thread. Sixty threads then share two cores, each with a
//! megabyte-sized working set, evicting each other's caches on every switch (and holding their
//! buffers at once: peak memory grew with the fetch concurrency). With two permits per core the same
//! work runs nearly to completion core by core while the downloads wait in the network; one per core
//! left cores idle while a finished job handed its permit on (`scripts/bench_fetch.sh`, side by side:
//! unlimited 250 images per CPU-second, 444/s wall, 354 MiB; one per core 263, 391/s, 232 MiB; two
//! per core 264, 465/s, 240 MiB).

use std::sync::OnceLock;

use tokio::sync::Semaphore;

/// How many jobs may run at once: two per core the process may use.
pub fn slots() -> usize {
    2 * std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn permits() -> &'static Semaphore {
    static PERMITS: OnceLock<Semaphore> = OnceLock::new();
    PERMITS.get_or_init(|| Semaphore::new(slots()))
}

/// Runs `work` on a blocking thread once a core is free, and returns its result; `Err` carries the
/// message of a panic in `work`.
pub async fn run<T, F>(work: F) -> Result<T, String>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let _permit = permits()
        .acquire()
        .await
        .expect("the semaphore is never closed");
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| e.to_string())
}

/// Keeps glibc from returning image-sized buffers to the kernel after every image. By default a
/// buffer over 128 KiB (a decoded 640×480 image is 900 KiB) gets its own mapping, unmapped on free,
/// and freed heap tops are trimmed, so the next image faults in and zeroes fresh pages: 10 % of the
/// fetch stage's CPU in a profile. Kept buffers are reused instead; memory stays bounded by the peak
/// of the buffers in use. Measured with scripts/bench_fetch.sh (docs/performance.md); CLIP's tensors
/// (megabytes each, allocated per operation) gain the same way (`benches/scoring.rs`).
///
/// Call it first thing in `main`, before other threads start allocating.
pub fn keep_freed_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters (glibc takes its own lock to do so).
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn never_runs_more_jobs_than_cores_at_once() {
        let slots = super::slots();
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let jobs = (0..4 * slots + 3).map(|_| {
            let (running, most) = (running.clone(), most.clone());
            super::run(move || {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(5));
                running.fetch_sub(1, Ordering::SeqCst);
            })
        });
        for result in futures::future::join_all(jobs).await {
            result.unwrap();
        }
        let most = most.load(Ordering::SeqCst);
        assert!(
            most >= 1 && most <= slots,
            "{most} jobs at once, {slots} slots"
        );
    }

    #[tokio::test]
    async fn a_panic_becomes_an_error() {
        let result = super::run(|| -> u32 { panic!("bad image") }).await;
        assert!(result.unwrap_err().contains("panic"));
    }
}
