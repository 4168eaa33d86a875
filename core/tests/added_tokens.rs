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
                    let want = Encoding::from_reference(hf.encode(text.as_str(), add).unwrap(), &hf);
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

/// `Tokenizer::tokens` (what the bindings' `Encoding.tokens` give) equals `tokenizers`'
/// `get_tokens` on every fixture, with the added tokens of every flag in the text: the
/// vocabulary's strings, except a Unigram unknown piece (its normalized text) and an added
/// token matched as other text (the whitespace it strips, its normalized form) — with both
/// engines, in pieces of a few bytes, for pairs and with left padding (token indices shift).
#[test]
fn token_strings_equal_tokenizers() {
    let mut named = 0;
    for name in NAMES.iter().chain(ENGINE_EXTRA.iter()) {
        let Ok(path) = yieldtok_testkit::fixtures::tokenizer_json(name) else { continue };
        let mut hf = tokenizers::Tokenizer::from_file(&path).unwrap();
        hf.with_truncation(None).unwrap();
        hf.with_padding(None);
        let base = fixture(name).with_truncation(None).unwrap().with_padding(None);
        let (base, _) = base.with_added_tokens(&normal()).unwrap();
        let (base, _) = base.with_added_special_tokens(&special()).unwrap();
        hf.add_tokens(normal()).unwrap();
        hf.add_special_tokens(special()).unwrap();
        let texts = [
            "Hello 😀 wörld ☃ 𝔘𝔫𝔦 \u{7} ok — 日本語のテキスト ♞♛ ∮ 〄 ﷽",
            "a  lsxq b rsxq   c [LSR]  d <|nrm|> e Hello Qworld f hello qworld NrmXq <|mine|>",
            "  \t leading space, \u{a0}odd\u{2003}whitespace, emoji 👩‍👩‍👧 and code: fn f() { x }",
        ];
        for tok in [base.clone(), base.without_own_engine()] {
            let engine = tok.encoding_engine();
            for text in texts {
                for add in [false, true] {
                    let want = hf.encode(text, add).unwrap();
                    let what = format!("{name} ({engine}) add={add} {text:?}");
                    named += want
                        .get_tokens()
                        .iter()
                        .zip(want.get_ids())
                        .filter(|(t, &id)| hf.id_to_token(id).as_deref() != Some(t.as_str()))
                        .count();
                    assert_eq!(tok.tokens(&tok.encode(text, add).unwrap()), want.get_tokens(), "{what}");
                    let opts = yieldtok::EncodeOptions {
                        add_special_tokens: add,
                        piece_bytes: Some(3),
                        output: yieldtok::Output::Full,
                        ..Default::default()
                    };
                    let got = tok.encode_with(text, &opts).unwrap().into_encoding().unwrap();
                    assert_eq!(tok.tokens(&got), want.get_tokens(), "{what} in 3-byte pieces");
                    let want = hf.encode((text, texts[0]), add).unwrap();
                    assert_eq!(
                        tok.tokens(&tok.encode_pair(text, texts[0], add).unwrap()),
                        want.get_tokens(),
                        "{what} pair"
                    );
                }
            }
            let pad = yieldtok::PaddingParams {
                strategy: yieldtok::PaddingStrategy::Fixed(200),
                direction: yieldtok::PaddingDirection::Left,
                pad_token: "<my-pad>".into(),
                ..Default::default()
            };
            let padded = tok.with_padding(Some(pad.clone()));
            let mut hf = hf.clone();
            hf.with_padding(Some(pad));
            for text in texts {
                let want = hf.encode(text, true).unwrap();
                assert_eq!(padded.tokens(&padded.encode(text, true).unwrap()), want.get_tokens(), "{name} left-padded");
            }
        }
    }
    // The texts do reach the tokens named by their text (Unigram unknowns, stripping tokens).
    assert!(named > 20, "{named}");
}
