//! Encode a document repeatedly with one fixture — a target for profilers (callgrind:
//! `valgrind --tool=callgrind --toggle-collect='*measured*' target/release/examples/encode_doc
//! llama3_1 ids 3`; instruction counts are repeatable on a shared machine).
//!
//! `encode_doc <fixture> <ids|full|count> [repeats] [doc bytes]`: one warm-up encode (fills the
//! word cache), then `repeats` measured encodes of the same document.

use yieldtok_engine::{Engine, PieceOptions, Tokens};
use yieldtok_testkit::{corpus, fixtures};

#[inline(never)]
fn measured(engine: &Engine, doc: &str, mode: &str, repeats: usize) -> usize {
    let opts = PieceOptions::default();
    let mut n = 0;
    let mut out = Tokens::default();
    let mut ids = Vec::new();
    for _ in 0..repeats {
        match mode {
            "ids" => {
                ids.clear();
                engine.encode_ids(doc, &opts, &mut ids).unwrap();
                n += ids.len();
            }
            "full" => {
                out.clear();
                engine.encode(doc, &opts, &mut out).unwrap();
                n += out.ids.len();
            }
            _ => n += engine.count(doc, &opts).unwrap(),
        }
    }
    n
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("llama3_1", String::as_str);
    let mode = args.get(2).map_or("ids", String::as_str);
    let repeats = args.get(3).map_or(3, |s| s.parse().unwrap());
    let bytes = args.get(4).map_or(600_000, |s| s.parse().unwrap());
    let json = std::fs::read_to_string(fixtures::tokenizer_json(name).unwrap()).unwrap();
    let engine = Engine::from_json(&json).unwrap();
    let doc = corpus::document(bytes);
    let warm = measured(&engine, &doc, mode, 1);
    let t = std::time::Instant::now();
    let n = measured(&engine, &doc, mode, repeats);
    let dt = t.elapsed().as_secs_f64();
    println!(
        "{name} {mode}: {warm} tokens, {:.1} MB/s, {:.1} M tokens/s (wall)",
        (doc.len() * repeats) as f64 / dt / 1e6,
        n as f64 / dt / 1e6
    );
}
