//! `yieldtok conformance --out DIR`: writes the cross-language conformance vectors,
//! `DIR/<fixture>.json` = `[{name, text, add_special_tokens, ids, offsets, char_offsets}]`, from
//! `tokenizers`' whole-text encode (the reference), after checking that yieldtok's own encode
//! (sync, chunked at tiny pieces, async) gives the same. The Python, Node and wasm test suites
//! check their binding against these files.

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
    }
    Ok(())
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
