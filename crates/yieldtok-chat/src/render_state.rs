//! Per-render state shared by the output sink and the template's global
//! functions and filters (which minijinja gives no handle to the caller's
//! data): bytes written so far (for `{% generation %}` spans), the spans,
//! the clock for `strftime_now`, the message of `raise_exception`, and the
//! output size limit. Installed in a thread-local for the duration of one
//! render (rendering is synchronous and never leaves the calling thread).

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::io;
use std::ops::Range;
use std::rc::Rc;

use super::strftime::Clock;

pub(crate) struct RenderState {
    pub written: Cell<usize>,
    pub spans: RefCell<Vec<Range<usize>>>,
    pub clock: Clock,
    pub raised: RefCell<Option<String>>,
    pub max_output: usize,
    pub output_too_large: Cell<bool>,
    /// Addresses of the input containers (messages, tools, documents and
    /// their items): immutable and at most `MAX_INPUT_DEPTH` deep, so the
    /// `{% set %}` guard does not walk into them.
    pub known_shallow: HashSet<usize>,
}

thread_local! {
    static CURRENT: RefCell<Option<Rc<RenderState>>> = const { RefCell::new(None) };
}

/// Makes `state` the current render state until the guard is dropped.
pub(crate) struct Installed {
    prev: Option<Rc<RenderState>>,
}

impl Installed {
    pub fn new(state: Rc<RenderState>) -> Installed {
        let prev = CURRENT.with(|c| c.replace(Some(state)));
        Installed { prev }
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        let prev = self.prev.take();
        CURRENT.with(|c| *c.borrow_mut() = prev);
    }
}

/// Runs `f` with the current render state, if a render is running.
pub(crate) fn with_current<R>(f: impl FnOnce(&RenderState) -> R) -> Option<R> {
    CURRENT.with(|c| c.borrow().as_deref().map(f))
}

/// The output limit of the running render (unlimited outside a render).
pub(crate) fn max_output_bytes() -> usize {
    with_current(|s| s.max_output).unwrap_or(usize::MAX)
}

/// The running render's state.
pub(crate) fn current() -> Option<Rc<RenderState>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Records that a value or the output outgrew the size limit.
pub(crate) fn note_output_too_large() {
    with_current(|s| s.output_too_large.set(true));
}

/// The final output: counts bytes for the generation spans and enforces
/// the output size limit.
pub(crate) struct Sink {
    pub buf: Vec<u8>,
    pub state: Rc<RenderState>,
}

impl io::Write for Sink {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.buf.len() + data.len() > self.state.max_output {
            self.state.output_too_large.set(true);
            return Err(io::Error::other("output size limit exceeded"));
        }
        self.buf.extend_from_slice(data);
        self.state.written.set(self.buf.len());
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
