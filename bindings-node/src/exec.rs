//! A minimal executor for the core's runtime-agnostic futures ([`yieldtok::EncodeFuture`],
//! [`yieldtok::BatchFuture`], [`yieldtok::TaskFuture`]): "poll when woken". The first poll
//! happens on the calling (JS) thread and only queues the work on the core scheduler. The
//! wake-up comes from the scheduler worker that finishes the work. A light task is polled again
//! right there (a finished `TaskFuture` hands over its result; a short encode is assembled in
//! microseconds); a heavy one is polled by a task of its own queued on the core scheduler's
//! pool (`yieldtok::spawn_detached`), because what follows its final poll — converting 100k+
//! offsets to UTF-16 and flattening them (the core has already assembled the result on its
//! pool) — takes milliseconds: it must not run on the JS thread, and queued as a new request it
//! takes its turn with the other work. `on_done` runs on the thread that polled the future to
//! completion.
//!
//! A wake never blocks: if another thread is polling at that moment, the wake only marks the
//! task as notified and that thread polls once more; a heavy task has at most one poll queued
//! at a time (a batch's many wake-ups become few polls).
//!
//! [`spawn`] returns an [`Abort`]: aborting drops the future (a `TaskFuture` that has not
//! started then never starts; an encode's remaining pieces are cancelled) and reports
//! [`yieldtok::Error::Cancelled`] to `on_done`, so the promise behind it always settles.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, TryLockError, Weak};
use std::task::{Context, Poll, Wake, Waker};

use napi::Env;

const IDLE: u8 = 0;
/// A poll is queued on the pool (heavy tasks).
const SCHEDULED: u8 = 1;
const POLLING: u8 = 2;
const NOTIFIED: u8 = 3;
const DONE: u8 = 4;

type Done<T> = Box<dyn FnOnce(yieldtok::Result<T>) + Send>;

struct Task<T, F: Future<Output = yieldtok::Result<T>>> {
    state: AtomicU8,
    /// Poll in a task of its own on the pool after a wake-up (long jobs).
    heavy: bool,
    aborted: AtomicBool,
    fut: Mutex<Option<Pin<Box<F>>>>,
    on_done: Mutex<Option<Done<T>>>,
}

impl<T, F> Task<T, F>
where
    T: Send + 'static,
    F: Future<Output = yieldtok::Result<T>> + Send + 'static,
{
    fn run(self: &Arc<Self>) {
        // Become the poller, or leave a note for the current one.
        loop {
            match self.state.load(Ordering::Acquire) {
                s @ (IDLE | SCHEDULED) => {
                    if self.state.compare_exchange(s, POLLING, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                        break;
                    }
                }
                POLLING => {
                    if self.state.compare_exchange(POLLING, NOTIFIED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                        return;
                    }
                }
                _ => return, // NOTIFIED or DONE
            }
        }
        let waker = Waker::from(self.clone());
        loop {
            let polled = {
                let mut guard = self.fut.lock().unwrap_or_else(|e| e.into_inner());
                let Some(fut) = guard.as_mut() else { return };
                let mut cx = Context::from_waker(&waker);
                let r = match catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(&mut cx))) {
                    Ok(Poll::Pending) if self.aborted.load(Ordering::Acquire) => {
                        Ok(Poll::Ready(Err(yieldtok::Error::Cancelled)))
                    }
                    r => r,
                };
                if !matches!(r, Ok(Poll::Pending)) {
                    *guard = None;
                }
                r
            };
            match polled {
                Ok(Poll::Pending) => {
                    if self.state.compare_exchange(POLLING, IDLE, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                        return;
                    }
                    // Woken while polling: poll again.
                    self.state.store(POLLING, Ordering::Release);
                }
                Ok(Poll::Ready(out)) => return self.finish(out),
                Err(p) => return self.finish(Err(yieldtok::Error::from_panic(p))),
            }
        }
    }

    fn finish(&self, out: yieldtok::Result<T>) {
        self.state.store(DONE, Ordering::Release);
        let done = self.on_done.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(done) = done {
            let _ = catch_unwind(AssertUnwindSafe(|| done(out)));
        }
    }
}

