//! Many encodes awaited as one: [`BatchFuture`] resolves when every text of a batch is encoded,
//! in input order. Each text is its own job on the fair scheduler, so a batch interleaves
//! with other requests piece by piece instead of holding workers for its whole duration. The
//! first failure cancels the rest of the batch; dropping the future cancels every job still
//! running. Front ends hand [`BatchHandle::cancel`] to their host's cancellation signal.
//!
//! Each job wakes the batch through its own waker, which records its index, so a wake-up
//! polls only the jobs that asked for it (a batch of n texts costs O(n) polls, not O(n²)).
//! A small batch (at most [`SMALL_BATCH_BYTES`] in all, about a piece's worth of work) is one
//! task instead: the texts encoded one after the other on one worker, which costs less than a
//! job per text and holds a worker no longer than a piece does.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use crate::error::Result;
use crate::future::{EncodeFuture, JobHandle};
use crate::job::{JobOutput, Progress};
use crate::task::{CancelFlag, TaskFuture};

/// Batches up to this many bytes in all run as one task (see the module docs).
pub const SMALL_BATCH_BYTES: usize = 4 * 1024;

/// Progress and cancellation for a whole batch.
#[derive(Clone)]
pub struct BatchHandle {
    jobs: Vec<JobHandle>,
    /// A small batch's task.
    task: Option<(CancelFlag, usize)>,
}

impl BatchHandle {
    /// Cancel every job of the batch that has not finished.
    pub fn cancel(&self) {
        self.jobs.iter().for_each(JobHandle::cancel);
        if let Some((flag, _)) = &self.task {
            flag.cancel();
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.jobs.iter().any(JobHandle::is_cancelled) || self.task.as_ref().is_some_and(|(f, _)| f.is_cancelled())
    }

    /// Bytes done / total over the whole batch (a small batch reports 0 done until it is).
    pub fn progress(&self) -> Progress {
        let start = Progress { done_bytes: 0, total_bytes: self.task.as_ref().map_or(0, |(_, n)| *n) };
        self.jobs.iter().map(JobHandle::progress).fold(start, |a, p| Progress {
            done_bytes: a.done_bytes + p.done_bytes,
            total_bytes: a.total_bytes + p.total_bytes,
        })
    }

    /// The handles of the individual jobs, in input order (none for a small batch run as one
    /// task; [`cancel`](Self::cancel) covers both).
    pub fn jobs(&self) -> &[JobHandle] {
        &self.jobs
    }
}

/// Jobs that woke since the batch was last polled, and the batch's own waker.
#[derive(Default)]
struct Ready {
    indices: Mutex<Vec<usize>>,
    parent: Mutex<Option<Waker>>,
}

/// The waker handed to job `index`.
struct JobWaker {
    index: usize,
    ready: Arc<Ready>,
}

impl Wake for JobWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref()
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.ready.indices.lock().unwrap_or_else(|e| e.into_inner()).push(self.index);
        let parent = self.ready.parent.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(w) = parent {
            w.wake();
        }
    }
}

/// The future of a batch encode: every output in input order, or the first error.
#[must_use = "futures do nothing unless polled"]
pub struct BatchFuture {
    kind: Kind,
    handle: BatchHandle,
    /// The tokenizer's padding, applied over the whole batch once every output is in (as
    /// `tokenizers`' `encode_batch` pads to the batch's longest).
    pad: Option<tokenizers::PaddingParams>,
}

enum Kind {
    /// One job per text.
    Jobs(Jobs),
    /// A small batch: one task, and the number of texts.
    Task(TaskFuture<Vec<JobOutput>>, usize),
}

/// The state of a batch of jobs.
struct Jobs {
    futs: Vec<Option<EncodeFuture>>,
    outs: Vec<Option<JobOutput>>,
    wakers: Vec<Waker>,
    ready: Arc<Ready>,
    polled: bool,
    left: usize,
}

