//! Differential test against transformers' `apply_chat_template` (the oracle).
//!
//! Inputs come from env vars (the test is skipped when they are unset):
//! * `CHAT_CASES`    – cases written by `tests/oracle/make_chat_cases.py`
//! * `CHAT_ORACLE`   – results written by `tests/oracle/chat_template_oracle.py` for those cases
//! * `CHAT_FIXTURES` – folder holding the tokenizer folders named by `template_dir`
//! * `CHAT_FIXED_NOW` – optional, the `--fixed-now` given to the oracle (clock of `strftime_now`)
//!
//! A case matches when both texts are byte-identical (and, for cases with
//! `return_assistant_tokens_mask`, the generation byte spans are equal and
//! give transformers' `assistant_masks` over the oracle's token offsets), or
//! when both engines raise. Cases with ids `known/...` are documented engine
//! differences: reported, not failed.
//!
//! Producing the inputs (from the repository root; `--no-data` for
//! self-made conversations only):
//!
//! ```text
//! python3 -m venv /tmp/oracle && /tmp/oracle/bin/pip install transformers jinja2
//! python3 tests/oracle/make_chat_cases.py /tmp/cases.json
//! /tmp/oracle/bin/python tests/oracle/chat_template_oracle.py /tmp/cases.json /tmp/oracle.json \
//!     --fixtures .cache/fixtures --fixed-now 2024-07-26T09:05:03.000042
//! CHAT_CASES=/tmp/cases.json CHAT_ORACLE=/tmp/oracle.json CHAT_FIXTURES=.cache/fixtures \
//!     CHAT_FIXED_NOW=2024-07-26T09:05:03.000042 cargo test -p yieldtok-chat --test differential -- --nocapture
//! ```

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value as Json};
use yieldtok_chat::{
    assistant_mask, fixed_clock, resolve_chat_template_arg, special_tokens_from_config, ChatRequest, ChatTemplate,
    ChatTemplateOptions, TemplateSource,
};

struct Folder {
    source: Option<TemplateSource>,
    special: Map<String, Json>,
}

fn load_folder(root: &Path, name: &str) -> Folder {
    let dir: PathBuf = if Path::new(name).is_absolute() { name.into() } else { root.join(name) };
    let cfg: Json = serde_json::from_str(&std::fs::read_to_string(dir.join("tokenizer_config.json")).unwrap()).unwrap();
    let mut source = cfg.get("chat_template").and_then(TemplateSource::from_config_value);
    if source.is_none() {
        if let Ok(s) = std::fs::read_to_string(dir.join("chat_template.jinja")) {
            source = Some(TemplateSource::Single(s));
        }
    }
    Folder { source, special: special_tokens_from_config(&cfg) }
}

fn first_diff(a: &str, b: &str) -> String {
    let pos = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    let lo = pos.saturating_sub(60);
    let ctx = |s: &str| {
        let mut lo = lo.min(s.len());
        while !s.is_char_boundary(lo) {
            lo -= 1;
        }
        let mut hi = (pos + 80).min(s.len());
        while !s.is_char_boundary(hi) {
            hi += 1;
        }
        format!("{:?}", &s[lo..hi])
    };
    format!(
        "at byte {pos} (len ours {} vs oracle {})\n    ours:   {}\n    oracle: {}",
        a.len(),
        b.len(),
        ctx(a),
        ctx(b)
    )
}

