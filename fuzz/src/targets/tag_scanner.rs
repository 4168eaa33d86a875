//! The tag scanner behind the source rewrites (`{% generation %}`, guarded `{% set %}`) finds
//! the same `{% %}` / `{{ }}` tags, with the same inner ranges, as minijinja's own lexer, on
//! every source the lexer accepts (the lexer skips `{% raw %}` bodies whole, so the scanner's
//! `raw`/`endraw` tags are left out of the comparison).
use minijinja::machinery::{tokenize, Token};
use minijinja::syntax::SyntaxConfig;
use yieldtok_chat::scan::{self, TagKind};

/// One input: panics (fails the fuzz run) when the property does not hold.
pub fn check(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let mut lexed = Vec::new();
    let mut open = None;
    for token in tokenize(src, false, SyntaxConfig::default()) {
        let Ok((token, span)) = token else { return };
        match token {
            Token::BlockStart => open = Some((TagKind::Block, span.end_offset as usize)),
            Token::VariableStart => open = Some((TagKind::Expr, span.end_offset as usize)),
            Token::BlockEnd | Token::VariableEnd => {
                let (kind, start) = open.take().expect("an end token closes a start token");
                lexed.push((kind, start, span.start_offset as usize));
            }
            _ => {}
        }
    }
    if open.is_some() {
        return; // unterminated: the compiler reports it
    }
    let mut ours = Vec::new();
    let mut tags = scan::tags(src).into_iter();
    while let Some(t) = tags.next() {
        if t.kind == TagKind::Block && t.inner(src).trim_ascii() == "raw" {
            tags.next(); // its endraw
            continue;
        }
        ours.push((t.kind, t.inner_start, t.inner_end));
    }
    assert_eq!(ours, lexed, "source {src:?}");
}