impl BatchFuture {
    pub(crate) fn new(futs: Vec<EncodeFuture>) -> Self {
        let handle = BatchHandle { jobs: futs.iter().map(EncodeFuture::handle).collect(), task: None };
        let n = futs.len();
        let ready = Arc::new(Ready::default());
        let wakers = (0..n).map(|index| Waker::from(Arc::new(JobWaker { index, ready: ready.clone() }))).collect();
        let jobs = Jobs {
            futs: futs.into_iter().map(Some).collect(),
            outs: (0..n).map(|_| None).collect(),
            wakers,
            ready,
            polled: false,
            left: n,
        };
        BatchFuture { kind: Kind::Jobs(jobs), handle, pad: None }
    }

    /// A small batch as one task; `total_bytes` for progress.
    pub(crate) fn small(task: TaskFuture<Vec<JobOutput>>, texts: usize, total_bytes: usize) -> Self {
        let handle = BatchHandle { jobs: Vec::new(), task: Some((task.cancel_flag(), total_bytes)) };
        BatchFuture { kind: Kind::Task(task, texts), handle, pad: None }
    }

    pub fn handle(&self) -> BatchHandle {
        self.handle.clone()
    }

    /// Pad the outputs over the whole batch when they are all in.
    pub(crate) fn padded(mut self, pad: Option<tokenizers::PaddingParams>) -> Self {
        self.pad = pad;
        self
    }

    /// Number of texts in the batch.
    pub fn len(&self) -> usize {
        match &self.kind {
            Kind::Jobs(j) => j.futs.len(),
            Kind::Task(_, n) => *n,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Queue every job now instead of at the first poll (a small batch's task is queued when
    /// it is made).
    pub fn start(&mut self) {
        if let Kind::Jobs(j) = &mut self.kind {
            j.futs.iter_mut().flatten().for_each(EncodeFuture::start);
        }
    }
}

impl Future for BatchFuture {
    type Output = Result<Vec<JobOutput>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let me = &mut *self;
        let out = match &mut me.kind {
            Kind::Task(task, _) => Pin::new(task).poll(cx),
            Kind::Jobs(jobs) => jobs.poll(cx, &me.handle),
        };
        match (out, &me.pad) {
            (Poll::Ready(Ok(mut outs)), Some(pad)) => {
                crate::job::pad_outputs(&mut outs, pad);
                Poll::Ready(Ok(outs))
            }
            (out, _) => out,
        }
    }
}

impl Jobs {
    fn poll(&mut self, cx: &mut Context<'_>, handle: &BatchHandle) -> Poll<Result<Vec<JobOutput>>> {
        {
            let mut parent = self.ready.parent.lock().unwrap_or_else(|e| e.into_inner());
            if !parent.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                *parent = Some(cx.waker().clone());
            }
        }
        // The first poll starts every job; later ones poll the jobs that woke.
        let indices: Vec<usize> = if self.polled {
            let mut v = std::mem::take(&mut *self.ready.indices.lock().unwrap_or_else(|e| e.into_inner()));
            v.sort_unstable();
            v.dedup();
            v
        } else {
            self.polled = true;
            self.futs.iter_mut().flatten().for_each(EncodeFuture::start);
            (0..self.futs.len()).collect()
        };
        for i in indices {
            let Some(fut) = self.futs.get_mut(i).and_then(Option::as_mut) else { continue };
            let mut jcx = Context::from_waker(&self.wakers[i]);
            match Pin::new(fut).poll(&mut jcx) {
                Poll::Pending => {}
                Poll::Ready(Ok(o)) => {
                    self.outs[i] = Some(o);
                    self.futs[i] = None;
                    self.left -= 1;
                }
                Poll::Ready(Err(e)) => {
                    handle.cancel();
                    self.futs.clear();
                    return Poll::Ready(Err(e));
                }
            }
        }
        if self.left > 0 {
            return Poll::Pending;
        }
        Poll::Ready(Ok(self.outs.drain(..).map(|o| o.expect("every job finished")).collect()))
    }
}
