//! Many encodes awaited as one: [`BatchFuture`] resolves when every text of a batch is encoded,
//! in input order. Each text is its own job on the fair scheduler, so a batch interleaves
//! with other requests piece by piece instead of holding workers for its whole duration. The
//! first failure cancels the rest of the batch; dropping the future cancels every job still
//! running. Front ends hand [`BatchHandle::cancel`] to their host's cancellation signal.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::error::Result;
use crate::future::{EncodeFuture, JobHandle};
use crate::job::{JobOutput, Progress};

/// Progress and cancellation for a whole batch.
#[derive(Clone)]
pub struct BatchHandle {
    jobs: Vec<JobHandle>,
}

impl BatchHandle {
    /// Cancel every job of the batch that has not finished.
    pub fn cancel(&self) {
        self.jobs.iter().for_each(JobHandle::cancel);
    }

    pub fn is_cancelled(&self) -> bool {
        self.jobs.iter().any(JobHandle::is_cancelled)
    }

    /// Bytes done / total over the whole batch.
    pub fn progress(&self) -> Progress {
        self.jobs.iter().map(JobHandle::progress).fold(Progress { done_bytes: 0, total_bytes: 0 }, |a, p| Progress {
            done_bytes: a.done_bytes + p.done_bytes,
            total_bytes: a.total_bytes + p.total_bytes,
        })
    }

    /// The handles of the individual jobs, in input order.
    pub fn jobs(&self) -> &[JobHandle] {
        &self.jobs
    }
}

/// The future of a batch encode: every output in input order, or the first error.
#[must_use = "futures do nothing unless polled"]
pub struct BatchFuture {
    futs: Vec<Option<EncodeFuture>>,
    outs: Vec<Option<JobOutput>>,
    left: usize,
    handle: BatchHandle,
}

impl BatchFuture {
    pub(crate) fn new(futs: Vec<EncodeFuture>) -> Self {
        let handle = BatchHandle { jobs: futs.iter().map(EncodeFuture::handle).collect() };
        let n = futs.len();
        BatchFuture { futs: futs.into_iter().map(Some).collect(), outs: (0..n).map(|_| None).collect(), left: n, handle }
    }

    pub fn handle(&self) -> BatchHandle {
        self.handle.clone()
    }

    /// Number of texts in the batch.
    pub fn len(&self) -> usize {
        self.futs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.futs.is_empty()
    }

    /// Queue every job now instead of at the first poll.
    pub fn start(&mut self) {
        self.futs.iter_mut().flatten().for_each(EncodeFuture::start);
    }
}

impl Future for BatchFuture {
    type Output = Result<Vec<JobOutput>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let me = &mut *self;
        me.start();
        for (slot, out) in me.futs.iter_mut().zip(me.outs.iter_mut()) {
            let Some(fut) = slot.as_mut() else { continue };
            match Pin::new(fut).poll(cx) {
                Poll::Pending => {}
                Poll::Ready(Ok(o)) => {
                    *out = Some(o);
                    *slot = None;
                    me.left -= 1;
                }
                Poll::Ready(Err(e)) => {
                    me.handle.cancel();
                    me.futs.clear();
                    return Poll::Ready(Err(e));
                }
            }
        }
        if me.left > 0 {
            return Poll::Pending;
        }
        Poll::Ready(Ok(me.outs.drain(..).map(|o| o.expect("every job finished")).collect()))
    }
}
