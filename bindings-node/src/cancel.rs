//! [`CancelToken`]: what an `AbortSignal` in the JS layer fires. One token per call; it cancels
//! whatever that call started — a batch ([`BatchHandle`]) or a future driven by [`crate::exec`]
//! (an [`exec::Abort`](crate::exec::Abort): an encode, whose remaining pieces then never run; a
//! render, a decode, a trajectory batch, which then never starts if it has not yet).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use napi_derive::napi;
use yieldtok::BatchHandle;

use crate::exec::Abort;

/// Something a token cancels.
pub(crate) enum Target {
    Batch(BatchHandle),
    Task(Abort),
}

impl Target {
    fn cancel(&self) {
        match self {
            Target::Batch(h) => h.cancel(),
            Target::Task(a) => a.abort(),
        }
    }

    /// Bytes encoded so far and in total (batches; 0 / 0 for the rest).
    fn progress(&self) -> (usize, usize) {
        let p = match self {
            Target::Batch(h) => h.progress(),
            Target::Task(_) => return (0, 0),
        };
        (p.done_bytes, p.total_bytes)
    }
}

/// Cancels the core work of one call (an `AbortSignal` in the JS layer calls `cancel()`).
#[napi]
#[derive(Default)]
pub struct CancelToken {
    inner: Arc<CancelInner>,
}

#[derive(Default)]
pub(crate) struct CancelInner {
    cancelled: AtomicBool,
    targets: Mutex<Vec<Target>>,
}

impl CancelInner {
    /// Register work; cancels it at once if the token already fired.
    pub(crate) fn register(&self, t: Target) {
        let mut ts = self.targets.lock().unwrap_or_else(|e| e.into_inner());
        if self.cancelled.load(Ordering::Acquire) {
            drop(ts);
            t.cancel();
        } else {
            ts.push(t);
        }
    }

    fn cancel(&self) {
        let ts = {
            let mut ts = self.targets.lock().unwrap_or_else(|e| e.into_inner());
            self.cancelled.store(true, Ordering::Release);
            std::mem::take(&mut *ts)
        };
        for t in ts {
            t.cancel();
        }
    }
}

impl CancelToken {
    /// Register `t` with `token`, if there is one.
    pub(crate) fn register(token: Option<&CancelToken>, t: impl FnOnce() -> Target) {
        if let Some(token) = token {
            token.inner.register(t())
        }
    }
}

#[napi]
impl CancelToken {
    #[napi(constructor)]
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancel everything started with this token: pieces and tasks not yet started will not run.
    #[napi]
    pub fn cancel(&self) {
        self.inner.cancel()
    }

    #[napi(getter)]
    pub fn cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }

    /// Bytes encoded so far and in total, over the batches of this token (single encodes and
    /// tasks count 0 / 0: they report through their promise only).
    #[napi]
    pub fn progress(&self) -> Vec<f64> {
        let ts = self.inner.targets.lock().unwrap_or_else(|e| e.into_inner());
        let (done, total) = ts.iter().map(Target::progress).fold((0, 0), |(d, t), (pd, pt)| (d + pd, t + pt));
        vec![done as f64, total as f64]
    }
}
