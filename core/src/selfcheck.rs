//! The load-time self-check: a built-in sample full of the inputs that break naive chunking
//! (whitespace runs, CRLF, digits, combining marks, emoji sequences, CJK, code, the
//! tokenizer's own added tokens next to spaces and newlines) is encoded whole and cut at
//! *every* candidate the rules allow; any difference in ids or offsets disables cutting for the
//! tokenizer. Cheap insurance behind the proven rules, run once per load (a few ms). A module
//! above both `split` (the rules) and `pipeline` (which encodes the pieces it checks), so that
//! `split` never imports the pipeline.

use crate::split::{Planner, ZoneCursor};

/// Text fragments the sample is made of.
const FRAGMENTS: &[&str] = &[
    "Hello world, this is a test. ",
    "  two  spaces   three    four\t\ttabs \t mixed\n",
    "line one\nline two\r\nline three\r\n\r\n\n\n   indented\n\tTabbed\n",
    "numbers 1234567 89 3.14159 1,000,000 ١٢٣ ０１２３ Ⅻ ⅷ\n",
    "café naïve résumé e\u{301}\u{302}\u{303} a\u{308}\u{304} ḁ̴̛̗̲ ",
    "emoji 👩‍👩‍👧‍👦 👍🏽 🇯🇵 ❤️ ☺︎ 1️⃣ ",
    "日本語のテキスト、中文文本。한국어 텍스트 Русский текст العربية हिन्दी ภาษาไทย\n",
    "fn main() {\n    let x = vec![1, 2, 3];\n    // comment\n    println!(\"{x:?}\");\n}\n",
    "{\"key\": \"value\", \"list\": [1, 2, {\"nested\": null}], \"url\": \"http://a/b//c\"}\n//comment\n/path\n",
    "don't won't I'm we'll they've SHE'S it'd ",
    "a > </b> <tag> x </tag>\n> quote\n>> nested\n",
    "nbsp\u{a0}here\u{3000}ideo\u{2028}ls\u{85}nel\u{b}vt\u{c}ff\u{200b}zwsp ",
    "▁literal▁marker ▁ ▁▁ ",
    "                                                 long run of spaces\n",
    "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\nnewline run\n",
    "x",
];

/// Build the sample for a tokenizer, with up to 12 of its added tokens woven in.
pub(crate) fn sample(tok: &tokenizers::Tokenizer) -> String {
    let mut added: Vec<_> = tok.get_added_tokens_decoder().into_iter().collect();
    added.sort_by_key(|(id, _)| *id);
    let added: Vec<String> = added.into_iter().map(|(_, t)| t.content).filter(|c| !c.is_empty()).take(12).collect();
    let mut s = String::new();
    for (i, f) in FRAGMENTS.iter().enumerate() {
        s.push_str(f);
        if !added.is_empty() {
            let a = &added[i % added.len()];
            match i % 4 {
                0 => {
                    s.push_str(a);
                    s.push(' ');
                }
                1 => {
                    s.push(' ');
                    s.push_str(a);
                    s.push('\n');
                }
                2 => {
                    s.push_str(a);
                    s.push_str(a);
                    s.push_str("word");
                }
                _ => {
                    s.push('\n');
                    s.push_str(a);
                    s.push_str("\nnext ");
                }
            }
        }
    }
    s
}

/// Encode `text` whole and cut at every candidate; `Err(description)` on the first difference.
pub(crate) fn self_check(tok: &tokenizers::Tokenizer, planner: &Planner, text: &str) -> Result<usize, String> {
    let whole = tok.encode(text, false).map_err(|e| format!("whole encode failed: {e}"))?;
    let mut pieces = Vec::new();
    let mut cur = ZoneCursor::default();
    let mut start = 0;
    while start < text.len() {
        let crate::split::Next { end, mode, joins_word } = planner.next(text, start, 1, &mut cur);
        let enc = crate::pipeline::encode_piece(tok, planner.rules.continuation.as_ref(), text, start..end, mode, true)
            .map_err(|e| format!("piece encode failed: {e}"))?;
        pieces.push(crate::pipeline::RefPiece { joins_word, ..enc });
        start = end;
    }
    let cuts = pieces.len().saturating_sub(1);
    let chunked = crate::pipeline::assemble(tok, &Default::default(), pieces, false).map_err(|e| e.to_string())?;
    if chunked.ids != whole.get_ids() {
        let at = chunked
            .ids
            .iter()
            .zip(whole.get_ids())
            .position(|(a, b)| a != b)
            .unwrap_or(chunked.ids.len().min(whole.len()));
        return Err(format!("ids differ from the whole encode at token {at} of the self-check sample"));
    }
    if chunked.offsets != whole.get_offsets() {
        return Err("offsets differ from the whole encode on the self-check sample".into());
    }
    if chunked.word_ids != whole.get_word_ids() {
        return Err("word ids differ from the whole encode on the self-check sample".into());
    }
    Ok(cuts)
}
