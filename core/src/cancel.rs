//! [`CancelFlag`]: what a job, a task and a host's abort signal share to stop work. Below
//! `job` and `task` (which imports the scheduler), so a job needs neither.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A cancellation flag shared between a task and whoever may cancel it (its future's drop, a
/// host's abort signal). Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Release);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
    /// The flag itself, for the own engine's in-piece checks.
    pub(crate) fn as_atomic(&self) -> &AtomicBool {
        &self.0
    }
}
