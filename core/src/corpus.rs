//! Texts for the demo, the benchmarks and the cross-language conformance vectors: real
//! conversations stitched from tau-bench transcripts when `shared/data` is reachable
//! (`$YIELDTOK_DATA`, or `../shared/data` beside the repository), and a built-in generator of
//! varied text (prose in many scripts, code, JSON, emoji sequences, odd whitespace) otherwise,
//! so that nothing here depends on that folder existing.

use std::path::PathBuf;

/// Short prose in many scripts (also used by the tests' corpus).
pub const PROSE: &[&str] = &[
    "The quick brown fox jumps over the lazy dog. It's 3:45pm; we'll see what they've done!",
    "東京は日本の首都であり、世界で最も人口の多い都市圏の一つです。",
    "北京是中华人民共和国的首都，也是全国的政治、文化中心。",
    "서울은 대한민국의 수도이며 가장 큰 도시입니다.",
    "Москва — столица России, город федерального значения.",
    "القاهرة هي عاصمة جمهورية مصر العربية وأكبر مدنها.",
    "नई दिल्ली भारत की राजधानी है और यह दिल्ली में स्थित है।",
    "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย",
    "Ça va? Où est la bibliothèque? Ünïcödé façade naïve coöperate.",
    "Your flight UA 1234 from SFO to JFK departs at 08:15 on 2024-05-17; gate B22.",
];

const CODE: &str = "fn main() {\n    let xs: Vec<u32> = (0..10).map(|x| x * x).collect();\n    // print them\n    println!(\"{xs:?}\");\n}\n\ndef f(a, b=2):\n\treturn {'a': a, \"b\": b}\n";

const ODD: &[&str] = &[
    "👩‍👩‍👧‍👦 👍🏽 🇯🇵 ❤️ 1️⃣", "e\u{301}\u{302} a\u{308}\u{304}", "Ⅻ ０１２３", "nbsp\u{a0}x\u{3000}y\u{2028}z",
    "  \t \n\n\n   \r\n\r\n", "                ", "{\"k\": [1, 2.5e-07, null, \"s\\n\"]}", "> </b>\n//x\n/p",
];

/// Where the shared data folder is, if reachable.
pub fn data_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("YIELDTOK_DATA").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(d));
    }
    let roots = [std::env::current_dir().ok(), Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")))];
    roots
        .into_iter()
        .flatten()
        .filter_map(|r| crate::fixtures::repo_root_from(&r))
        .map(|root| root.join("..").join("shared").join("data"))
        .find(|d| d.join("tau-airline-conversations.jsonl").is_file())
}

/// The text of the real conversations (message contents and tool-call arguments, in order),
/// or `None` without the data folder.
pub fn real_text() -> Option<String> {
    let data = std::fs::read_to_string(data_dir()?.join("tau-airline-conversations.jsonl")).ok()?;
    let mut out = String::new();
    for line in data.lines() {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        for m in v["messages"].as_array()? {
            if let Some(c) = m["content"].as_str() {
                out.push_str(c);
                out.push_str("\n\n");
            }
            for call in m["tool_calls"].as_array().into_iter().flatten() {
                if let Some(a) = call["function"]["arguments"].as_str() {
                    out.push_str(a);
                    out.push('\n');
                }
            }
        }
    }
    Some(out)
}

/// Built-in varied text of about `bytes` bytes (deterministic for a given seed).
pub fn generated(bytes: usize, seed: u64) -> String {
    let mut x = seed | 1;
    let mut next = move |n: usize| {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        (x.wrapping_mul(0x2545F4914F6CDD1D) % n as u64) as usize
    };
    let mut s = String::with_capacity(bytes + 256);
    while s.len() < bytes {
        match next(10) {
            0..=5 => s.push_str(PROSE[next(PROSE.len())]),
            6 => s.push_str(CODE),
            7 => s.push_str(ODD[next(ODD.len())]),
            _ => s.push_str(&format!("Item {} costs ${}.{:02}, ref #{:x}.", next(1000), next(500), next(100), next(1 << 20))),
        }
        s.push_str(["\n", " ", "\n\n", "  "][next(4)]);
    }
    s
}

/// A document of about `bytes` bytes: real conversations repeated when available, else
/// generated text.
pub fn document(bytes: usize) -> String {
    let base = real_text().unwrap_or_else(|| generated(bytes.min(1 << 20), 42));
    let mut s = String::with_capacity(bytes + base.len());
    while s.len() < bytes {
        s.push_str(&base);
    }
    let mut end = bytes.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.truncate(end);
    s
}

/// A document of about `tokens` tokens for `tok` (grown until the count is reached).
pub fn document_tokens(tok: &crate::Tokenizer, tokens: usize) -> crate::Result<String> {
    let mut bytes = tokens * 4;
    loop {
        let doc = document(bytes);
        let n = tok.count(&doc, false)?;
        if n >= tokens || bytes > 1 << 30 {
            return Ok(doc);
        }
        bytes = bytes * tokens / n.max(1) + 1024;
    }
}

/// About `bytes` of text of roughly `size` bytes each, as separate texts (for batches).
pub fn texts(count: usize, min_bytes: usize, max_bytes: usize) -> Vec<String> {
    let doc = document(count * max_bytes + 1);
    let mut out = Vec::with_capacity(count);
    let mut at = 0;
    let mut x = 7u64;
    for _ in 0..count {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let len = min_bytes + (x >> 33) as usize % (max_bytes - min_bytes + 1);
        let mut end = (at + len).min(doc.len());
        while !doc.is_char_boundary(end) {
            end -= 1;
        }
        out.push(doc[at..end].to_string());
        at = if end >= doc.len() { 0 } else { end };
    }
    out
}

/// Named texts for the cross-language conformance vectors: each ecosystem's binding must give
/// the same results on them. Includes the tokenizer's own special tokens embedded in text.
pub fn conformance_texts(tok: &crate::Tokenizer) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = vec![
        ("empty".into(), String::new()),
        ("one char".into(), "a".into()),
        ("hello".into(), "Hello, world!".into()),
    ];
    for (i, p) in PROSE.iter().enumerate() {
        v.push((format!("prose {i}"), p.to_string()));
    }
    v.push(("code".into(), CODE.into()));
    for (i, p) in ODD.iter().enumerate() {
        v.push((format!("odd {i}"), p.to_string()));
    }
    let mut added: Vec<_> = tok.hf().get_added_tokens_decoder().into_iter().collect();
    added.sort_by_key(|(id, _)| *id);
    let specials: Vec<String> = added.into_iter().map(|(_, t)| t.content).take(4).collect();
    if !specials.is_empty() {
        let s: String = specials.iter().map(|t| format!("{t}Hi there {t}\n{t} x")).collect();
        v.push(("special tokens".into(), s));
    }
    v.push(("generated 8k".into(), generated(8 * 1024, 5)));
    v.push(("document 100k".into(), document(100 * 1024)));
    v
}