#[test]
fn differential_against_transformers() {
    let (Ok(cases_path), Ok(oracle_path), Ok(fixtures)) =
        (std::env::var("CHAT_CASES"), std::env::var("CHAT_ORACLE"), std::env::var("CHAT_FIXTURES"))
    else {
        assert!(
            std::env::var_os("YIELDTOK_REQUIRE_ORACLE").is_none(),
            "YIELDTOK_REQUIRE_ORACLE is set but CHAT_CASES / CHAT_ORACLE / CHAT_FIXTURES are not"
        );
        eprintln!("CHAT_CASES / CHAT_ORACLE / CHAT_FIXTURES not set: differential test skipped");
        return;
    };
    let fixtures = PathBuf::from(fixtures);
    let cases: Vec<Json> = serde_json::from_str(&std::fs::read_to_string(&cases_path).unwrap()).unwrap();
    let oracle: Json = serde_json::from_str(&std::fs::read_to_string(&oracle_path).unwrap()).unwrap();
    let results = oracle["results"].as_array().expect("oracle results");
    assert_eq!(cases.len(), results.len(), "cases and oracle results differ in length");
    let now = std::env::var("CHAT_FIXED_NOW").ok().map(|s| {
        chrono::NaiveDateTime::parse_from_str(&s, "%Y-%m-%dT%H:%M:%S%.f").expect("CHAT_FIXED_NOW: ISO date-time")
    });

    let mut folders: HashMap<String, Folder> = HashMap::new();
    let mut compiled: HashMap<(String, String), Result<ChatTemplate, String>> = HashMap::new();
    let mut stats: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new(); // (matched, of which both raise, mismatched)
    let mut failures = Vec::new();
    let mut known = Vec::new(); // documented engine differences (ids known/...)

    for (case, want) in cases.iter().zip(results) {
        let id = case["id"].as_str().unwrap_or("?").to_string();
        let group = {
            let parts: Vec<&str> = id.split('/').collect();
            format!("{}/{}", parts[0], parts.get(1).unwrap_or(&""))
        };
        let dir = case["template_dir"].as_str().unwrap().to_string();
        let folder = folders.entry(dir.clone()).or_insert_with(|| load_folder(&fixtures, &dir));
        let tools = case.get("tools").filter(|t| !t.is_null()).cloned();
        let explicit = case.get("chat_template").and_then(Json::as_str);
        let got: Result<(String, Vec<std::ops::Range<usize>>), String> =
            match resolve_chat_template_arg(folder.source.as_ref(), explicit, tools.is_some()) {
                Err(e) => Err(e.to_string()),
                Ok(source) => {
                    let key = (dir.clone(), source.to_string());
                    let tmpl = compiled.entry(key).or_insert_with(|| {
                        let mut opts = ChatTemplateOptions::default();
                        if let Some(now) = now {
                            opts.clock = fixed_clock(now);
                        }
                        ChatTemplate::with_options(source, folder.special.clone(), opts).map_err(|e| e.to_string())
                    });
                    match tmpl {
                        Err(e) => Err(e.clone()),
                        Ok(t) => {
                            let cfm = case.get("continue_final_message").cloned().unwrap_or(Json::Bool(false));
                            let req = ChatRequest {
                                messages: case["messages"].clone(),
                                tools,
                                documents: case.get("documents").cloned(),
                                add_generation_prompt: case
                                    .get("add_generation_prompt")
                                    .and_then(Json::as_bool)
                                    .unwrap_or(false),
                                continue_final_message: cfm.as_bool().unwrap_or(false),
                                continue_final_field: cfm.as_str().map(str::to_string),
                                kwargs: case.get("kwargs").and_then(Json::as_object).cloned().unwrap_or_default(),
                            };
                            t.render(&req).map(|r| (r.text, r.generation_spans)).map_err(|e| e.to_string())
                        }
                    }
                }
            };
        let entry = stats.entry(group).or_default();
        let verdict: Result<bool, String> = match (&got, want.get("text").and_then(Json::as_str)) {
            (Ok((text, spans)), Some(want_text)) => {
                if text != want_text {
                    Err(format!("text differs {}", first_diff(text, want_text)))
                } else if let Some(ws) = want.get("generation_byte_spans") {
                    let ws: Vec<std::ops::Range<usize>> = ws
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|p| p[0].as_u64().unwrap() as usize..p[1].as_u64().unwrap() as usize)
                        .collect();
                    let masks_agree = match (want.get("token_byte_offsets"), want.get("assistant_masks")) {
                        (Some(offs), Some(mask)) => {
                            let offs: Vec<(usize, usize)> = offs
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(|p| (p[0].as_u64().unwrap() as usize, p[1].as_u64().unwrap() as usize))
                                .collect();
                            let mask: Vec<u32> =
                                mask.as_array().unwrap().iter().map(|m| m.as_u64().unwrap() as u32).collect();
                            assistant_mask(spans, &offs) == mask
                        }
                        _ => true,
                    };
                    if &ws == spans && masks_agree {
                        Ok(false)
                    } else if &ws == spans {
                        Err("assistant mask differs".to_string())
                    } else {
                        Err(format!("generation spans differ: ours {spans:?} oracle {ws:?}"))
                    }
                } else {
                    Ok(false)
                }
            }
            (Err(_), None) => Ok(true),
            (Ok((text, _)), None) => Err(format!(
                "oracle raised {:?} but we rendered {:?}",
                want["error"].as_str().unwrap_or(""),
                text.chars().take(200).collect::<String>()
            )),
            (Err(e), Some(_)) => Err(format!("we raised {e:?} but the oracle rendered")),
        };
        match verdict {
            Ok(both_raise) => {
                entry.0 += 1;
                if both_raise {
                    entry.1 += 1;
                }
            }
            Err(why) => {
                entry.2 += 1;
                if id.starts_with("known/") {
                    known.push(format!("{id}: {why}"));
                } else {
                    failures.push(format!("{id}: {why}"));
                }
            }
        }
    }

    eprintln!("{:<34} {:>8} {:>11} {:>10}", "group", "matched", "both raise", "MISMATCH");
    for (g, (m, r, f)) in &stats {
        eprintln!("{g:<34} {m:>8} {r:>11} {f:>10}");
    }
    let total: usize = stats.values().map(|s| s.0 + s.2).sum();
    eprintln!(
        "{} of {} cases match ({} known differences); oracle: {}",
        total - failures.len() - known.len(),
        total,
        known.len(),
        oracle["meta"]
    );
    for k in known.iter().step_by(2) {
        eprintln!("known difference {}", k.lines().next().unwrap_or(""));
    }
    for f in failures.iter().take(40) {
        eprintln!("MISMATCH {f}");
    }
    assert!(failures.is_empty(), "{} of {} cases differ from transformers", failures.len(), total);
}
