//! Differential test of `yieldtok::trajectory` against OpenPipe ART 0.5.18 itself.
//!
//! Always: the committed small fixture (`tests/fixtures/trajectories-small.json`, cases) and
//! what ART produced for it (`tests/fixtures/trajectories-small.art.json`, written by
//! `tests/oracle/art_oracle.py` and compacted by `tests/oracle/compact_oracle_output.py`).
//! Larger sets when `YIELDTOK_ART_CASES` and `YIELDTOK_ART_ORACLE` name a cases file and the
//! oracle's output for it (see `scripts/trajectory-oracle.sh`).
//!
//! Per case, with the case's options and seeds (the RNG is CPython's, so prompt ids, shuffles,
//! group ids and the row permutation are compared exactly):
//! * ART-compatible mode (`validate_sampled_tokens: false`): every result field equal (ints
//!   exactly, floats to 1e-6, NaN = NaN, `chat` byte for byte, provenance), in order; when ART
//!   raised, the first error (in ART's order) has ART's exception type;
//! * per history (cases run with `per_history`): `tokenize_trajectory` on each history, result
//!   or exception type;
//! * packing: every tensor, the provenance of each packed result and the permutation;
//! * default (validating) mode: the same results, except trajectories reported for a sampled
//!   token outside the vocabulary / not in it / a sentinel collision.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use yieldtok::trajectory::{
    self, GroupResult, PackOptions, Packed, TokenizedResult, ToolSchemaFormat, TrajectoryErrorKind, TrajectoryOptions,
    TrajectoryTokenizer,
};

fn repo_root() -> PathBuf {
    match std::env::var_os("YIELDTOK_REPO_ROOT") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf(),
    }
}

fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn float(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap(),
        Value::String(s) if s == "NaN" => f64::NAN,
        Value::String(s) if s == "Infinity" => f64::INFINITY,
        Value::String(s) if s == "-Infinity" => f64::NEG_INFINITY,
        Value::Bool(b) => *b as u8 as f64,
        other => panic!("not a float: {other}"),
    }
}

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

#[derive(Default)]
struct Stats {
    cases: usize,
    results: usize,
    tokens: usize,
    histories: usize,
    packed_cases: usize,
    packed_values: usize,
    errors_matched: usize,
    validated_errors: usize,
    failures: Vec<String>,
}

impl Stats {
    fn fail(&mut self, msg: String) {
        if self.failures.len() < 50 {
            eprintln!("MISMATCH {msg}");
        }
        self.failures.push(msg);
    }
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect()
}

