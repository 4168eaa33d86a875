//! One binding-owned helper thread for the work that must leave the JS thread but is not a
//! piece of an encode: assembling a long job's result (the core assembles in the consumer's
//! `poll`, so that its scheduler workers stay free for pieces), converting and flattening long
//! results. Started on first use.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock};

type Job = Box<dyn FnOnce() + Send>;

fn sender() -> Option<Sender<Job>> {
    static TX: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();
    TX.get_or_init(|| {
        let (tx, rx) = channel::<Job>();
        std::thread::Builder::new()
            .name("yieldtok-node-helper".into())
            .spawn(move || {
                for job in rx {
                    let _ = catch_unwind(AssertUnwindSafe(job));
                }
            })
            .ok()
            .map(|_| Mutex::new(tx))
    })
    .as_ref()
    .map(|m| m.lock().unwrap_or_else(|e| e.into_inner()).clone())
}

/// Run `f` on the helper thread (or right here if that thread could not be started).
pub fn run(f: impl FnOnce() + Send + 'static) {
    let job: Job = Box::new(f);
    match sender() {
        Some(tx) => {
            if let Err(e) = tx.send(job) {
                (e.0)()
            }
        }
        None => job(),
    }
}
