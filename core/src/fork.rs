//! Fork safety: what each process must have its own of. `fork()` copies only the calling
//! thread, so in a forked child (Python's `os.fork`, a `multiprocessing` pool with the `fork`
//! start method, a preloading server such as gunicorn `--preload`) the scheduler's workers, the
//! short lane, the engine loader and any binding's bridge threads do not exist, and a lock one
//! of them held at the moment of the fork stays locked forever.
//!
//! [`generation`] counts the forks this process descends from (a `pthread_atfork` child
//! handler bumps it; it does nothing else, so it is async-signal-safe). A [`PerProcess`] value
//! is built lazily in each process generation: the first use in a forked child builds a fresh
//! one (new threads, new locks) and never touches the parent's — which is leaked, not dropped,
//! since dropping it would join threads that are gone and take locks that may be held.

use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

static GENERATION: AtomicU64 = AtomicU64::new(0);

#[cfg(unix)]
extern "C" fn after_fork_in_child() {
    GENERATION.fetch_add(1, Ordering::SeqCst);
}

/// The number of forks between the process that first used yieldtok and this one (0 there).
/// Registers the fork handler on first call.
pub fn generation() -> u64 {
    #[cfg(unix)]
    {
        static REGISTER: std::sync::Once = std::sync::Once::new();
        REGISTER.call_once(|| {
            // SAFETY: registers a handler that only increments an atomic. Failure (ENOMEM)
            // leaves forked children without fresh pools, as before this module existed.
            let rc = unsafe { libc::pthread_atfork(None, None, Some(after_fork_in_child)) };
            if rc != 0 {
                log::warn!("yieldtok: pthread_atfork failed ({rc}); a forked child may hang on its first pooled call");
            }
        });
    }
    GENERATION.load(Ordering::SeqCst)
}

struct Slot<T> {
    generation: u64,
    value: T,
}

/// A value of which each process generation has its own, built on first use there (see the
/// module docs). `get_or_init` costs one atomic load once built.
pub struct PerProcess<T> {
    current: AtomicPtr<Slot<T>>,
}

impl<T> Default for PerProcess<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> PerProcess<T> {
    pub const fn new() -> Self {
        PerProcess { current: AtomicPtr::new(std::ptr::null_mut()) }
    }

    /// This process's value, built by `init` on first use in this process. `init` gets the
    /// value of the process this one was forked from, if there was one: it may copy what is
    /// safe to share (immutable data, lock-free state) but must not take its locks or wait for
    /// its threads. Two threads of a child racing to build it both run `init`; one value wins
    /// and the other is dropped.
    pub fn get_or_init(&self, init: impl FnOnce(Option<&T>) -> T) -> &T {
        let generation = generation();
        let cur = self.current.load(Ordering::Acquire);
        // SAFETY: a published slot is freed only by `drop` (this process's own slot), so it
        // lives as long as `self`; slots of other generations are leaked.
        if let Some(slot) = unsafe { cur.as_ref() } {
            if slot.generation == generation {
                return &slot.value;
            }
        }
        // SAFETY: as above; a slot of another generation is never freed.
        let prev = unsafe { cur.as_ref() }.map(|s| &s.value);
        let new = Box::into_raw(Box::new(Slot { generation, value: init(prev) }));
        match self.current.compare_exchange(cur, new, Ordering::AcqRel, Ordering::Acquire) {
            // The previous slot (another process's) is leaked on purpose.
            // SAFETY: `new` is now published and is freed only by `drop`, which needs `&mut self`.
            Ok(_) => unsafe { &(*new).value },
            Err(winner) => {
                // SAFETY: `new` was never published; the winner is this generation's slot (a
                // slot of an older generation is only ever replaced by a newer one).
                drop(unsafe { Box::from_raw(new) });
                // SAFETY: `winner` is published, so it lives as long as `self` (see above).
                unsafe { &(*winner).value }
            }
        }
    }

    /// This process's value, if it was built here.
    pub fn get(&self) -> Option<&T> {
        // SAFETY: a published slot lives as long as `self` (see `get_or_init`).
        let slot = unsafe { self.current.load(Ordering::Acquire).as_ref() }?;
        (slot.generation == generation()).then_some(&slot.value)
    }
}

impl<T> Drop for PerProcess<T> {
    fn drop(&mut self) {
        let cur = *self.current.get_mut();
        // SAFETY: `&mut self`: no one else can read the slot now.
        if let Some(slot) = unsafe { cur.as_ref() } {
            if slot.generation == generation() {
                // SAFETY: this process's slot came from `Box::into_raw` and nothing else frees it.
                drop(unsafe { Box::from_raw(cur) });
            }
            // else: built by the process this one was forked from; its threads and locks are
            // not ours to join or take. Leaked.
        }
    }
}

// SAFETY: a `PerProcess<T>` hands out `&T` to every thread (like `OnceLock<T>`).
unsafe impl<T: Send + Sync> Sync for PerProcess<T> {}
// SAFETY: it owns its `T` (through the slot pointer), so moving it moves a `T`.
unsafe impl<T: Send> Send for PerProcess<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_once_per_generation() {
        let p: PerProcess<u32> = PerProcess::new();
        assert!(p.get().is_none());
        assert_eq!(*p.get_or_init(|prev| prev.map_or(1, |v| v + 1)), 1);
        assert_eq!(*p.get_or_init(|_| 99), 1);
        assert_eq!(p.get(), Some(&1));
    }

    /// A forked child builds its own value, seeing the parent's; the parent's stays.
    #[cfg(unix)]
    #[test]
    fn a_forked_child_builds_its_own() {
        static P: PerProcess<(u64, u32)> = PerProcess::new();
        let parent = *P.get_or_init(|_| (generation(), 7));
        // SAFETY: the child only runs lock-free code (atomics, this module) and `_exit`s.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            let ok =
                P.get().is_none() && *P.get_or_init(|prev| (generation(), prev.unwrap().1 + 1)) == (parent.0 + 1, 8);
            // SAFETY: `_exit` in the forked child ends it without running the parent's handlers.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) };
        }
        let mut status = 0;
        // SAFETY: `pid` is our child and `status` a valid out-pointer.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "child status {status}");
        assert_eq!(*P.get_or_init(|_| (0, 0)), parent);
    }
}