/// Compare one result with ART's. `fields_only`: per-history rows lack weight/prompt fields.
fn compare_result(ctx: &str, ours: &TokenizedResult, art: &Value, per_history: bool, st: &mut Stats) {
    let mut bad = |what: &str, detail: String| st.fail(format!("{ctx}: {what}: {detail}"));
    let want_ids = ints(&art["token_ids"]);
    let got_ids: Vec<i64> = ours.token_ids.iter().map(|&x| x as i64).collect();
    if got_ids != want_ids {
        let pos = got_ids.iter().zip(&want_ids).position(|(a, b)| a != b).unwrap_or(got_ids.len().min(want_ids.len()));
        bad(
            "token_ids",
            format!(
                "len {} vs {}, first difference at {pos}: {:?} vs {:?}",
                got_ids.len(),
                want_ids.len(),
                got_ids.get(pos..pos + 5),
                want_ids.get(pos..pos + 5)
            ),
        );
    }
    let mask: Vec<i64> = ours.assistant_mask.iter().map(|&x| x as i64).collect();
    if mask != ints(&art["assistant_mask"]) {
        bad("assistant_mask", String::new());
    }
    let lp: Vec<f64> = art["logprobs"].as_array().unwrap().iter().map(float).collect();
    if lp.len() != ours.logprobs.len() || lp.iter().zip(&ours.logprobs).any(|(a, b)| !close(*a, *b)) {
        bad("logprobs", String::new());
    }
    let pos: Vec<i64> = ours.input_pos.iter().map(|&x| x as i64).collect();
    if pos != ints(&art["input_pos"]) {
        bad("input_pos", String::new());
    }
    let offs: Vec<i64> = ours.choice_offsets.iter().map(|&x| x as i64).collect();
    if offs != ints(&art["choice_offsets"]) {
        bad("choice_offsets", format!("{offs:?} vs {}", art["choice_offsets"]));
    }
    let extra = art["extra_logprobs"].as_object().unwrap();
    let keys: Vec<&String> = extra.keys().collect();
    let our_keys: Vec<&String> = ours.extra_logprobs.iter().map(|(k, _)| k).collect();
    if keys != our_keys {
        bad("extra_logprobs keys", format!("{our_keys:?} vs {keys:?}"));
    } else {
        for (k, v) in &ours.extra_logprobs {
            let want: Vec<f64> = extra[k].as_array().unwrap().iter().map(float).collect();
            if want.len() != v.len() || want.iter().zip(v).any(|(a, b)| !close(*a, *b)) {
                bad("extra_logprobs", k.clone());
            }
        }
    }
    if !close(ours.advantage, float(&art["advantage"])) {
        bad("advantage", format!("{} vs {}", ours.advantage, art["advantage"]));
    }
    if let Some(chat) = art.get("chat").and_then(Value::as_str) {
        if chat != ours.chat {
            let p = chat.bytes().zip(ours.chat.bytes()).position(|(a, b)| a != b).unwrap_or(0);
            bad("chat", format!("first difference at byte {p}"));
        }
    }
    if !per_history {
        if !close(ours.weight, float(&art["weight"])) {
            bad("weight", format!("{} vs {}", ours.weight, art["weight"]));
        }
        if ours.prompt_id != art["prompt_id"].as_i64().unwrap() {
            bad("prompt_id", format!("{} vs {}", ours.prompt_id, art["prompt_id"]));
        }
        if ours.prompt_length as i64 != art["prompt_length"].as_i64().unwrap() {
            bad("prompt_length", format!("{} vs {}", ours.prompt_length, art["prompt_length"]));
        }
        let prov = [ours.group_index, ours.trajectory_index, ours.history_index].map(|x| x as i64);
        let want = [&art["group_index"], &art["trajectory_index"], &art["history_index"]].map(|v| v.as_i64().unwrap());
        if prov != want {
            bad("provenance", format!("{prov:?} vs {want:?}"));
        }
    }
    st.tokens += ours.token_ids.len();
}

/// ART's exception type for our error (ART's pydantic errors are `ValidationError`; jinja2
/// errors come in several types).
fn same_exception(ours: &TrajectoryErrorKind, art: &str) -> bool {
    match ours.art_exception() {
        Some("TemplateError") => art.contains("Error") && !matches!(art, "ValueError" | "KeyError" | "AssertionError"),
        Some(t) => t == art || (t == "ValueError" && art == "UnicodeDecodeError"),
        None => false,
    }
}

fn options(o: &Value, validate: bool) -> TrajectoryOptions {
    let b = |k: &str, d: bool| o.get(k).and_then(Value::as_bool).unwrap_or(d);
    TrajectoryOptions {
        allow_training_without_logprobs: b("allow_training_without_logprobs", false),
        scale_rewards: b("scale_rewards", true),
        shuffle_group_trajectories: b("shuffle_group_trajectories", true),
        drop_zero_advantage_trajectories: b("drop_zero_advantage_trajectories", true),
        chat_template_kwargs: o.get("chat_template_kwargs").and_then(Value::as_object).cloned(),
        tool_schema_format: match o.get("chat_template_tool_schema_format").and_then(Value::as_str) {
            Some("vllm_openai") => ToolSchemaFormat::VllmOpenai,
            _ => ToolSchemaFormat::Default,
        },
        seed: Some(o.get("seed").and_then(Value::as_i64).unwrap_or(0) as i128),
        validate_sampled_tokens: validate,
        chat_template: None,
    }
}

fn pack_options(p: &Value) -> PackOptions {
    PackOptions {
        seq_len: p["seq_len"].as_u64().unwrap() as usize,
        pad_token_id: p.get("pad_token_id").and_then(Value::as_i64).unwrap_or(-100),
        truncate_long_results: p.get("truncate_long_results").and_then(Value::as_bool).unwrap_or(true),
        advantage_balance: p.get("advantage_balance").and_then(Value::as_f64).unwrap_or(0.0),
        pack_results: p.get("pack_results").and_then(Value::as_bool).unwrap_or(true),
        seed: Some(p.get("seed").and_then(Value::as_i64).unwrap_or(0) as i128),
    }
}