impl<T, F> Wake for Task<T, F>
where
    T: Send + 'static,
    F: Future<Output = yieldtok::Result<T>> + Send + 'static,
{
    fn wake(self: Arc<Self>) {
        if !self.heavy {
            return self.run();
        }
        // Queue one poll on the pool, unless one is queued or running already.
        loop {
            match self.state.load(Ordering::Acquire) {
                IDLE => {
                    if self.state.compare_exchange(IDLE, SCHEDULED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                        return yieldtok::spawn_detached(move || self.run());
                    }
                }
                POLLING => {
                    if self.state.compare_exchange(POLLING, NOTIFIED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                        return;
                    }
                }
                _ => return, // SCHEDULED, NOTIFIED or DONE
            }
        }
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.clone().wake()
    }
}

impl<T, F: Future<Output = yieldtok::Result<T>>> Drop for Task<T, F> {
    fn drop(&mut self) {
        // Every waker is gone and the future never completed: report it rather than leave a
        // promise pending (and the event loop referenced) forever.
        if let Some(done) = self.on_done.get_mut().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = catch_unwind(AssertUnwindSafe(|| {
                done(Err(yieldtok::Error::Panic("the future was dropped before it completed".into())))
            }));
        }
    }
}

trait Cancel: Send + Sync {
    fn cancel(&self);
}

impl<T, F> Cancel for Task<T, F>
where
    T: Send + 'static,
    F: Future<Output = yieldtok::Result<T>> + Send + 'static,
{
    fn cancel(&self) {
        self.aborted.store(true, Ordering::Release);
        let fut = match self.fut.try_lock() {
            Ok(mut g) => g.take(),
            Err(TryLockError::Poisoned(p)) => p.into_inner().take(),
            // Being polled right now: the poller sees `aborted` when its poll returns pending.
            Err(TryLockError::WouldBlock) => return,
        };
        if fut.is_some() {
            self.finish(Err(yieldtok::Error::Cancelled));
        }
        // Dropped last, outside the lock: dropping an encode future cancels its job, which may
        // wake this task (that wake finds the task done).
        drop(fut);
    }
}

/// Aborts one spawned future (see the module docs); does nothing once it has completed.
#[derive(Clone)]
pub struct Abort(Weak<dyn Cancel>);

impl Abort {
    pub fn abort(&self) {
        if let Some(t) = self.0.upgrade() {
            t.cancel()
        }
    }
}

