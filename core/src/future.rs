//! Runtime-agnostic futures over encode jobs. On native targets an [`EncodeFuture`] queues its
//! job on the [`Scheduler`](crate::Scheduler) when first polled and is woken when the last piece
//! is done; it works under tokio, async-std, `futures::executor` or any other executor, because
//! it only uses `Waker`. On wasm32 (one thread) it runs one time-boxed slice per poll and wakes
//! itself; browser front ends that must let the page render drive the job with macrotask yields
//! instead (see `bindings-wasm`). Dropping the future cancels the remaining pieces.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use crate::error::Result;
use crate::job::{EncodeJob, JobOutput, Progress};

/// A handle on a running job: progress and cancellation, usable from another thread or from a
/// host callback (an `AbortSignal`, a cancelled asyncio task).
#[derive(Clone)]
pub struct JobHandle {
    state: Arc<State>,
}

impl JobHandle {
    pub fn progress(&self) -> Progress {
        self.state.job.progress()
    }
    pub fn cancel(&self) {
        self.state.job.cancel();
    }
    pub fn is_cancelled(&self) -> bool {
        self.state.job.is_cancelled()
    }
}

struct State {
    job: EncodeJob,
    taken: AtomicBool,
    waker: Mutex<Option<Waker>>,
    completed: AtomicBool,
    /// Set once the scheduler has queued the job's assembly (native).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    assembly_queued: AtomicBool,
    /// The scheduler's short lane may run it (a request of its own, not a batch member).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    lane: bool,
}

impl State {
    /// The last piece is done (or the job was cancelled or failed): wake the consumer. A short
    /// job's result is assembled by the consumer in `poll` (microseconds); a long job's was
    /// assembled by a task on the scheduler's pool, so the consumer's thread (a host's bridge
    /// or event loop) does not pay for it.
    fn deliver(&self) {
        if self.completed.swap(true, Ordering::AcqRel) {
            return;
        }
        // Take the waker out first: never call into an executor while holding our lock.
        let waker = self.waker.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// The result, assembled on the caller's thread, once the job is complete.
    fn take(&self) -> Option<Result<JobOutput>> {
        if !self.completed.load(Ordering::Acquire) {
            return None;
        }
        if self.taken.swap(true, Ordering::AcqRel) {
            return Some(Err(crate::Error::InvalidArgument("future polled after it completed".into())));
        }
        Some(self.job.finish())
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl crate::scheduler::Task for State {
    fn job(&self) -> &EncodeJob {
        &self.job
    }
    fn complete(&self) {
        self.deliver()
    }
    fn claim_assembly(&self) -> bool {
        !self.assembly_queued.swap(true, Ordering::AcqRel)
    }
    fn lane(&self) -> bool {
        self.lane
    }
}

/// The future of one encode. Resolves to the job's output, or to
/// [`Error::Cancelled`](crate::Error::Cancelled) if its handle cancelled it.
#[must_use = "futures do nothing unless polled"]
pub struct EncodeFuture {
    state: Arc<State>,
    started: bool,
    #[cfg(not(target_arch = "wasm32"))]
    scheduler: crate::Scheduler,
    #[cfg(target_arch = "wasm32")]
    slice: web_time::Duration,
}

impl EncodeFuture {
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn new(job: EncodeJob, scheduler: crate::Scheduler) -> Self {
        EncodeFuture { state: new_state(job), started: false, scheduler }
    }

    #[cfg(target_arch = "wasm32")]
    pub(crate) fn new(job: EncodeJob, slice: web_time::Duration) -> Self {
        EncodeFuture { state: new_state(job), started: false, slice }
    }

    /// A member of a batch: throughput work, never run on the scheduler's short lane.
    pub(crate) fn in_batch(mut self) -> Self {
        if let Some(state) = Arc::get_mut(&mut self.state) {
            state.lane = false;
        }
        self
    }

    /// Progress and cancellation for this encode.
    pub fn handle(&self) -> JobHandle {
        JobHandle { state: self.state.clone() }
    }

    /// Start the work now instead of at the first poll (native: queue it on the scheduler).
    pub fn start(&mut self) {
        if !self.started {
            self.started = true;
            #[cfg(not(target_arch = "wasm32"))]
            self.scheduler.submit(self.state.clone());
        }
    }
}

fn new_state(job: EncodeJob) -> Arc<State> {
    Arc::new(State {
        job,
        taken: AtomicBool::new(false),
        waker: Mutex::new(None),
        completed: AtomicBool::new(false),
        assembly_queued: AtomicBool::new(false),
        lane: true,
    })
}

impl Future for EncodeFuture {
    type Output = Result<JobOutput>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Some(r) = self.state.take() {
            return Poll::Ready(r);
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            *self.state.waker.lock().unwrap_or_else(|e| e.into_inner()) = Some(cx.waker().clone());
            self.start();
            // The job may have completed between the first check and registering the waker.
            match self.state.take() {
                Some(r) => Poll::Ready(r),
                None => Poll::Pending,
            }
        }
        #[cfg(target_arch = "wasm32")]
        {
            self.started = true;
            let slice = self.slice;
            if self.state.job.step(crate::job::Budget::time(slice)) {
                self.state.deliver();
                return Poll::Ready(self.state.take().unwrap_or(Err(crate::Error::Cancelled)));
            }
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

impl Drop for EncodeFuture {
    fn drop(&mut self) {
        if !self.state.completed.load(Ordering::Acquire) {
            self.state.job.cancel();
        }
    }
}

/// Run a future to completion on the current thread, parking between polls. The work of an
/// [`EncodeFuture`] happens on the scheduler's threads, so this is all a sync caller (a CLI, a
/// test, a binding's sync twin) needs — no async runtime.
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    loop {
        if let Some(v) = wait_for(&mut fut, None) {
            return v;
        }
    }
}

/// Poll `fut` on the current thread, parking between polls, for at most `timeout` (`None`:
/// until it is ready): `None` if it is still pending then. A sync caller that must do
/// something now and then while it waits (a binding checking for Ctrl-C) loops on this.
#[cfg(not(target_arch = "wasm32"))]
pub fn wait_for<F: Future + Unpin>(fut: &mut F, timeout: Option<std::time::Duration>) -> Option<F::Output> {
    struct ThreadWaker(std::thread::Thread);
    impl std::task::Wake for ThreadWaker {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let deadline = timeout.map(|t| std::time::Instant::now() + t);
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(v) = Pin::new(&mut *fut).poll(&mut cx) {
            return Some(v);
        }
        match deadline {
            None => std::thread::park(),
            Some(d) => {
                let now = std::time::Instant::now();
                if now >= d {
                    return None;
                }
                std::thread::park_timeout(d - now);
            }
        }
    }
}
