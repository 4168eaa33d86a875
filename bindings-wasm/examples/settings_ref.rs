//! Reference results of `tests/wasm/settings_cases.mjs` from the `tokenizers` crate itself
//! (host only; `encode` as the Python package runs it, see below): for each case, the
//! fixture's `tokenizers::Tokenizer` as loaded, with the case's
//! added tokens, truncation and padding set (absent: as `tokenizer.json` says; `null`: off),
//! encodes every input (a text or a `[text, pair]`) on its own and all of them as one batch.
//! Writes a list of `{"name", "singles": [Encoding | {"error"}], "batch": [ids] | {"error"},
//! "added": {token: id}}` (or `{"name", "set_error"}` when the truncation is refused), the `Encoding`s as `{"ids", "type_ids", "attention_mask",
//! "special_tokens_mask", "word_ids", "sequence_ids", "offsets"}` (offsets in bytes, each
//! sequence's into its own text; -1 for no word / sequence).
//!
//!   cargo run -p yieldtok-wasm --example settings_ref -- CASES.json OUT.json

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    if let Err(e) = run() {
        eprintln!("settings_ref: {e}");
        std::process::exit(1);
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn run() -> Result<(), Box<dyn std::error::Error>> {
    use serde_json::{json, Value};
    use yieldtok::{AddedToken, PaddingDirection, PaddingParams, PaddingStrategy, TruncationParams};

    std::panic::set_hook(Box::new(|_| {})); // panics of the oracle are recorded, not printed
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [cases, out] = &args[..] else { return Err("usage: settings_ref CASES.json OUT.json".into()) };
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(cases)?)?;
    let flag = |v: &Value, k: &str, d: bool| v[k].as_bool().unwrap_or(d);
    let num = |v: &Value, k: &str| v[k].as_u64().map(|n| n as usize);
    let mut results = Vec::new();
    for case in &cases {
        let name = case["fixture"].as_str().ok_or("case without fixture")?;
        let json = yieldtok_testkit::fixtures::dir(name)?.join("tokenizer.json");
        let mut tok = tokenizers::Tokenizer::from_file(&json).map_err(|e| format!("{}: {e}", json.display()))?;
        let mut added = serde_json::Map::new();
        for t in case["added"].as_array().into_iter().flatten() {
            let content = t["content"].as_str().ok_or("added token without content")?;
            let special = flag(t, "special", false);
            let token = AddedToken::from(content, special)
                .single_word(flag(t, "single_word", false))
                .lstrip(flag(t, "lstrip", false))
                .rstrip(flag(t, "rstrip", false))
                .normalized(flag(t, "normalized", !special));
            if special {
                tok.add_special_tokens([token]).map_err(|e| e.to_string())?;
            } else {
                tok.add_tokens([token]).map_err(|e| e.to_string())?;
            }
            added.insert(content.to_string(), json!(tok.token_to_id(content)));
        }
        match &case["truncation"] {
            Value::Null if case.get("truncation").is_some() => {
                tok.with_truncation(None).map_err(|e| e.to_string())?;
            }
            Value::Object(_) => {
                let t = &case["truncation"];
                let params = TruncationParams {
                    max_length: num(t, "max_length").ok_or("truncation without max_length")?,
                    stride: num(t, "stride").unwrap_or(0),
                    strategy: yieldtok::post::truncation_strategy(t["strategy"].as_str().unwrap_or("longest_first"))
                        .ok_or("bad strategy")?,
                    direction: yieldtok::post::truncation_direction(t["direction"].as_str().unwrap_or("right"))
                        .ok_or("bad direction")?,
                };
                // The crate refuses a stride its length cannot hold when it is set.
                if let Err(e) = tok.with_truncation(Some(params)) {
                    results.push(json!({ "name": case["name"], "set_error": e.to_string() }));
                    continue;
                }
            }
            _ => {}
        }
        match &case["padding"] {
            Value::Null if case.get("padding").is_some() => {
                tok.with_padding(None);
            }
            Value::Object(_) => {
                let p = &case["padding"];
                tok.with_padding(Some(PaddingParams {
                    strategy: num(p, "length").map_or(PaddingStrategy::BatchLongest, PaddingStrategy::Fixed),
                    direction: if p["direction"].as_str() == Some("left") {
                        PaddingDirection::Left
                    } else {
                        PaddingDirection::Right
                    },
                    pad_to_multiple_of: num(p, "pad_to_multiple_of"),
                    pad_id: num(p, "pad_id").unwrap_or(0) as u32,
                    pad_type_id: num(p, "pad_type_id").unwrap_or(0) as u32,
                    pad_token: p["pad_token"].as_str().unwrap_or("[PAD]").to_string(),
                }));
            }
            _ => {}
        }
        let add = flag(case, "add_special_tokens", true);
        let inputs: Vec<tokenizers_input::Input> =
            case["inputs"].as_array().ok_or("case without inputs")?.iter().map(tokenizers_input::Input::from).collect();
        let encoding = |e: &tokenizers::Encoding| {
            let opt = |v: Option<usize>| v.map_or(-1, |v| v as i64);
            json!({
                "ids": e.get_ids(),
                "type_ids": e.get_type_ids(),
                "attention_mask": e.get_attention_mask(),
                "special_tokens_mask": e.get_special_tokens_mask(),
                "word_ids": e.get_word_ids().iter().map(|w| opt(w.map(|w| w as usize))).collect::<Vec<_>>(),
                "sequence_ids": e.get_sequence_ids().into_iter().map(opt).collect::<Vec<_>>(),
                "offsets": e.get_offsets(),
            })
        };
        let error = |e: &dyn std::fmt::Display| json!({ "error": e.to_string() });
        // The crate panics on some settings it accepted (a stride its length cannot hold once
        // the special tokens are taken off): an error of the case, as the binding's must be.
        let caught =
            |f: &dyn Fn() -> tokenizers::Result<Value>| match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            {
                Ok(Ok(v)) => v,
                Ok(Err(e)) => error(&e),
                Err(_) => json!({ "error": "panic" }),
            };
        // `tokenizers`' `encode` as its Python package 0.23.3 runs it: each sequence encoded
        // whole, then `post_process` (truncate, post-processor, pad). The crate 0.23.2's own
        // `encode` takes an early-exit path under truncation (`tokenize_with_limit`) that the
        // Python package does not: it numbers a left-truncated text's words afresh and skips
        // the stride check of a single text. `raw` is `encode_single_sequence` (private): no
        // post-processor, no truncation, no padding.
        let mut raw = tok.clone();
        raw.with_post_processor(None::<tokenizers::PostProcessorWrapper>);
        raw.with_truncation(None).map_err(|e| e.to_string())?;
        raw.with_padding(None);
        let encode = |i: &tokenizers_input::Input| -> tokenizers::Result<tokenizers::Encoding> {
            let (a, b) = match i {
                tokenizers_input::Input::Single(a) => (a, None),
                tokenizers_input::Input::Pair(a, b) => (a, Some(b)),
            };
            let a = raw.encode(a.as_str(), false)?;
            let b = b
                .map(|b| -> tokenizers::Result<_> {
                    let mut e = raw.encode(b.as_str(), false)?;
                    e.set_type_ids(vec![1; e.len()]);
                    Ok(e)
                })
                .transpose()?;
            tok.post_process(a, b, add)
        };
        let singles: Vec<Value> = inputs.iter().map(|i| caught(&|| encode(i).map(|e| encoding(&e)))).collect();
        let batch = caught(&|| {
            let mut b = inputs.iter().map(encode).collect::<tokenizers::Result<Vec<_>>>()?;
            if let Some(params) = tok.get_padding() {
                tokenizers::utils::padding::pad_encodings(&mut b, params)?;
            }
            Ok(json!(b.iter().map(|e| e.get_ids().to_vec()).collect::<Vec<_>>()))
        });
        results.push(json!({ "name": case["name"], "singles": singles, "batch": batch, "added": added }));
    }
    std::fs::write(out, serde_json::to_string(&results)?)?;
    eprintln!("settings_ref: {out} ({} cases)", results.len());
    Ok(())
}

/// A case's input: a text or a `[text, pair]`.
#[cfg(not(target_arch = "wasm32"))]
mod tokenizers_input {
    pub enum Input {
        Single(String),
        Pair(String, String),
    }

    impl From<&serde_json::Value> for Input {
        fn from(v: &serde_json::Value) -> Self {
            match v {
                serde_json::Value::Array(p) => {
                    let s = |i: usize| p.get(i).and_then(|x| x.as_str()).unwrap_or_default().to_string();
                    Input::Pair(s(0), s(1))
                }
                other => Input::Single(other.as_str().unwrap_or_default().to_string()),
            }
        }
    }
}