/// A packed tensor's rows, re-padded when the fixture stores them trimmed.
fn tensor_rows(t: &Value) -> Vec<Vec<Value>> {
    let shape = ints(&t["shape"]);
    let width = shape[1] as usize;
    let pad = t.get("pad").cloned();
    t["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let mut r = row.as_array().unwrap().clone();
            if let Some(p) = &pad {
                r.resize(width, p.clone());
            }
            r
        })
        .collect()
}

fn compare_packed(ctx: &str, ours: &Packed, art: &Value, st: &mut Stats) {
    let shape = ints(&art["tokens"]["shape"]);
    if shape != [ours.n_rows as i64, ours.seq_len as i64] {
        st.fail(format!("{ctx}: packed shape {:?} vs {shape:?}", [ours.n_rows, ours.seq_len]));
        return;
    }
    let w = ours.seq_len;
    let check_i = |name: &str, got: &[i64], st: &mut Stats| {
        for (r, row) in tensor_rows(&art[name]).iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                if got[r * w + c] != v.as_i64().unwrap() {
                    st.fail(format!("{ctx}: packed {name}[{r}][{c}]: {} vs {v}", got[r * w + c]));
                    return;
                }
            }
        }
        st.packed_values += got.len();
    };
    check_i("tokens", &ours.tokens, st);
    check_i("group_ids", &ours.group_ids, st);
    check_i("parent_ids", &ours.parent_ids, st);
    check_i("input_pos", &ours.input_pos, st);
    let mask: Vec<i64> = ours.assistant_mask.iter().map(|&b| b as i64).collect();
    let art_mask: Vec<i64> =
        tensor_rows(&art["assistant_mask"]).iter().flatten().map(|v| v.as_bool().unwrap() as i64).collect();
    if mask != art_mask {
        st.fail(format!("{ctx}: packed assistant_mask"));
    }
    for (name, got) in [("logprobs", &ours.logprobs), ("advantages", &ours.advantages), ("weights", &ours.weights)] {
        let want: Vec<f64> = tensor_rows(&art[name]).iter().flatten().map(float).collect();
        if let Some(i) = (0..want.len()).find(|&i| !close(got[i] as f64, want[i])) {
            st.fail(format!("{ctx}: packed {name}[{}][{}]: {} vs {}", i / w, i % w, got[i], want[i]));
        }
        st.packed_values += got.len();
    }
    let perm: Vec<i64> = ours.permutation.iter().map(|&x| x as i64).collect();
    if perm != ints(&art["permutation"]) {
        st.fail(format!("{ctx}: permutation {perm:?} vs {}", art["permutation"]));
    }
    let prov = art["provenance"].as_array().unwrap();
    if prov.len() != ours.provenance.len() {
        st.fail(format!("{ctx}: {} packed results vs {}", ours.provenance.len(), prov.len()));
    } else {
        for (p, a) in ours.provenance.iter().zip(prov) {
            let want = (
                a["result_index"].as_u64().unwrap() as usize,
                a["row"].as_u64().unwrap() as usize,
                a["offset"].as_u64().unwrap() as usize,
                a["group_id"].as_i64().unwrap(),
                a["prompt_stripped"].as_bool().unwrap(),
            );
            if (p.result_index, p.row, p.offset, p.group_id, p.prompt_stripped) != want {
                st.fail(format!("{ctx}: packed provenance {p:?} vs {a}"));
            }
        }
    }
    st.packed_cases += 1;
}

fn first_error(groups: &[GroupResult]) -> Option<&trajectory::TrajectoryError> {
    let key = |e: &trajectory::TrajectoryError| {
        let l = e.location;
        (l.group.unwrap_or(0), l.trajectory.unwrap_or(0), l.history.unwrap_or(0))
    };
    groups.iter().flat_map(|g| &g.errors).min_by_key(|e| key(e))
}

