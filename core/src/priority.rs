//! Thread priorities of the native scheduler (Linux; elsewhere every function here is a no-op).
//!
//! The library's threads do two kinds of work. Throughput work — the pieces of long encodes,
//! batches, trajectories — runs on the scheduler's workers. Latency work — the host's event
//! loop, a binding's bridge thread handing a result over, the scheduler's short lane — must get
//! the CPU the moment it wakes. Nice values do not give that: on the kernel's EEVDF scheduler a
//! running thread keeps its slice, so a waking event loop waited for the next tick (up to 4 ms
//! at HZ=250) behind a nice +5 worker, measured here with `perf sched`. A `SCHED_IDLE` thread
//! is preempted at once by any other thread that wakes, so that is the workers' default policy.
//!
//! `SCHED_IDLE` alone would starve the workers on a host that keeps every core busy with
//! threads of normal priority. [`StarvationCheck`] tells when that happens (from the threads'
//! time on a CPU vs time waiting for one, `/proc/self/task/<tid>/schedstat`); the scheduler's
//! short lane then moves the workers back to normal priority where the kernel allows it
//! (leaving `SCHED_IDLE` needs `CAP_SYS_NICE` or an `RLIMIT_NICE` that permits it) and
//! otherwise runs queued work itself at normal priority until they are no longer starved.
//!
//! `YIELDTOK_WORKER_PRIORITY` chooses: `idle` (the default) or a nice increment, e.g. `5`
//! (normal policy, nice +5; `0` keeps the workers at the host's priority).

use std::sync::{Arc, Mutex, OnceLock};

use web_time::{Duration, Instant};

/// How the workers run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerPriority {
    /// `SCHED_IDLE`, with the starvation check (the default).
    Idle,
    /// Normal policy at this nice increment over the host's.
    Nice(i32),
}

/// Nice increment of the library's helper threads (see [`lower_thread_priority`]).
pub const HELPER_NICE: i32 = 5;

/// The workers' priority, from `YIELDTOK_WORKER_PRIORITY` (read once).
pub fn worker_priority() -> WorkerPriority {
    static P: OnceLock<WorkerPriority> = OnceLock::new();
    *P.get_or_init(|| match std::env::var("YIELDTOK_WORKER_PRIORITY") {
        Ok(v) if v.trim() != "idle" && !v.trim().is_empty() => v.trim().parse().map(WorkerPriority::Nice).unwrap_or(WorkerPriority::Idle),
        _ => WorkerPriority::Idle,
    })
}

/// A thread id (Linux `gettid`; 0 elsewhere).
pub(crate) type Tid = i64;

pub(crate) fn current_tid() -> Tid {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a plain syscall without arguments.
        unsafe { libc::syscall(libc::SYS_gettid) as Tid }
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// Put the calling worker thread at the workers' priority.
pub(crate) fn enter_worker() {
    match worker_priority() {
        WorkerPriority::Idle => {
            // Nice +5 underneath: the level it returns to if it is ever moved off SCHED_IDLE.
            renice(current_tid(), HELPER_NICE);
            set_idle(current_tid())
        }
        WorkerPriority::Nice(n) => renice(current_tid(), n),
    }
}

/// Lower the calling thread to nice +5 (Linux; elsewhere a no-op): for the library's and the
/// bindings' helper threads that do short bursts of throughput work for long requests
/// (assembling or converting a long result). They stay on the normal policy, so they are never
/// starved, but below the host's threads.
pub fn lower_thread_priority() {
    renice(current_tid(), HELPER_NICE)
}

#[allow(unused_variables)]
fn set_idle(tid: Tid) {
    #[cfg(target_os = "linux")]
    // SAFETY: plain syscall on a thread of this process.
    unsafe {
        let p = libc::sched_param { sched_priority: 0 };
        libc::sched_setscheduler(tid as libc::pid_t, libc::SCHED_IDLE, &p);
    }
}

/// Back to the normal policy, at the nice value the thread had; `false` if not permitted.
#[allow(unused_variables)]
fn set_normal(tid: Tid) -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: plain syscall on a thread of this process.
    unsafe {
        let p = libc::sched_param { sched_priority: 0 };
        libc::sched_setscheduler(tid as libc::pid_t, libc::SCHED_OTHER, &p) == 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        true
    }
}

#[allow(unused_variables)]
fn renice(tid: Tid, by: i32) {
    #[cfg(target_os = "linux")]
    if by > 0 {
        // SAFETY: plain syscalls (setpriority with a thread id sets that thread's nice value).
        unsafe {
            let now = libc::getpriority(libc::PRIO_PROCESS, tid as libc::id_t);
            libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, (now + by).min(19));
        }
    }
}

/// Time on a CPU and time runnable but waiting for one, in ns.
#[cfg(target_os = "linux")]
fn schedstat(tid: Tid) -> Option<(u64, u64)> {
    let s = std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok()?;
    let mut it = s.split_whitespace().map(|x| x.parse::<u64>().ok());
    Some((it.next()??, it.next()??))
}

#[cfg(not(target_os = "linux"))]
fn schedstat(_tid: Tid) -> Option<(u64, u64)> {
    None
}

/// How often [`StarvationCheck::starved`] looks.
pub(crate) const CHECK_EVERY: Duration = Duration::from_millis(100);

/// Whether the workers (`SCHED_IDLE`) are starved: over the last window they spent more time
/// waiting for a CPU than on one, and were busy for at least a fifth of it. While starved they
/// are moved to the normal policy if the kernel allows it (and back to `SCHED_IDLE` when they
/// are not starved any more); [`StarvationCheck::starved`] stays `true` if it did not.
pub(crate) struct StarvationCheck {
    tids: Arc<Mutex<Vec<Tid>>>,
    last: Vec<(Tid, u64, u64)>,
    at: Instant,
    starved: bool,
    /// The workers were moved to the normal policy.
    raised: bool,
}

impl StarvationCheck {
    pub(crate) fn new(tids: Arc<Mutex<Vec<Tid>>>) -> Self {
        StarvationCheck { tids, last: Vec::new(), at: Instant::now(), starved: false, raised: false }
    }

    /// Whether queued work should also run at normal priority (on the caller) because the
    /// workers are starved; re-evaluated at most every [`CHECK_EVERY`].
    pub(crate) fn starved(&mut self) -> bool {
        if worker_priority() != WorkerPriority::Idle || self.at.elapsed() < CHECK_EVERY {
            return self.starved && !self.raised;
        }
        let window = self.at.elapsed().as_nanos() as u64;
        self.at = Instant::now();
        let tids = self.tids.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let (mut run, mut wait) = (0u64, 0u64);
        let mut next = Vec::with_capacity(tids.len());
        for tid in tids {
            let Some((r, w)) = schedstat(tid) else { continue };
            if let Some(&(_, r0, w0)) = self.last.iter().find(|x| x.0 == tid) {
                run += r.saturating_sub(r0);
                wait += w.saturating_sub(w0);
            }
            next.push((tid, r, w));
        }
        let had_history = !self.last.is_empty();
        self.last = next;
        if !had_history {
            return self.starved && !self.raised;
        }
        let busy = run + wait;
        let starved = busy * 5 >= window && wait > run;
        if starved != self.starved {
            self.starved = starved;
            let tids: Vec<Tid> = self.last.iter().map(|x| x.0).collect();
            if starved {
                self.raised = tids.iter().all(|&t| set_normal(t));
            } else {
                if self.raised {
                    tids.iter().for_each(|&t| set_idle(t));
                }
                self.raised = false;
            }
        }
        self.starved && !self.raised
    }
}
