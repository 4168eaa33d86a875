//! The fair scheduler (native targets): many encode jobs share one bounded thread pool, piece
//! by piece. Whenever a worker is free it runs one piece of the job that has received the
//! least service so far (bytes encoded, measured on a virtual clock so that a job arriving
//! late does not get to monopolise the pool); ties go to the job with less left to do. A short
//! request therefore waits for at most about one piece per worker, never for a whole long
//! request. Pieces of one job run on several workers at once when nothing else is waiting.
//!
//! The pool is a `rayon` pool (default: one thread per core, `YIELDTOK_THREADS` to change it)
//! whose threads run at a lower priority than the host's (see [`DEFAULT_WORKER_NICE`]);
//! the sync batch API runs on the same pool. Beside the pool, the short lane: one thread at
//! the host's priority for short jobs (see [`SHORT_LANE_MAX_BYTES`]).
//! Each queued job holds exactly one "run the best job" task in the pool, so the pool's own
//! queue order does not matter: the choice is made here, when a worker is free.
//!
//! Fork safety: the pool, the lane and the queue's lock belong to one process
//! ([`PerProcess`](crate::fork::PerProcess)); a forked child builds its own on first use and
//! never touches the parent's (whose threads are gone and whose locks may be held).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use crate::fork::PerProcess;
use crate::job::EncodeJob;

/// Something the scheduler can advance one piece at a time.
pub(crate) trait Task: Send + Sync {
    fn job(&self) -> &EncodeJob;
    /// Called once, by the worker that completes the last piece (or notices cancellation), or
    /// by the task that assembled a long job's result.
    fn complete(&self);
    /// `true` exactly once: the caller queues the job's assembly (several workers may see the
    /// job done at the same time).
    fn claim_assembly(&self) -> bool;
    /// Whether the short lane may run it (a request of its own; not a member of a batch,
    /// which is throughput work).
    fn lane(&self) -> bool;
}

struct Entry {
    key: (u64, usize, u64),
    work: Work,
}

/// What a queue entry runs.
enum Work {
    /// The next piece of a job.
    Piece(Arc<dyn Task>),
    /// A closure run once (a `TaskFuture`: decode, chat template, trajectories), queued like a
    /// new request so that it waits for at most about one piece per worker, as a short encode
    /// does.
    Once(Box<dyn FnOnce() + Send>),
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.cmp(&o.key)
    }
}

#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Reverse<Entry>>,
    /// Short jobs' pieces, kept apart so that the short lane finds them at once; workers take
    /// whichever of the two heads is first.
    shorts: BinaryHeap<Reverse<Entry>>,
    /// Virtual time: the service of the most recently scheduled entry.
    clock: u64,
    seq: u64,
}

/// One process's pool, lane and queue.
struct Shared {
    pool: rayon::ThreadPool,
    queue: Mutex<Queue>,
    /// Wakes the short lane: one message per short job submitted.
    lane: Mutex<Sender<()>>,
}

/// Requests of at most this many bytes (about a thousand tokens: a fraction of a millisecond
/// of work) may also run on the *short lane*: one extra thread at the host's priority that
/// takes only such jobs (kept in a heap of their own), as soon as they are queued. Members of
/// a batch do not (that is throughput work). While every worker is in the middle of a long
/// job's piece, a short request then starts at once instead of waiting for a piece to end,
/// and for a worker at nice +5 to get the CPU back from the host's threads. The lane sleeps
/// otherwise, so the work done is the same; the workers still run short jobs too.
pub const SHORT_LANE_MAX_BYTES: usize = 4 * 1024;

/// Nice value of the workers (Linux): `YIELDTOK_WORKER_NICE`, default 5. The host's own
/// threads — an event loop, a bridge thread handing a result over — then get the CPU before
/// the workers when they wake, and the workers still get all the CPU nothing else wants and
/// a share of the rest. 0 keeps the workers at the host's priority.
///
/// `SCHED_IDLE` workers were tried: the kernel preempts them the moment anything else wakes
/// (with nice values a waking thread may wait up to a tick, 4 ms at HZ=250), which cut the
/// Node benchmark's short-request p99 from ~3.5 to ~1.8 ms; but an unprivileged process
/// cannot move them back to normal priority, and on a host that kept every core busy a
/// 160k-token encode then took 0.5–12 s instead of 0.6 s. Not worth it.
pub const DEFAULT_WORKER_NICE: i32 = 5;

fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        let nice = std::env::var("YIELDTOK_WORKER_NICE")
            .ok()
            .and_then(|v| v.parse::<i32>().ok())
            .unwrap_or(DEFAULT_WORKER_NICE);
        if nice > 0 {
            // SAFETY: plain syscalls on the calling thread (setpriority with a thread id sets
            // that thread's nice value on Linux).
            unsafe {
                let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                let now = libc::getpriority(libc::PRIO_PROCESS, tid);
                libc::setpriority(libc::PRIO_PROCESS, tid, (now + nice).min(19));
            }
        }
    }
}

impl Queue {
    /// The first entry (of the short jobs only, if `short_only`).
    fn pop(&mut self, short_only: bool) -> Option<Reverse<Entry>> {
        let from_shorts = short_only
            || matches!((self.shorts.peek(), self.heap.peek()), (Some(a), Some(b)) if a >= b)
            || self.heap.is_empty();
        if from_shorts {
            self.shorts.pop()
        } else {
            self.heap.pop()
        }
    }
}

/// A bounded pool of workers and a fair queue of jobs. Cheap to clone.
#[derive(Clone)]
pub struct Scheduler {
    cell: Arc<Cell>,
}

struct Cell {
    threads: usize,
    shared: PerProcess<Arc<Shared>>,
}

impl std::fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler").field("threads", &self.cell.threads).finish()
    }
}

impl Scheduler {
    /// A scheduler with `threads` workers (0: one per core).
    pub fn new(threads: usize) -> Self {
        let threads =
            if threads == 0 { std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) } else { threads };
        let scheduler = Scheduler { cell: Arc::new(Cell { threads, shared: PerProcess::new() }) };
        scheduler.shared();
        scheduler
    }

    /// The process-wide scheduler, created on first use (`YIELDTOK_THREADS` workers, default
    /// one per core).
    pub fn global() -> &'static Scheduler {
        static GLOBAL: OnceLock<Scheduler> = OnceLock::new();
        GLOBAL.get_or_init(|| {
            let n = std::env::var("YIELDTOK_THREADS").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
            Scheduler::new(n)
        })
    }

    /// This process's pool, lane and queue (built on first use in a forked child).
    fn shared(&self) -> &Arc<Shared> {
        self.cell.shared.get_or_init(|_| Shared::start(self.cell.threads))
    }

    pub fn threads(&self) -> usize {
        self.cell.threads
    }

    pub(crate) fn pool(&self) -> &rayon::ThreadPool {
        &self.shared().pool
    }

    /// Jobs waiting for a worker (for tests and metrics).
    pub fn queued(&self) -> usize {
        let q = self.shared().lock();
        q.heap.len() + q.shorts.len()
    }

    /// Queue a task; a worker will start it when it is the least-served one.
    pub(crate) fn submit(&self, task: Arc<dyn Task>) {
        let remaining = task.job().remaining_bytes();
        let short = is_short(&task);
        self.shared().enqueue(None, remaining, Work::Piece(task), short);
    }

    /// Queue a closure to run once on a worker, as a new request (see [`Work::Once`]).
    pub(crate) fn submit_once(&self, f: Box<dyn FnOnce() + Send>) {
        self.shared().enqueue(None, 0, Work::Once(f), false);
    }
}