/// Equal results (NaN equal to NaN).
fn same_results(a: &[TokenizedResult], b: &[TokenizedResult]) -> bool {
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.token_ids == y.token_ids
                && x.assistant_mask == y.assistant_mask
                && bits(&x.logprobs) == bits(&y.logprobs)
                && x.choice_offsets == y.choice_offsets
                && x.prompt_id == y.prompt_id
                && x.prompt_length == y.prompt_length
                && x.weight.to_bits() == y.weight.to_bits()
                && x.chat == y.chat
        })
}

fn validation_kind(k: &TrajectoryErrorKind) -> bool {
    matches!(
        k,
        TrajectoryErrorKind::TokenIdOutOfVocabulary { .. }
            | TrajectoryErrorKind::TokenNotInVocabulary(_)
            | TrajectoryErrorKind::SentinelCollision { .. }
    )
}

fn run(cases_path: &Path, oracle_path: &Path, fixtures: Option<&Path>) -> Stats {
    // a single-run file (`make_trajectories.py --bench`) is one case named "run"
    let wrap = |mut v: Value| {
        if v.get("cases").is_none() {
            v["name"] = Value::String("run".into());
            v = serde_json::json!({ "cases": [v] });
        }
        v
    };
    let cases = wrap(read_json(cases_path));
    let oracle = wrap(read_json(oracle_path));
    let inputs: HashMap<&str, &Value> =
        cases["cases"].as_array().unwrap().iter().map(|c| (c["name"].as_str().unwrap(), c)).collect();
    let mut tokenizers: HashMap<String, TrajectoryTokenizer> = HashMap::new();
    let mut st = Stats::default();
    for out in oracle["cases"].as_array().unwrap() {
        let name = out["name"].as_str().unwrap();
        let input = inputs.get(name).unwrap_or_else(|| panic!("case {name} is not in {}", cases_path.display()));
        let tok_name = input["tokenizer"].as_str().unwrap();
        let tt = tokenizers.entry(tok_name.to_string()).or_insert_with(|| {
            let dir = match fixtures {
                Some(f) => f.join(tok_name),
                None => yieldtok_testkit::fixtures::dir(tok_name).unwrap(),
            };
            let tok = yieldtok::Tokenizer::from_dir(&dir).unwrap();
            TrajectoryTokenizer::new(&tok, None).unwrap()
        });
        let opts_json = out.get("options").unwrap_or(&input["options"]);
        let groups = match trajectory::groups_from_value(&input["groups"]) {
            Ok(g) => g,
            Err(e) => {
                st.fail(format!("{name}: cannot parse groups: {e}"));
                continue;
            }
        };
        st.cases += 1;
        let lenient = options(opts_json, false);
        let got = tt.tokenize_trajectory_groups(&groups, &lenient);
        let ours_ok = got.iter().all(|g| g.errors.is_empty());
        let art_ok = out["ok"].as_bool().unwrap();
        let results: Vec<TokenizedResult> = got.iter().flat_map(|g| g.results.clone()).collect();
        if art_ok {
            if !ours_ok {
                st.fail(format!("{name}: ART succeeded, we report {}", first_error(&got).unwrap()));
                continue;
            }
            let art_results = out["results"].as_array().unwrap();
            if art_results.len() != results.len() {
                st.fail(format!("{name}: {} results vs ART's {}", results.len(), art_results.len()));
                continue;
            }
            for (i, (r, a)) in results.iter().zip(art_results).enumerate() {
                compare_result(&format!("{name} result {i}"), r, a, false, &mut st);
            }
            st.results += results.len();
        } else {
            let art_type = out["error"]["type"].as_str().unwrap();
            match first_error(&got) {
                None => st.fail(format!("{name}: ART raised {art_type}, we report nothing")),
                Some(e) if !same_exception(&e.kind, art_type) => {
                    st.fail(format!("{name}: ART raised {art_type} ({}), we report {e}", out["error"]["message"]))
                }
                Some(_) => st.errors_matched += 1,
            }
        }

        // validating mode: same, except trajectories reported for bad sampled tokens
        let strict = tt.tokenize_trajectory_groups(&groups, &options(opts_json, true));
        for (g_strict, g_lenient) in strict.iter().zip(&got) {
            let extra: Vec<_> = g_strict.errors.iter().filter(|e| !g_lenient.errors.contains(e)).collect();
            if extra.iter().any(|e| !validation_kind(&e.kind)) {
                st.fail(format!("{name}: validating mode reports {}", extra[0]));
            }
            st.validated_errors += extra.len();
            if extra.is_empty() && !same_results(&g_strict.results, &g_lenient.results) {
                st.fail(format!("{name}: validating mode changed group {} results", g_strict.group_index));
            }
        }

        if let Some(rows) = out.get("histories").and_then(Value::as_array) {
            for row in rows {
                let (gi, ti, hi) = (
                    row["group_index"].as_u64().unwrap() as usize,
                    row["trajectory_index"].as_u64().unwrap() as usize,
                    row["history_index"].as_u64().unwrap() as usize,
                );
                let t = &groups[gi].trajectories[ti];
                let history = if hi == 0 { t.history() } else { t.additional_histories[hi - 1].clone() };
                let adv = row.get("result").and_then(|r| r.get("advantage")).map(float).unwrap_or(0.0);
                let ctx = format!("{name} history {gi}/{ti}/{hi}");
                match (tt.tokenize_trajectory(&history, adv, &lenient), row["ok"].as_bool().unwrap()) {
                    (Ok(Some(r)), true) if !row["result"].is_null() => {
                        compare_result(&ctx, &r, &row["result"], true, &mut st)
                    }
                    (Ok(None), true) if row["result"].is_null() => {}
                    (Err(e), false) if same_exception(&e.kind, row["error"]["type"].as_str().unwrap()) => {
                        st.errors_matched += 1
                    }
                    (ours, _) => st.fail(format!(
                        "{ctx}: ours {:?} vs ART {}",
                        ours.map(|r| r.map(|r| r.len())),
                        row.get("error").unwrap_or(&row["ok"])
                    )),
                }
                st.histories += 1;
            }
        }

        if let (Some(p), Some(art_packed)) = (out.get("pack_options"), out.get("packed")) {
            if art_packed["ok"].as_bool() == Some(true) {
                match trajectory::pack(&results, &pack_options(p)) {
                    Ok(packed) => compare_packed(name, &packed, art_packed, &mut st),
                    Err(e) => st.fail(format!("{name}: pack: {e}")),
                }
            }
        }
    }
    eprintln!(
        "trajectory_art: {} cases, {} results ({} tokens), {} per-history checks, {} errors matched, {} packed cases ({} values), {} validation errors, {} mismatches",
        st.cases,
        st.results,
        st.tokens,
        st.histories,
        st.errors_matched,
        st.packed_cases,
        st.packed_values,
        st.validated_errors,
        st.failures.len()
    );
    st
}

