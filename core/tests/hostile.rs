//! Hostile tokenizer files (issue 17, item 6): none may make yieldtok allocate without bound.
//! Each case runs in a child process (this test binary again, running only [`child`]) under an
//! address-space limit (`prlimit --as`), so an allocation that fails aborts the child rather
//! than this test; the parent expects the child's report — a clear error or correct results —
//! and never an abort.
//!
//! * sparse ids (`"zzzz": 2000000000` in the model vocabulary or as an added token): loads,
//!   served exactly by the own engine (ids up to 2^28) or `tokenizers`, the fast engine
//!   refused with the id-range reason (it, and `tokenizers`' serialization that feeds it,
//!   allocate by the largest id), and `to_json` refused the same way;
//! * a huge merges list: loads and encodes (its cost is bounded by the file-size limit), or is
//!   refused by that limit when it is set below the file's size;
//! * `/dev/zero` and a chat template that is a symlink to it: refused by the file-size limit
//!   (`YIELDTOK_MAX_FILE_BYTES`) instead of being read forever.

use std::path::{Path, PathBuf};
use std::process::Command;

use yieldtok::{Error, Tokenizer};

const CASE: &str = "YIELDTOK_HOSTILE_CASE";
const FILE: &str = "YIELDTOK_HOSTILE_FILE";
/// The child's address-space limit (3 GiB, in bytes: this machine's `prlimit` crashes on a
/// size suffix such as `3G`): far below what the unbounded allocations asked for (4-16 GB),
/// far above what these small tokenizers need.
const AS_LIMIT: &str = "3221225472";

/// GPT-2's byte-to-symbol map (ByteLevel): the symbol of byte `b`.
fn byte_symbol(b: u8) -> char {
    let direct = |b: u8| (33..=126).contains(&b) || (161..=172).contains(&b) || b >= 174;
    if direct(b) {
        return b as char;
    }
    let n = (0..b).filter(|&x| !direct(x)).count() as u32;
    char::from_u32(256 + n).unwrap()
}

/// A small byte-level BPE tokenizer (the qwen3 family's structure): the 256 byte symbols
/// (id = byte), `ab` = 256 and `zz` = 257 by merges, `zzzz` = `zzzz_id` by a merge, and
/// `extra` vocabulary entries; `added` as the `added_tokens` list; `extra_merges` more
/// (duplicate) merges.
fn tokenizer_json(zzzz_id: u64, extra: &[(&str, u64)], added: serde_json::Value, extra_merges: usize) -> String {
    let mut vocab = serde_json::Map::new();
    for b in 0..=255u8 {
        vocab.insert(byte_symbol(b).to_string(), b.into());
    }
    vocab.insert("ab".into(), 256.into());
    vocab.insert("zz".into(), 257.into());
    vocab.insert("zzzz".into(), zzzz_id.into());
    for (k, id) in extra {
        vocab.insert(k.to_string(), (*id).into());
    }
    let mut merges =
        vec![serde_json::json!(["a", "b"]), serde_json::json!(["z", "z"]), serde_json::json!(["zz", "zz"])];
    merges.extend(std::iter::repeat_n(serde_json::json!(["a", "b"]), extra_merges));
    let byte_level =
        serde_json::json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true});
    serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": added, "normalizer": null,
        "pre_tokenizer": byte_level, "post_processor": null, "decoder": byte_level,
        "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
                  "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
                  "vocab": vocab, "merges": merges}
    })
    .to_string()
}

fn added_token(id: u64, content: &str) -> serde_json::Value {
    serde_json::json!([{"id": id, "content": content, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}])
}

fn none() -> serde_json::Value {
    serde_json::json!([])
}

