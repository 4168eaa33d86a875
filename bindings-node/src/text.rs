//! Text arguments. A short string is read as UTF-8 on the JS thread. A long one is not: reading
//! it as UTF-8 costs the JS thread a scan for the UTF-8 length plus a transcoding copy — about
//! 1 ms for a 160k-token document, so four long requests started together held the event loop
//! for ~4 ms, measured — while V8 knows its UTF-16 length and copies it out as UTF-16 with a
//! plain widening. The UTF-8 text is then made by a task on the core's pool. Lone surrogates
//! become U+FFFD either way, as napi's UTF-8 read does.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::{JsString, JsValue};

/// Strings of at least this many UTF-16 code units are read as UTF-16 (see the module docs).
pub const LONG_TEXT_UNITS: usize = 32 * 1024;

/// A text argument, read.
pub enum Text {
    Utf8(Arc<str>),
    /// A long text's UTF-16 code units, not yet transcoded.
    Utf16(Vec<u16>),
}

impl Text {
    pub fn read(s: JsString) -> Result<Text> {
        let units = s.utf16_len()?;
        if units < LONG_TEXT_UNITS {
            return Ok(Text::Utf8(Arc::from(s.into_utf8()?.as_str()?)));
        }
        let mut buf = vec![0u16; units + 1];
        let mut written = 0usize;
        let v = s.value();
        // SAFETY: `buf` has room for `units` code units and the terminating NUL napi writes.
        check_status!(unsafe {
            napi::sys::napi_get_value_string_utf16(v.env, v.value, buf.as_mut_ptr(), buf.len(), &mut written)
        })?;
        buf.truncate(written);
        Ok(Text::Utf16(buf))
    }

    /// Whether the text is long (its result is finished off the worker that completes it).
    pub fn is_long(&self) -> bool {
        match self {
            Text::Utf8(t) => t.len() >= crate::HEAVY_BYTES,
            Text::Utf16(_) => true,
        }
    }

    /// The text as UTF-8: at once, or transcoded by a task on the core's pool.
    pub async fn utf8(self) -> yieldtok::Result<Arc<str>> {
        match self {
            Text::Utf8(t) => Ok(t),
            Text::Utf16(units) => yieldtok::spawn(move || Ok(Arc::from(String::from_utf16_lossy(&units)))).await,
        }
    }
}