#[test]
fn small_fixture_matches_art() {
    let root = repo_root();
    let fixtures = std::env::var_os("YIELDTOK_FIXTURES").map(PathBuf::from);
    let st = run(
        &root.join("tests/fixtures/trajectories-small.json"),
        &root.join("tests/fixtures/trajectories-small.art.json"),
        fixtures.as_deref(),
    );
    assert!(st.cases >= 10 && st.results > 0 && st.packed_cases > 0);
    assert!(st.failures.is_empty(), "{} mismatches, first: {}", st.failures.len(), st.failures[0]);
}

/// `YIELDTOK_ART_CASES=cases.json YIELDTOK_ART_ORACLE=out.json cargo test --test trajectory_art -- --ignored`
/// (or just `cargo test`: it runs when both are set).
#[test]
fn external_oracle_matches_art() {
    let (Some(cases), Some(oracle)) = (std::env::var_os("YIELDTOK_ART_CASES"), std::env::var_os("YIELDTOK_ART_ORACLE"))
    else {
        eprintln!("external_oracle_matches_art: YIELDTOK_ART_CASES / YIELDTOK_ART_ORACLE not set, skipped");
        return;
    };
    let fixtures = std::env::var_os("YIELDTOK_FIXTURES").map(PathBuf::from);
    let st = run(Path::new(&cases), Path::new(&oracle), fixtures.as_deref());
    assert!(st.cases > 0);
    assert!(st.failures.is_empty(), "{} mismatches, first: {}", st.failures.len(), st.failures[0]);
}