/// A fresh folder under the system's temp dir, removed when dropped (also when the test fails).
struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tmpdir(name: &str) -> TempDir {
    let d = std::env::temp_dir().join(format!("yieldtok-hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    TempDir(d)
}

/// Run `case` on `file` in a child under the address-space limit; its stdout.
fn run_child(case: &str, file: &Path, env: &[(&str, &str)]) -> String {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new("prlimit");
    cmd.arg(format!("--as={AS_LIMIT}"))
        .arg("--")
        .arg(exe)
        .args(["child", "--exact", "--nocapture", "--test-threads=1"])
        .env(CASE, case)
        .env(FILE, file)
        .env("YIELDTOK_THREADS", "2");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("prlimit runs (util-linux)");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains(&format!("CASE {case} OK")),
        "case {case}: child failed ({:?}) under --as={AS_LIMIT}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    println!("{}", stdout.lines().filter_map(|l| l.find("CASE ").map(|i| &l[i..])).collect::<Vec<_>>().join(" | "));
    stdout
}

fn write(dir: &Path, json: &str) -> PathBuf {
    let p = dir.join("tokenizer.json");
    std::fs::write(&p, json).unwrap();
    p
}

#[test]
fn dense_control_is_served_by_the_fast_engine() {
    let d = tmpdir("dense");
    run_child("dense", &write(&d, &tokenizer_json(258, &[], none(), 0)), &[]);
}

#[test]
fn sparse_model_id_is_served_without_the_fast_engine() {
    let d = tmpdir("sparse-model");
    run_child("sparse_model", &write(&d, &tokenizer_json(2_000_000_000, &[], none(), 0)), &[]);
    // Below the own engine's id limit (2^28) it serves; the fast engine is still refused.
    let d = tmpdir("sparse-model-own");
    run_child("sparse_model_own", &write(&d, &tokenizer_json(200_000_000, &[], none(), 0)), &[]);
}

#[test]
fn sparse_added_token_id_is_served_without_the_fast_engine() {
    let d = tmpdir("sparse-added");
    run_child(
        "sparse_added",
        &write(&d, &tokenizer_json(258, &[("<big>", 2_000_000_000)], added_token(2_000_000_000, "<big>"), 0)),
        &[],
    );
}

#[test]
fn id_hole_limit_is_configurable() {
    // 259 ids, largest 1258: 1000 unused ids below it. Allowed by default, refused at 999.
    let d = tmpdir("holes");
    let file = write(&d, &tokenizer_json(1258, &[], none(), 0));
    run_child("holes_allowed", &file, &[]);
    run_child("holes_refused", &file, &[("YIELDTOK_MAX_ID_HOLES", "999")]);
}

#[test]
fn huge_merges_list_loads_or_is_refused_by_the_size_limit() {
    let d = tmpdir("merges");
    let file = write(&d, &tokenizer_json(258, &[], none(), 3_000_000)); // ~33 MB
    run_child("huge_merges", &file, &[]);
    run_child("file_too_large", &file, &[("YIELDTOK_MAX_FILE_BYTES", "1000000")]);
}

#[test]
fn endless_files_are_refused_by_the_size_limit() {
    // The default limit (512 MiB) and a small one.
    run_child("dev_zero", Path::new("/dev/zero"), &[]);
    run_child("dev_zero", Path::new("/dev/zero"), &[("YIELDTOK_MAX_FILE_BYTES", "65536")]);
    // A chat template that is a symlink to /dev/zero, in a model folder.
    let d = tmpdir("jinja-zero");
    write(&d, &tokenizer_json(258, &[], none(), 0));
    std::fs::create_dir(d.join("additional_chat_templates")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join("additional_chat_templates").join("tool_use.jinja")).unwrap();
    run_child("dir_zero_template", &d, &[("YIELDTOK_MAX_FILE_BYTES", "1048576")]);
}

#[test]
fn non_utf8_files_are_named_in_the_error() {
    let d = tmpdir("utf8");
    write(&d, &tokenizer_json(258, &[], none(), 0));
    std::fs::write(d.join("tokenizer_config.json"), b"{\"bos_token\": \"\xff\"}").unwrap();
    let e = Tokenizer::from_dir(&d).unwrap_err();
    assert!(
        matches!(e, Error::FileNotUtf8 { offset: 15, .. }) && e.to_string().contains("tokenizer_config.json"),
        "{e}"
    );
    std::fs::remove_file(d.join("tokenizer_config.json")).unwrap();
    std::fs::write(d.join("chat_template.jinja"), b"{{ bos_token }}\xc3(").unwrap();
    let e = Tokenizer::from_dir(&d).unwrap_err();
    assert!(e.to_string().contains("chat_template.jinja") && e.to_string().contains("offset 15"), "{e}");
    let f = d.join("tokenizer.json");
    std::fs::write(&f, b"{\"a\": \"\xff\"}").unwrap();
    let e = Tokenizer::from_file(&f).unwrap_err();
    assert!(e.to_string().contains("tokenizer.json") && e.is_invalid_input(), "{e}");
}

// ---- the child ----

fn report(case: &str, detail: impl std::fmt::Display) {
    println!("CASE {case} OK {detail}");
}

/// Load, encode with both APIs, wait for the fast engine; check the ids; return the tokenizer.
fn load_and_check(file: &Path, text: &str, want: &[u32]) -> Tokenizer {
    let tok = Tokenizer::from_file(file).unwrap();
    let reference = tokenizers::Tokenizer::from_file(file).unwrap();
    assert_eq!(reference.encode(text, true).unwrap().get_ids(), want, "tokenizers itself");
    assert_eq!(tok.count(text, true).unwrap(), want.len(), "count before the fast engine");
    assert_eq!(tok.encode(text, true).unwrap().ids, want);
    tok.wait_for_engine();
    assert_eq!(tok.count(text, true).unwrap(), want.len(), "count after the fast engine's build");
    assert_eq!(tok.encode_ids(text, true).unwrap(), want);
    assert_eq!(tok.encode(text, true).unwrap().ids, want);
    tok
}

fn expect_fast_refused(tok: &Tokenizer, why: &str) -> String {
    assert_ne!(tok.engine(), "fastokens");
    let reason = tok.engine_unavailable_reason().expect("a reason").to_string();
    assert!(reason.contains(why), "{reason}");
    reason
}

#[test]
fn child() {
    let Ok(case) = std::env::var(CASE) else { return };
    let file = PathBuf::from(std::env::var(FILE).unwrap());
    // "ab", " zzzz", " ab": [ab] [Ġ zzzz] [Ġ ab]
    let text = "ab zzzz ab";
    let want = |z: u32| vec![256, 32, z, 32, 256];
    match case.as_str() {
        "dense" => {
            let tok = load_and_check(&file, text, &want(258));
            assert_eq!(tok.engine(), "fastokens", "{:?}", tok.engine_unavailable_reason());
            assert_eq!(tok.encoding_engine(), "yieldtok", "{:?}", tok.encoding_engine_unavailable_reason());
            assert!(tok.to_json().is_ok());
            report(&case, tok.engine());
        }
        "sparse_model" => {
            let big = 2_000_000_000;
            let tok = load_and_check(&file, text, &want(big));
            let reason = expect_fast_refused(&tok, "sparse token ids");
            assert_eq!(tok.encoding_engine(), "tokenizers");
            let own = tok.encoding_engine_unavailable_reason().unwrap().to_string();
            assert!(own.contains("limit"), "{own}");
            assert_eq!(tok.id_to_token(big).as_deref(), Some("zzzz"));
            assert_eq!(tok.decode(&[256, 32, big], false).unwrap(), "ab zzzz");
            let e = tok.to_json().unwrap_err();
            assert!(e.to_string().contains("sparse token ids"), "{e}");
            report(&case, format!("fast: {reason}; own: {own}; to_json: {e}"));
        }
        "sparse_model_own" => {
            let tok = load_and_check(&file, text, &want(200_000_000));
            let reason = expect_fast_refused(&tok, "sparse token ids");
            assert_eq!(tok.encoding_engine(), "yieldtok", "{:?}", tok.encoding_engine_unavailable_reason());
            report(&case, format!("engine {}, encodings {}; fast: {reason}", tok.engine(), tok.encoding_engine()));
        }
        "sparse_added" => {
            let big = 2_000_000_000;
            let tok = load_and_check(&file, "ab<big> zzzz", &[256, big, 32, 258]);
            let reason = expect_fast_refused(&tok, "sparse token ids");
            assert!(tok.to_json().unwrap_err().to_string().contains("sparse token ids"));
            report(&case, format!("engine {}, encodings {}; fast: {reason}", tok.engine(), tok.encoding_engine()));
        }
        "holes_allowed" => {
            let tok = load_and_check(&file, text, &want(1258));
            // fastokens itself refuses a gapped vocabulary; not for the id range.
            if let Some(why) = tok.engine_unavailable_reason() {
                assert!(!why.contains("sparse token ids"), "{why}");
            }
            report(&case, format!("engine {} ({:?})", tok.engine(), tok.engine_unavailable_reason()));
        }
        "holes_refused" => {
            let tok = load_and_check(&file, text, &want(1258));
            let reason = expect_fast_refused(&tok, "the limit is 999");
            report(&case, reason);
        }
        "huge_merges" => {
            let tok = load_and_check(&file, text, &want(258));
            report(&case, format!("engine {}, encodings {}", tok.engine(), tok.encoding_engine()));
        }
        "file_too_large" | "dev_zero" => {
            let e = Tokenizer::from_file(&file).unwrap_err();
            assert!(matches!(e, Error::FileTooLarge { .. }), "{e}");
            assert!(
                e.to_string().contains(&file.display().to_string())
                    && e.to_string().contains("YIELDTOK_MAX_FILE_BYTES"),
                "{e}"
            );
            report(&case, e);
        }
        "dir_zero_template" => {
            let e = Tokenizer::from_dir(&file).unwrap_err();
            assert!(matches!(e, Error::FileTooLarge { .. }) && e.to_string().contains("tool_use.jinja"), "{e}");
            report(&case, e);
        }
        other => panic!("unknown case {other}"),
    }
}
