//! Small synchronisation helpers.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, also after a panic elsewhere poisoned it: altflow's locks guard plain data that stays
/// consistent between statements, so serving it beats failing every later caller.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