/// Drive `fut` to completion and hand its output to `on_done`, exactly once, on the thread that
/// completes it: the caller's if it is ready at once, else the scheduler worker that woke it,
/// or a task of its own on the pool when `heavy`. Called on the JS thread of `env`: the work
/// is aborted when that environment tears down (see [`EnvWork`]).
pub fn spawn<T, F>(env: &Env, fut: F, heavy: bool, on_done: impl FnOnce(yieldtok::Result<T>) + Send + 'static) -> Abort
where
    T: Send + 'static,
    F: Future<Output = yieldtok::Result<T>> + Send + 'static,
{
    let work = EnvWork::current(env);
    let id = work.as_ref().and_then(|w| w.reserve());
    let tracked = work.clone().zip(id);
    let on_done = move |r: yieldtok::Result<T>| {
        if let Some((w, id)) = tracked {
            w.done(id);
        }
        on_done(r)
    };
    let task = Arc::new(Task {
        state: AtomicU8::new(IDLE),
        heavy,
        aborted: AtomicBool::new(false),
        fut: Mutex::new(Some(Box::pin(fut))),
        on_done: Mutex::new(Some(Box::new(on_done) as Done<T>)),
    });
    let weak: Weak<dyn Cancel> = Arc::downgrade(&(task.clone() as Arc<dyn Cancel>));
    task.run();
    let abort = Abort(weak);
    if let (Some(w), Some(id)) = (work, id) {
        w.attach(id, abort.clone());
    }
    abort
}

/// The work in flight that one JS environment (the main thread's, or a `worker_threads`
/// worker's) started, aborted when that environment tears down (issue 17, item 5).
///
/// Without this, a worker terminated in the middle of long encodes left them running to the
/// end on the core's pool: each kept its job, its text, its result and the worker's tokenizer
/// alive until it finished, only for the result to be dropped — the promise was gone with the
/// worker. Terminating workers in a loop faster than that backlog drained grew RSS without
/// levelling off, and the dead work took CPU from the live. Measured (release, qwen3, rounds
/// of four workers each terminated with two 1 MB encodes in flight): uncuttable text ("a"
/// repeated) 336 -> 1503 MB in 8 rounds before, 193 -> 245 MB after; ordinary text plateaued
/// at 450-750 MB before, 170-350 MB after.
/// Now the environment's cleanup hook aborts every task it started: a task not yet started
/// never starts, an encode's remaining pieces never run and its running piece stops at its
/// next cancellation check (own engine), and everything it held is freed.
///
/// One per JS thread (an environment lives on one thread, and each worker has its own).
pub(crate) struct EnvWork {
    live: Mutex<Live>,
}

#[derive(Default)]
struct Live {
    gone: bool,
    next: u64,
    /// In-flight work by id; `None` until its [`Abort`] is attached.
    tasks: std::collections::HashMap<u64, Option<Abort>>,
}

thread_local! {
    static ENV_WORK: std::cell::RefCell<Option<(usize, Arc<EnvWork>)>> = const { std::cell::RefCell::new(None) };
}

impl EnvWork {
    /// This thread's environment's registry (its cleanup hook registered on first use); `None`
    /// if the hook cannot be registered (the work then runs untracked, as before).
    fn current(env: &Env) -> Option<Arc<EnvWork>> {
        let raw = env.raw();
        ENV_WORK.with(|slot| {
            let mut slot = slot.borrow_mut();
            if let Some((e, w)) = slot.as_ref() {
                if *e == raw as usize {
                    return Some(w.clone());
                }
            }
            let work = Arc::new(EnvWork { live: Mutex::new(Live::default()) });
            let arg = Arc::into_raw(work.clone()) as *mut std::ffi::c_void;
            // SAFETY: `raw` is the live environment of this call; the hook gets back the `Arc`
            // leaked into `arg` (exactly once: Node runs a registered hook once, at teardown).
            let status = unsafe { napi::sys::napi_add_env_cleanup_hook(raw, Some(env_teardown), arg) };
            if status != napi::sys::Status::napi_ok {
                // SAFETY: the hook was not registered, so `arg` is still the one `Arc` leaked above.
                drop(unsafe { Arc::from_raw(arg as *const EnvWork) });
                return None;
            }
            *slot = Some((raw as usize, work.clone()));
            Some(work)
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn reserve(&self) -> Option<u64> {
        let mut live = self.lock();
        if live.gone {
            return None;
        }
        live.next += 1;
        let id = live.next;
        live.tasks.insert(id, None);
        Some(id)
    }

    fn attach(&self, id: u64, abort: Abort) {
        if let Some(slot) = self.lock().tasks.get_mut(&id) {
            *slot = Some(abort);
        }
    }

    fn done(&self, id: u64) {
        self.lock().tasks.remove(&id);
    }
}

/// The environment's cleanup hook: abort everything it still has in flight.
unsafe extern "C" fn env_teardown(arg: *mut std::ffi::c_void) {
    // SAFETY: `arg` is the `Arc` leaked by `EnvWork::current`, handed back once.
    let work = unsafe { Arc::from_raw(arg as *const EnvWork) };
    let tasks = {
        let mut live = work.lock();
        live.gone = true;
        std::mem::take(&mut live.tasks)
    };
    let _ = ENV_WORK.try_with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.as_ref().is_some_and(|(_, w)| Arc::ptr_eq(w, &work)) {
            *slot = None;
        }
    });
    // Outside the lock: an abort runs the task's `on_done`, which calls `done`.
    for abort in tasks.into_values().flatten() {
        abort.abort();
    }
}
