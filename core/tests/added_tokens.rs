//! `Tokenizer::with_added_tokens`, `with_added_special_tokens` and
//! `with_encode_special_tokens` against `tokenizers` doing the same to its own copy of each
//! fixture: every field of short and long (parallel, chunked) encodes is equal, with tokens of
//! every `AddedToken` flag in the text, and settings and config survive the rebuild.

mod common;

use common::*;
use yieldtok::{AddedToken, Encoding, TruncationParams, PARALLEL_MIN_BYTES};
use yieldtok_testkit::fixtures::{ENGINE_EXTRA, NAMES};

fn normal() -> Vec<AddedToken> {
    vec![
        AddedToken::from("yieldtokword", false),
        AddedToken::from("zqxj", false).single_word(true),
        AddedToken::from("lsxq", false).lstrip(true),
        AddedToken::from("rsxq", false).rstrip(true),
        AddedToken::from("NrmXq", false).normalized(false),
        AddedToken::from("Hello Qworld", false).normalized(true),
    ]
}

fn special() -> Vec<AddedToken> {
    vec![
        AddedToken::from("<|mine|>", true),
        AddedToken::from("<|sw|>", true).single_word(true),
        AddedToken::from("[LSR]", true).lstrip(true).rstrip(true),
        AddedToken::from("<|nrm|>", true).normalized(true),
    ]
}

/// `mixed` text with `tokens` spliced in every ~1000 bytes (alone or between spaces).
fn with_tokens(tok: &yieldtok::Tokenizer, seed: u64, bytes: usize, tokens: &[String]) -> String {
    let base = mixed(tok, seed, bytes);
    let mut out = String::new();
    let mut n = 0;
    for (i, c) in base.chars().enumerate() {
        out.push(c);
        if i % 1000 == 999 {
            let t = &tokens[n % tokens.len()];
            if n % 3 == 0 {
                out.push_str(&format!(" {t} "));
            } else {
                out.push_str(t);
            }
            n += 1;
        }
    }
    out
}

#[test]
fn added_tokens_and_encode_special_tokens_equal_tokenizers() {
    let mut checked = 0;
    for name in NAMES.iter().chain(ENGINE_EXTRA.iter()) {
        let Ok(path) = yieldtok_testkit::fixtures::tokenizer_json(name) else { continue };
        let base = fixture(name).with_truncation(Some(TruncationParams { max_length: 1 << 30, ..Default::default() }));
        let base = base.unwrap();
        let mut hf = tokenizers::Tokenizer::from_file(&path).unwrap();
        // (minilm's tokenizer.json truncates to 128: compare untruncated on both sides)
        hf.with_truncation(None).unwrap();
        let (tok, n) = base.with_added_tokens(&normal()).unwrap();
        assert_eq!(n, hf.add_tokens(normal()).unwrap(), "{name}: add_tokens count");
        let (tok, n) = tok.with_added_special_tokens(&special()).unwrap();
        assert_eq!(n, hf.add_special_tokens(special()).unwrap(), "{name}: add_special_tokens count");
        assert_eq!(tok.truncation().map(|t| t.max_length), base.truncation().map(|t| t.max_length), "{name}: kept");
        assert_eq!(tok.config().is_some(), base.config().is_some(), "{name}: config kept");
        assert_eq!(tok.vocab(true), hf.get_vocab(true), "{name}: vocab");
        assert_eq!(tok.added_tokens_decoder(), hf.get_added_tokens_decoder().into_iter().collect(), "{name}");
        let mut contents: Vec<String> = normal().into_iter().chain(special()).map(|t| t.content).collect();
        contents.extend(added_tokens(&base, 4));
        let texts = [with_tokens(&tok, 3, 2 * PARALLEL_MIN_BYTES, &contents), with_tokens(&tok, 4, 3000, &contents)];
        assert!(texts[0].len() >= PARALLEL_MIN_BYTES);
        for encode_special in [false, true, false] {
            let tok = tok.with_encode_special_tokens(encode_special).unwrap();
            hf.set_encode_special_tokens(encode_special);
            assert_eq!(tok.encode_special_tokens(), encode_special);
            for (i, text) in texts.iter().enumerate() {
                for add in [true, false] {
                    let what = format!("{name} encode_special={encode_special} text {i} add={add}");
                    let want = Encoding::from(hf.encode(text.as_str(), add).unwrap());
                    assert_same_fields(&what, &tok.encode(text, add).unwrap(), &want);
                    assert_eq!(tok.encode_ids(text, add).unwrap(), want.ids, "{what}: ids only");
                    assert_eq!(tok.count(text, add).unwrap(), want.ids.len(), "{what}: count");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 4 * 12, "only {checked} encodes checked");
}
