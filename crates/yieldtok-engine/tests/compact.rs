//! The compact form (`Engine::to_bytes` / `Engine::from_bytes`): for every fixture, the engine
//! read back from its bytes gives the same ids, offsets and words as the engine loaded from
//! `tokenizer.json` (itself proven against `tokenizers` by `differential.rs`) on the
//! differential corpora, with and without the fast paths; writing it again gives the same
//! size. Truncated, bit-flipped, foreign-version and structurally corrupt bytes (a valid
//! checksum over altered payload) give `LoadError::Compact` or another typed error — never a
//! panic — and an engine that does load from altered payload still encodes without panicking.

use yieldtok_engine::load::LoadOptions;
use yieldtok_engine::{compact, Engine, LoadError, PieceOptions, Tokens};
use yieldtok_testkit::{corpus, fixtures};

fn json(name: &str) -> String {
    std::fs::read_to_string(fixtures::tokenizer_json(name).expect("fixture")).expect("read fixture")
}

fn texts(added: &[String]) -> Vec<String> {
    let mut v: Vec<String> = corpus::exactness(added).into_iter().map(|(_, t)| t).collect();
    v.push(corpus::generated(64 * 1024, 11));
    v.push(corpus::PROSE.join("\n"));
    v.push(corpus::json_text());
    v.push(corpus::TROUBLE.iter().flat_map(|a| corpus::TROUBLE.iter().map(move |b| format!("{a}{b}"))).collect());
    v
}

fn encode(e: &Engine, text: &str, continuation: bool) -> Tokens {
    let mut t = Tokens::default();
    e.encode(text, &PieceOptions { continuation, ..PieceOptions::default() }, &mut t).unwrap();
    t
}

#[test]
fn round_trip_gives_the_same_results_on_every_fixture() {
    std::thread::scope(|s| {
        for name in fixtures::NAMES {
            s.spawn(move || {
                let json = json(name);
                for fast_paths in [true, false] {
                    let engine = Engine::from_json_with(&json, LoadOptions { fast_paths }).unwrap();
                    let bytes = engine.to_bytes().unwrap();
                    let back = Engine::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
                    assert_eq!(back.describe(), engine.describe());
                    let added: Vec<String> = engine.added_tokens().map(String::from).collect();
                    assert_eq!(back.added_tokens().collect::<Vec<_>>(), added, "{name}");
                    for text in texts(&added) {
                        for continuation in [false, true] {
                            let (want, got) =
                                (encode(&engine, &text, continuation), encode(&back, &text, continuation));
                            assert!(
                                want == got,
                                "{name} (fast paths {fast_paths}): differs on {:?}",
                                &text[..text.len().min(80)]
                            );
                        }
                    }
                    assert_eq!(back.to_bytes().unwrap().len(), bytes.len(), "{name}: written again");
                }
            });
        }
    });
}

fn small_image() -> (String, Vec<u8>) {
    // The smallest BPE fixture keeps the many corrupt loads quick.
    let name = fixtures::NAMES.iter().min_by_key(|n| json(n).len()).unwrap();
    let bytes = Engine::from_json(&json(name)).unwrap().to_bytes().unwrap();
    (name.to_string(), bytes)
}

fn expect_compact_error(bytes: &[u8], what: &str) {
    match Engine::from_bytes(bytes) {
        Err(LoadError::Compact(_)) => {}
        Err(e) => panic!("{what}: another error {e}"),
        Ok(_) => panic!("{what}: loaded"),
    }
}

#[test]
fn truncated_and_flipped_bytes_are_refused() {
    let (_, bytes) = small_image();
    let mut rng = corpus::Rng(0xc0ffee);
    let mut cuts: Vec<usize> = (0..80).collect();
    cuts.extend((0..200).map(|_| rng.below(bytes.len())));
    for n in cuts {
        expect_compact_error(&bytes[..n], &format!("truncated to {n}"));
    }
    let mut longer = bytes.clone();
    longer.push(0);
    expect_compact_error(&longer, "one byte appended");
    for _ in 0..300 {
        let mut b = bytes.clone();
        let at = rng.below(b.len());
        b[at] ^= 1 << rng.below(8);
        expect_compact_error(&b, &format!("bit flip at {at}"));
    }
    for at in [8, 12] {
        let mut b = bytes.clone();
        b[at] ^= 1; // format version, engine version
        expect_compact_error(&b, &format!("version byte {at}"));
    }
    expect_compact_error(b"", "empty");
    expect_compact_error(b"{\"version\": \"1.0\"}", "JSON");
}

/// Altered payload with its checksum recomputed: the structural checks alone stand between
/// the bytes and the engine. Whatever loads must encode without panicking.
#[test]
fn altered_payload_with_a_valid_checksum_never_panics() {
    let (name, bytes) = small_image();
    let mut rng = corpus::Rng(0xbadbad);
    let text = corpus::PROSE.join("\n");
    let (mut refused, mut loaded) = (0, 0);
    for round in 0..400 {
        let mut b = bytes.clone();
        let payload = 32;
        // Mostly near the front (the small parts, lengths and flags), some anywhere.
        let span = if round % 2 == 0 { 4096.min(b.len() - payload) } else { b.len() - payload };
        for _ in 0..1 + rng.below(3) {
            let at = payload + rng.below(span);
            b[at] = if rng.below(2) == 0 { b[at] ^ (1 << rng.below(8)) } else { rng.below(256) as u8 };
        }
        let sum = compact::checksum(&b[payload..]);
        b[24..32].copy_from_slice(&sum.to_le_bytes());
        match std::panic::catch_unwind(|| Engine::from_bytes(&b).map(|e| encode(&e, &text, false).ids.len())) {
            Ok(Ok(_)) => loaded += 1,
            Ok(Err(_)) => refused += 1,
            Err(_) => panic!("{name}: round {round}: panicked"),
        }
    }
    assert!(refused > 50, "{name}: only {refused} of 400 altered images refused ({loaded} loaded)");
}
