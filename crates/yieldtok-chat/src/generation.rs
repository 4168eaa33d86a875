//! `{% generation %}` … `{% endgeneration %}` (transformers' AssistantTracker)
//! and the byte spans it marks in the output.
//!
//! minijinja has no custom tags, so before compiling, each tag is rewritten
//! to a filter block with the same whitespace control:
//! `{%- generation -%}` → `{%- filter __yieldtok_generation -%}` and
//! `{% endgeneration %}` → `{% endfilter %}` (tags inside `{% raw %}`,
//! comments and string literals are left alone). The filter returns its
//! body unchanged and records `start..start+len(body)` where `start` is the
//! number of bytes already written to the final output when the block
//! finishes — exactly transformers' `len("".join(rendered_blocks))` rule, so
//! spans agree with `return_assistant_tokens_mask` (in bytes instead of
//! characters), including its quirks for blocks inside macros or `{% set %}`
//! captures.

use minijinja::{Error, Value};

use super::render_state;
use super::scan::{self, TagKind};

/// Name of the internal filter that `{% generation %}` becomes.
pub const FILTER_NAME: &str = "__yieldtok_generation";

/// Edits turning `generation` / `endgeneration` tags into filter blocks.
pub fn generation_edits(src: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let mut edits = Vec::new();
    for tag in scan::tags(src) {
        if tag.kind != TagKind::Block {
            continue;
        }
        let inner = tag.inner(src);
        let name = inner.trim();
        let replacement = match name {
            "generation" => format!("filter {FILTER_NAME}"),
            "endgeneration" => "endfilter".to_string(),
            _ => continue,
        };
        let at = tag.inner_start + inner.find(name).expect("trimmed substring");
        edits.push((at..at + name.len(), replacement));
    }
    edits
}

/// Rewrites the generation tags of `source`; also says whether there were any.
#[cfg(test)]
pub fn rewrite_generation_tags(source: &str) -> (String, bool) {
    let edits = generation_edits(source);
    let found = !edits.is_empty();
    (scan::apply_edits(source, edits), found)
}

/// The filter behind `{% generation %}`: records the span, returns the body.
pub fn generation_filter(value: Value) -> Result<Value, Error> {
    let len = value.as_str().map(str::len).unwrap_or_else(|| value.to_string().len());
    render_state::with_current(|s| {
        let start = s.written.get();
        s.spans.borrow_mut().push(start..start + len);
    });
    Ok(value)
}

/// transformers' `assistant_masks` for one encoding: token `i` is 1 when its
/// `(start, end)` offsets overlap a generation span. `spans` and `offsets`
/// must use the same unit (bytes here: [`Rendered::generation_spans`] and
/// the `tokenizers` crate's offsets). Same single pass as transformers 5.x,
/// so a span cut by truncation keeps its remaining tokens.
///
/// [`Rendered::generation_spans`]: super::Rendered::generation_spans
pub fn assistant_mask(spans: &[std::ops::Range<usize>], offsets: &[(usize, usize)]) -> Vec<u32> {
    let mut mask = vec![0u32; offsets.len()];
    let mut span_idx = 0;
    for (i, &(start, end)) in offsets.iter().enumerate() {
        while span_idx < spans.len() && start >= spans[span_idx].end {
            span_idx += 1;
        }
        if span_idx == spans.len() {
            break;
        }
        if end > spans[span_idx].start {
            mask[i] = 1;
        }
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_tags() {
        let (s, f) = rewrite_generation_tags("a{%- generation -%}b{{ '{% generation %}' }}{% endgeneration +%}");
        assert!(f);
        assert_eq!(s, "a{%- filter __yieldtok_generation -%}b{{ '{% generation %}' }}{% endfilter +%}");
        let (s, f) = rewrite_generation_tags("{% raw %}{% generation %}{% endraw %}{# {% generation %} #}");
        assert!(!f);
        assert_eq!(s, "{% raw %}{% generation %}{% endraw %}{# {% generation %} #}");
        let (s, _) = rewrite_generation_tags("{% if x %}{%generation%}y{%endgeneration%}{% endif %}");
        assert_eq!(s, "{% if x %}{%filter __yieldtok_generation%}y{%endfilter%}{% endif %}");
    }

    #[test]
    fn mask_from_spans() {
        let offsets = [(0, 3), (3, 5), (5, 9), (9, 10), (10, 12), (12, 15)];
        assert_eq!(assistant_mask(&[4..9, 12..13], &offsets), vec![0, 1, 1, 0, 0, 1]);
        assert_eq!(assistant_mask(&[], &offsets), vec![0; 6]);
    }
}
