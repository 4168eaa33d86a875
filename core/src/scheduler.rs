//! The fair scheduler (native targets): many encode jobs share one bounded thread pool, piece
//! by piece. Whenever a worker is free it runs one piece of the job that has received the
//! least service so far (bytes encoded, measured on a virtual clock so that a job arriving
//! late does not get to monopolise the pool); ties go to the job with less left to do. A short
//! request therefore waits for at most about one piece per worker, never for a whole long
//! request. Pieces of one job run on several workers at once when nothing else is waiting.
//!
//! The pool is a `rayon` pool (default: one thread per core, `YIELDTOK_THREADS` to change it)
//! whose threads run at a lower priority than the host's (see [`DEFAULT_WORKER_NICE`]);
//! the sync batch API runs on the same pool, so the library never has more threads than that.
//! Each queued job holds exactly one "run the best job" task in the pool, so the pool's own
//! queue order does not matter: the choice is made here, when a worker is free.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, OnceLock};

use crate::job::EncodeJob;

/// Something the scheduler can advance one piece at a time.
pub(crate) trait Task: Send + Sync {
    fn job(&self) -> &EncodeJob;
    /// Called once, by the worker that completes the last piece (or notices cancellation), or
    /// by the assembler thread once a long job's result is assembled.
    fn complete(&self);
    /// `true` exactly once: the caller hands the job to the assembler (several workers may
    /// see the job done at the same time).
    fn claim_assembly(&self) -> bool;
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
    /// Virtual time: the service of the most recently scheduled entry.
    clock: u64,
    seq: u64,
}

struct Shared {
    pool: rayon::ThreadPool,
    threads: usize,
    queue: Mutex<Queue>,
}

/// Nice value of the workers (Linux): `YIELDTOK_WORKER_NICE`, default 5. The host's own
/// threads — an event loop, a bridge thread handing a result over — then win the CPU as soon
/// as they wake, even while every worker is busy with long encodes; the workers still get all
/// the CPU nothing else wants. 0 keeps the workers at the host's priority.
pub const DEFAULT_WORKER_NICE: i32 = 5;

fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        let nice = std::env::var("YIELDTOK_WORKER_NICE").ok().and_then(|v| v.parse::<i32>().ok()).unwrap_or(DEFAULT_WORKER_NICE);
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

/// A bounded pool of workers and a fair queue of jobs. Cheap to clone.
#[derive(Clone)]
pub struct Scheduler {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler").field("threads", &self.shared.threads).finish()
    }
}

impl Scheduler {
    /// A scheduler with `threads` workers (0: one per core).
    pub fn new(threads: usize) -> Self {
        let threads = if threads == 0 { std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) } else { threads };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("yieldtok-{i}"))
            .start_handler(|_| lower_priority())
            // Pieces catch their own panics; this only keeps a stray one from aborting the host.
            .panic_handler(|_| {})
            .build()
            .expect("cannot start the yieldtok thread pool");
        Scheduler { shared: Arc::new(Shared { pool, threads, queue: Mutex::new(Queue::default()) }) }
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

    pub fn threads(&self) -> usize {
        self.shared.threads
    }

    pub(crate) fn pool(&self) -> &rayon::ThreadPool {
        &self.shared.pool
    }

    /// Jobs waiting for a worker (for tests and metrics).
    pub fn queued(&self) -> usize {
        self.lock().heap.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.shared.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queue a task; a worker will start it when it is the least-served one.
    pub(crate) fn submit(&self, task: Arc<dyn Task>) {
        let remaining = task.job().remaining_bytes();
        let mut q = self.lock();
        let clock = q.clock;
        self.push(&mut q, clock, remaining, Work::Piece(task));
    }

    /// Queue a closure to run once on a worker, as a new request (see [`Work::Once`]).
    pub(crate) fn submit_once(&self, f: Box<dyn FnOnce() + Send>) {
        let mut q = self.lock();
        let clock = q.clock;
        self.push(&mut q, clock, 0, Work::Once(f));
    }

    fn push(&self, q: &mut Queue, service: u64, remaining: usize, work: Work) {
        q.seq += 1;
        let key = (service, remaining, q.seq);
        q.heap.push(Reverse(Entry { key, work }));
        let me = self.clone();
        self.shared.pool.spawn(move || me.run_best());
    }

    /// One pool task: pick the least-served job, claim a piece, requeue the job if more
    /// remains (so another worker can take its next piece), run the piece.
    fn run_best(&self) {
        let (key, task, claim) = {
            let mut q = self.lock();
            let Some(Reverse(entry)) = q.heap.pop() else { return };
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
            maybe_complete(&task);
            return;
        };
        if task.job().has_unclaimed() {
            let remaining = task.job().remaining_bytes();
            let service = key.0 + claim.len() as u64;
            let mut q = self.lock();
            self.push(&mut q, service, remaining, Work::Piece(task.clone()));
        }
        // `run` catches panics of the pipeline itself; this guards the bookkeeping around it.
        let _ = catch_unwind(AssertUnwindSafe(|| task.job().run(claim)));
        maybe_complete(&task);
    }
}

/// The job is done: complete it, or, for a long one, hand it to the assembler thread first.
fn maybe_complete(task: &Arc<dyn Task>) {
    let job = task.job();
    if !job.is_done() {
        return;
    }
    if job.wants_assembler() && task.claim_assembly() {
        assemble_then_complete(task.clone());
    } else {
        task.complete();
    }
}

/// Assemble long jobs' results on one process-wide thread (`yieldtok-assemble`, at the
/// workers' priority): not on a worker, where it would hold up short requests for the
/// milliseconds 100k+ tokens take, and not in the consumer's `poll`, which may run on a host's
/// bridge or event-loop thread. Falls back to completing at once (assembly in `poll`) if the
/// thread cannot start.
fn assemble_then_complete(task: Arc<dyn Task>) {
    use std::sync::mpsc::{channel, Sender};
    /// The assembler's queue (`None`: its thread could not start).
    type AssemblerQueue = Option<Mutex<Sender<Arc<dyn Task>>>>;
    static ASSEMBLER: OnceLock<AssemblerQueue> = OnceLock::new();
    let sender = ASSEMBLER.get_or_init(|| {
        let (tx, rx) = channel::<Arc<dyn Task>>();
        std::thread::Builder::new()
            .name("yieldtok-assemble".into())
            .spawn(move || {
                lower_priority();
                for task in rx {
                    let _ = catch_unwind(AssertUnwindSafe(|| task.job().prepare()));
                    task.complete();
                }
            })
            .ok()
            .map(|_| Mutex::new(tx))
    });
    let unsent = match sender {
        Some(tx) => tx.lock().unwrap_or_else(|e| e.into_inner()).send(task).err().map(|e| e.0),
        None => Some(task),
    };
    if let Some(task) = unsent {
        task.complete();
    }
}
