//! Work that is not an encode job — decoding, chat-template rendering, trajectory
//! tokenization — as runtime-agnostic futures on the scheduler's pool, so that every front end
//! runs all of its async work on the core's threads (never on tokio's blocking pool, libuv's
//! pool or a binding's own threads).
//!
//! A [`TaskFuture`] runs its closure once, as one unit of work: native targets queue it in the
//! scheduler's fair queue when it is created (like a new request: it waits for at most about a
//! piece per worker, not for long jobs to finish); wasm32 (one thread) runs it at the first
//! poll.
//! Dropping the future (or [`CancelFlag::cancel`]) before the closure has started means it
//! never starts; a closure that takes the [`CancelFlag`] (`Tokenizer::spawn_cancellable`) can
//! also stop between its units of work — trajectory tokenization checks it before each
//! history. A panic in the closure becomes [`Error::Panic`](crate::Error::Panic).

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

pub use crate::cancel::CancelFlag;
use crate::error::{Error, Result};

type Work<T> = Box<dyn FnOnce() -> Result<T> + Send>;

struct Slot<T> {
    result: Mutex<Option<Result<T>>>,
    waker: Mutex<Option<Waker>>,
    cancelled: CancelFlag,
}

impl<T> Slot<T> {
    fn run(&self, work: Work<T>) {
        let r = if self.cancelled.is_cancelled() {
            Err(Error::Cancelled)
        } else {
            catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|p| Err(Error::from_panic(p)))
        };
        *self.result.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        let waker = self.waker.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(w) = waker {
            w.wake();
        }
    }

    fn take(&self) -> Option<Result<T>> {
        self.result.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// The future of one closure run on the scheduler (see the module docs).
#[must_use = "futures do nothing unless polled"]
pub struct TaskFuture<T> {
    slot: Arc<Slot<T>>,
    /// wasm32: the closure, run at the first poll.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    work: Option<Work<T>>,
}

impl<T: Send + 'static> TaskFuture<T> {
    fn slot(cancelled: CancelFlag) -> Arc<Slot<T>> {
        Arc::new(Slot { result: Mutex::new(None), waker: Mutex::new(None), cancelled })
    }

    /// Queue `work` on `scheduler`'s pool now.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn on(scheduler: &crate::Scheduler, cancelled: CancelFlag, work: Work<T>) -> Self {
        let slot = Self::slot(cancelled);
        let s = slot.clone();
        scheduler.submit_once(Box::new(move || s.run(work)));
        TaskFuture { slot, work: None }
    }

    /// Run `work` at the first poll (wasm32: there is no other thread).
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn deferred(cancelled: CancelFlag, work: Work<T>) -> Self {
        TaskFuture { slot: Self::slot(cancelled), work: Some(work) }
    }
}

impl<T> TaskFuture<T> {
    /// The task's cancellation flag (what dropping the future sets).
    pub fn cancel_flag(&self) -> CancelFlag {
        self.slot.cancelled.clone()
    }
}

impl<T> Unpin for TaskFuture<T> {}

impl<T> Future for TaskFuture<T> {
    type Output = Result<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        if let Some(work) = self.work.take() {
            self.slot.run(work);
        }
        if let Some(r) = self.slot.take() {
            return Poll::Ready(r);
        }
        *self.slot.waker.lock().unwrap_or_else(|e| e.into_inner()) = Some(cx.waker().clone());
        // The closure may have finished between the check and registering the waker.
        match self.slot.take() {
            Some(r) => Poll::Ready(r),
            None => Poll::Pending,
        }
    }
}

impl<T> Drop for TaskFuture<T> {
    fn drop(&mut self) {
        self.slot.cancelled.cancel();
    }
}

/// Run `work` on the global scheduler's pool (native) or at the first poll (wasm32).
pub fn spawn<T: Send + 'static>(work: impl FnOnce() -> Result<T> + Send + 'static) -> TaskFuture<T> {
    cfg_if::cfg_if! {
        if #[cfg(target_arch = "wasm32")] {
            TaskFuture::deferred(CancelFlag::new(), Box::new(work))
        } else {
            TaskFuture::on(crate::Scheduler::global(), CancelFlag::new(), Box::new(work))
        }
    }
}

/// Queue `work` on the global scheduler's pool, as a new request, and forget it (native): for
/// a front end's follow-up work on a long result (converting or flattening it), which must not
/// run on the host's event loop. `work` catches nothing: a panic in it is caught and dropped by
/// the pool, so it should report its own failures.
#[cfg(not(target_arch = "wasm32"))]
pub fn spawn_detached(work: impl FnOnce() + Send + 'static) {
    crate::Scheduler::global().submit_once(Box::new(work))
}
