//! `yieldtok conformance --out DIR`: writes the cross-language conformance vectors,
//! `DIR/<fixture>.json` = `[{name, text, add_special_tokens, ids, offsets, char_offsets}]`, from
//! `tokenizers`' whole-text encode (the reference), after checking that yieldtok's own encode
//! (sync, chunked at tiny pieces, async) gives the same. The Python, Node and wasm test suites
//! check their binding against these files.
//!
//! `DIR/decode_stream/<fixture>.json` = `[{ids, chunk, skip_special_tokens, steps}]`: the ids of
//! each conformance text (with special tokens; at most [`STREAM_IDS`]) stepped through
//! `tokenizers`' own stream state machine (`step_decode_stream`) `chunk` ids at a time, `steps[i]`
//! being what step `i` returned (a string or null) — or `{"error": message}`, after which the
//! stream stops. The Node and wasm `DecodeStream` tests replay them.

use std::path::Path;

use serde_json::json;
use yieldtok::encoding::byte_to_char_offsets;
use yieldtok::{EncodeOptions, Tokenizer};

pub fn run(out: &Path, names: &[String]) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    for name in names {
        let tok = crate::fixture(name)?;
        let cases = vectors(&tok).map_err(|e| format!("{name}: {e}"))?;
        let path = out.join(format!("{name}.json"));
        let n = cases.len();
        std::fs::write(&path, serde_json::to_vec(&cases).map_err(|e| e.to_string())?)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        println!("{}: {n} vectors", path.display());
        let streams = stream_vectors(&tok);
        let dir = out.join("decode_stream");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, serde_json::to_vec(&streams).map_err(|e| e.to_string())?)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        println!("{}: {} streams", path.display(), streams.len());
    }
    Ok(())
}

/// Ids per text in the stream vectors (enough to cross every kind of token boundary).
const STREAM_IDS: usize = 300;

fn stream_vectors(tok: &Tokenizer) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for (_, text) in yieldtok_testkit::corpus::conformance_texts(&crate::added_tokens(tok)) {
        let Ok(enc) = tok.hf().encode(text.as_str(), true) else { continue };
        let ids = &enc.get_ids()[..enc.get_ids().len().min(STREAM_IDS)];
        for (chunk, skip) in [(1, false), (1, true), (3, false)] {
            let (mut state, mut prefix, mut prefix_index) = (Vec::new(), String::new(), 0);
            let mut steps = Vec::new();
            for c in ids.chunks(chunk) {
                match tokenizers::tokenizer::step_decode_stream(
                    tok.hf(),
                    c.to_vec(),
                    skip,
                    &mut state,
                    &mut prefix,
                    &mut prefix_index,
                ) {
                    Ok(s) => steps.push(json!(s)),
                    Err(e) => {
                        steps.push(json!({ "error": e.to_string() }));
                        break;
                    }
                }
            }
            out.push(json!({ "ids": ids, "chunk": chunk, "skip_special_tokens": skip, "steps": steps }));
        }
    }
    out
}

fn vectors(tok: &Tokenizer) -> Result<Vec<serde_json::Value>, String> {
    let mut cases = Vec::new();
    for (name, text) in yieldtok_testkit::corpus::conformance_texts(&crate::added_tokens(tok)) {
        for add in [false, true] {
            let r = tok.hf().encode(text.as_str(), add).map_err(|e| e.to_string())?;
            let ours = tok.encode(&text, add).map_err(|e| e.to_string())?;
            let job = tok.job(
                text.as_str(),
                EncodeOptions { add_special_tokens: add, piece_bytes: Some(16), ..Default::default() },
            );
            job.step(yieldtok::Budget::UNLIMITED);
            let tiny = job.finish().map_err(|e| e.to_string())?.into_encoding().unwrap();
            for (what, e) in [("encode", &ours), ("16-byte pieces", &tiny)] {
                if e.ids != r.get_ids() || e.offsets != r.get_offsets() {
                    return Err(format!("{what} differs from tokenizers on {name:?} (add_special_tokens={add})"));
                }
            }
            cases.push(json!({
                "name": name,
                "text": text,
                "add_special_tokens": add,
                "ids": r.get_ids(),
                "offsets": r.get_offsets(),
                "char_offsets": byte_to_char_offsets(&text, r.get_offsets()),
            }));
        }
    }
    Ok(cases)
}