impl Shared {
    fn start(threads: usize) -> Arc<Shared> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("yieldtok-{i}"))
            .start_handler(|_| lower_priority())
            // Pieces catch their own panics; this only keeps a stray one from aborting the host.
            .panic_handler(|_| {})
            .build()
            .expect("cannot start the yieldtok thread pool");
        let (tx, rx) = channel();
        let shared = Arc::new(Shared { pool, queue: Mutex::new(Queue::default()), lane: Mutex::new(tx) });
        let weak = Arc::downgrade(&shared);
        // Without the lane (its thread could not start) the workers still run every job.
        let _ = std::thread::Builder::new().name("yieldtok-short".into()).spawn(move || short_lane(weak, rx));
        shared
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queue `work` at `service` (`None`: as a new request, at the clock), with one pool task
    /// to run the best entry; a short job's piece also wakes the short lane.
    fn enqueue(self: &Arc<Self>, service: Option<u64>, remaining: usize, work: Work, short: bool) {
        {
            let mut q = self.lock();
            q.seq += 1;
            let key = (service.unwrap_or(q.clock), remaining, q.seq);
            let entry = Reverse(Entry { key, work });
            if short {
                q.shorts.push(entry)
            } else {
                q.heap.push(entry)
            }
        }
        let me = self.clone();
        self.pool.spawn(move || me.run_head(false));
        if short {
            let _ = self.lane.lock().unwrap_or_else(|e| e.into_inner()).send(());
        }
    }

    /// One pool task (or, with `short_only`, a short lane's turn): pick the least-served entry
    /// (of the short jobs only, if `short_only`), claim a piece, requeue the job if more
    /// remains (so another worker can take its next piece), run the piece. A pool task whose
    /// entry the lane took finds the next one, or nothing.
    fn run_head(self: &Arc<Self>, short_only: bool) {
        let (key, task, claim) = {
            let mut q = self.lock();
            let Some(Reverse(entry)) = q.pop(short_only) else { return };
            q.clock = q.clock.max(entry.key.0);
            let task = match entry.work {
                Work::Piece(task) => task,
                Work::Once(f) => {
                    drop(q);
                    // The closure catches its own panics (`TaskFuture`); this guards the rest.
                    let _ = catch_unwind(AssertUnwindSafe(f));
                    return;
                }
            };
            let claim = task.job().claim();
            (entry.key, task, claim)
        };
        let Some(claim) = claim else {
            // Nothing left to claim: cancelled, failed, or its last pieces are running elsewhere.
            self.maybe_complete(&task);
            return;
        };
        if task.job().has_unclaimed() {
            let remaining = task.job().remaining_bytes();
            let service = key.0 + claim.len() as u64;
            // (a short job's next piece wakes the lane too)
            self.enqueue(Some(service), remaining, Work::Piece(task.clone()), is_short(&task));
        }
        // `run` catches panics of the pipeline itself; this guards the bookkeeping around it.
        let _ = catch_unwind(AssertUnwindSafe(|| task.job().run(claim)));
        self.maybe_complete(&task);
    }

    /// The job is done: complete it, or, for a long one, queue its assembly first (a task like
    /// a new request's: it waits for about one piece per worker; short jobs meanwhile go to
    /// the short lane).
    fn maybe_complete(self: &Arc<Self>, task: &Arc<dyn Task>) {
        let job = task.job();
        if !job.is_done() {
            return;
        }
        if job.wants_pool_assembly() {
            // Only the worker that claims the assembly goes on; another that saw the job done
            // at the same time must not complete it before it is assembled.
            if task.claim_assembly() {
                let task = task.clone();
                let assemble = move || {
                    let _ = catch_unwind(AssertUnwindSafe(|| task.job().prepare()));
                    task.complete();
                };
                self.enqueue(None, 0, Work::Once(Box::new(assemble)), false);
            }
        } else {
            task.complete();
        }
    }
}

fn is_short(task: &Arc<dyn Task>) -> bool {
    task.lane() && task.job().text().len() <= SHORT_LANE_MAX_BYTES
}

/// The short lane's thread (see [`SHORT_LANE_MAX_BYTES`]): each wake-up (a short job's piece
/// queued) runs the first queued short job's piece, if there still is one (a worker may have
/// taken it). Ends with its scheduler.
fn short_lane(shared: Weak<Shared>, wakes: Receiver<()>) {
    for () in wakes {
        let Some(shared) = shared.upgrade() else { return };
        let _ = catch_unwind(AssertUnwindSafe(|| shared.run_head(true)));
    }
}
