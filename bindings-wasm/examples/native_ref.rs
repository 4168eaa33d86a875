//! Native reference vectors for the wasm tests (host only): encode each case of a cases file
//! with the native core and write `<out>/<fixture>.json` in the format of the core's
//! `conformance` vectors: a list of {"name", "text", "add_special_tokens", "ids", "offsets"
//! (bytes), "char_offsets"}. Cases with `"ids_only": true` get ids only.
//!
//!   cargo run -p yieldtok-wasm --release --example native_ref -- CASES.json OUT_DIR [FIXTURE...]

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    if let Err(e) = run() {
        eprintln!("native_ref: {e}");
        std::process::exit(1);
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn run() -> Result<(), Box<dyn std::error::Error>> {
    use serde_json::{json, Value};
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        return Err("usage: native_ref CASES.json OUT_DIR [FIXTURE...]".into());
    }
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&args[0])?)?;
    let out_dir = std::path::PathBuf::from(&args[1]);
    std::fs::create_dir_all(&out_dir)?;
    let names: Vec<String> = if args.len() > 2 {
        args[2..].to_vec()
    } else {
        yieldtok_testkit::fixtures::NAMES.iter().map(|s| s.to_string()).collect()
    };
    for name in names {
        let t0 = std::time::Instant::now();
        let tok = yieldtok::Tokenizer::from_dir(yieldtok_testkit::fixtures::dir(&name)?)?;
        let mut out = Vec::with_capacity(cases.len());
        for case in &cases {
            let text = case["text"].as_str().ok_or("case without text")?;
            let add = case["add_special_tokens"].as_bool().unwrap_or(true);
            let mut v = json!({"name": case["name"], "text": text, "add_special_tokens": add});
            if case["ids_only"].as_bool() == Some(true) {
                v["ids"] = json!(tok.encode_ids(text, add)?);
                v["ids_only"] = json!(true);
                v.as_object_mut().unwrap().remove("text");
                v["text_chars"] = json!(text.chars().count());
            } else {
                let enc = tok.encode(text, add)?;
                v["ids"] = json!(enc.ids);
                v["offsets"] = json!(enc.offsets);
                v["char_offsets"] = json!(enc.char_offsets(text));
            }
            out.push(v);
        }
        let path = out_dir.join(format!("{name}.json"));
        std::fs::write(&path, serde_json::to_string(&out)?)?;
        eprintln!("native_ref: {} ({} cases, {:.1} s)", path.display(), out.len(), t0.elapsed().as_secs_f64());
    }
    Ok(())
}
