//! Shared helpers of the core's integration tests: fixture loading, the varied corpus, a tiny
//! `block_on`, and the whole-vs-chunked comparison.
#![allow(dead_code)]

#[allow(unused_imports)]
pub use yieldtok::block_on;
use yieldtok::{Encoding, Tokenizer};

pub fn fixture(name: &str) -> Tokenizer {
    yieldtok::fixtures::load(name).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// A small deterministic PRNG (xorshift64*), so the corpus is the same on every run.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

pub use yieldtok::corpus::PROSE as MULTILINGUAL;

pub const TROUBLE: &[&str] = &[
    "👩‍👩‍👧‍👦", "👍🏽", "🇯🇵🇫🇷", "❤️", "1️⃣", "🧑🏿‍🚀", "☺︎", "e\u{301}", "a\u{308}\u{304}\u{323}",
    "ḁ̴̛̗̲̈́", "Ⅻ", "ⅷ", "０１２３", "１２", "\u{a0}", "\u{3000}", "\u{2028}", "\u{85}", "\u{b}", "\u{c}",
    "\u{200b}", "\u{feff}", "▁", "▁▁", " ", "  ", "   ", "\t", "\t\t", "\n", "\n\n", "\n\n\n", "\r\n", "\r\n\r\n",
    " \n", "\n ", "  \n\n  ", "> </", "//", "\n//", "\n/", "'s", "'LL", "123456789", "3.14", "-1e-07",
    "{", "}", "\"", "<", ">", "</s>", "<s>", "x", "ab", "\u{0}", "\u{1f}",
];

pub const CODE: &str = include_str!("../../src/split/plan.rs");

pub fn json_text() -> String {
    let mut s = String::from("[");
    for i in 0..40 {
        s.push_str(&format!(
            "{{\"id\": {i}, \"name\": \"user_{i}\", \"tags\": [\"a\", \"b c\"], \"score\": {}.5, \"note\": \"line\\nbreak \\u00e9\", \"nested\": {{\"x\": null, \"y\": [1, 2, 3]}}}},\n",
            i * 37
        ));
    }
    s.push_str("{}]\n");
    s
}

/// The special/added tokens of a tokenizer (a few), to embed in text.
pub fn added_tokens(tok: &Tokenizer, n: usize) -> Vec<String> {
    let mut v: Vec<_> = tok.hf().get_added_tokens_decoder().into_iter().collect();
    v.sort_by_key(|(id, _)| *id);
    v.into_iter().map(|(_, t)| t.content).take(n).collect()
}

/// A mixed document of about `bytes` bytes.
pub fn mixed(tok: &Tokenizer, seed: u64, bytes: usize) -> String {
    let mut rng = Rng(seed | 1);
    let specials = added_tokens(tok, 8);
    let json = json_text();
    let code_lines: Vec<&str> = CODE.lines().collect();
    let mut s = String::new();
    while s.len() < bytes {
        match rng.below(10) {
            0..=2 => {
                s.push_str(rng.pick(MULTILINGUAL));
                s.push_str(rng.pick(&[" ", "\n", "  ", "\n\n", "", "\r\n"]));
            }
            3 | 4 => {
                for _ in 0..rng.below(8) + 1 {
                    s.push_str(rng.pick(TROUBLE));
                    if rng.below(3) == 0 {
                        s.push_str(rng.pick(MULTILINGUAL).split(' ').next().unwrap());
                    }
                }
            }
            5 => {
                let start = rng.below(code_lines.len());
                for l in code_lines.iter().skip(start).take(rng.below(12) + 1) {
                    s.push_str(l);
                    s.push('\n');
                }
            }
            6 => {
                let start = rng.below(json.len() / 2);
                let start = (start..json.len()).find(|&i| json.is_char_boundary(i)).unwrap();
                let end = (start + rng.below(400)).min(json.len());
                let end = (end..=json.len()).find(|&i| json.is_char_boundary(i)).unwrap();
                s.push_str(&json[start..end]);
            }
            7 if !specials.is_empty() => {
                s.push_str(rng.pick(&["", " ", "\n"]));
                s.push_str(&specials[rng.below(specials.len())]);
                s.push_str(rng.pick(&["", " ", "\n", "x"]));
            }
            _ => s.push_str(" word another-word, punctuation! (parens) [brackets] 42 "),
        }
    }
    s
}

/// The named corpus for exactness tests.
pub fn corpus(tok: &Tokenizer) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = vec![
        ("empty".into(), String::new()),
        ("one char".into(), "a".into()),
        ("one space".into(), " ".into()),
        ("one newline".into(), "\n".into()),
        ("multilingual".into(), MULTILINGUAL.join(" ").repeat(20)),
        ("code".into(), CODE.to_string()),
        ("json".into(), json_text()),
        ("trouble".into(), TROUBLE.join("").repeat(10)),
        ("trouble spaced".into(), TROUBLE.join(" ").repeat(10)),
        ("whitespace runs".into(), "a  b   c\t\td\n\n\ne \r\n\r\n f      \n  \t \n g".repeat(50)),
        ("spaces only".into(), " ".repeat(3000)),
        ("newlines only".into(), "\n".repeat(200)),
    ];
    let specials = added_tokens(tok, 6);
    if !specials.is_empty() {
        let mut s = String::new();
        for (i, sp) in specials.iter().enumerate() {
            s.push_str(&format!("{sp}hello {sp} world\n{sp}\n {sp}{sp}x{i} "));
        }
        v.push(("specials".into(), s.repeat(5)));
    }
    if let Some(mut real) = yieldtok::corpus::real_text() {
        let mut end = real.len().min(200_000);
        while !real.is_char_boundary(end) {
            end -= 1;
        }
        real.truncate(end);
        v.push(("tau conversations".into(), real));
    }
    v.push(("mixed 64k".into(), mixed(tok, 7, 64 * 1024)));
    v
}

/// Whole-text reference encode through `tokenizers` itself.
pub fn reference(tok: &Tokenizer, text: &str, add_special: bool) -> Encoding {
    Encoding::from(tok.hf().encode(text, add_special).expect("reference encode"))
}

/// Assert equality with a useful message (first differing token and its context).
pub fn assert_same(what: &str, text: &str, got: &Encoding, want: &Encoding) {
    if got == want {
        return;
    }
    let at = got.ids.iter().zip(&want.ids).zip(got.offsets.iter().zip(&want.offsets)).position(|(a, b)| a.0 != a.1 || b.0 != b.1);
    let at = at.unwrap_or(got.len().min(want.len()));
    let ctx = |e: &Encoding| -> String {
        let lo = at.saturating_sub(3);
        let hi = (at + 3).min(e.len());
        (lo..hi).map(|i| format!("{}@{:?}", e.ids[i], e.offsets[i])).collect::<Vec<_>>().join(" ")
    };
    let byte = want.offsets.get(at).map(|o| o.0).unwrap_or(0).min(text.len());
    let lo = (byte.saturating_sub(30)..=byte).find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    let hi = ((byte + 30).min(text.len())..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
    panic!(
        "{what}: differs at token {at} (len {} vs {}); got [{}] want [{}]; text around: {:?}",
        got.len(),
        want.len(),
        ctx(got),
        ctx(want),
        &text[lo..hi]
    );
}
