//! [`Tokenizer`]: a loaded `tokenizers` tokenizer plus what yieldtok derives from it at load time
//! (cut rules, added-token matcher, the special-token frame for ids-only results, the model
//! folder's `tokenizer_config.json`), and the sync and async encode/decode API on top. What a
//! tokenizer holds is [`Inner`](crate::inner::Inner) (`inner.rs`, which jobs read too).

use std::sync::Arc;

use serde_json::Value;

use crate::config::TokenizerConfig;
use crate::encoding::{Encoding, TextNamed};
use crate::engine::own::OwnEngine;
use crate::error::{Error, Result};
#[cfg(not(target_arch = "wasm32"))]
use crate::inner::start_fast_engine;
use crate::inner::Inner;
use crate::job::{EncodeJob, EncodeOptions, JobOutput, Output, DEFAULT_PIECE_BYTES};
use crate::pipeline::SpecialFrame;
use crate::split::{added::AddedMatcher, CutRules, Family, Mode, Planner};

/// Why the own engine does not serve a tokenizer with `encode_special_tokens` on.
const ENCODE_SPECIAL_REASON: &str = "encode_special_tokens is on: tokenizers encodes special tokens as text";

/// Texts at least this long are encoded in parallel pieces by the sync API (native).
pub const PARALLEL_MIN_BYTES: usize = 64 * 1024;

/// Largest piece target the sync API's parallel path picks for the fast engine: a piece ends at
/// the first safe cut at or after its target, and one of
/// [`MAX_SERIAL_BYTES`](crate::engine::fast::MAX_SERIAL_BYTES) or more goes to the own engine.
#[cfg(not(target_arch = "wasm32"))]
const FAST_MAX_PIECE_TARGET: usize = 48 * 1024;

/// Parse `json` with `tokenizers` (one pass, see [`crate::load::reference`]) and build the own
/// engine from it: concurrently on native targets (load time is about the longer of the two, not
/// their sum), one after the other on wasm32 (or when no thread can be started).
fn parse_both(
    json: &str,
) -> (
    std::result::Result<(tokenizers::Tokenizer, Value), crate::error::BoxError>,
    std::result::Result<yieldtok_engine::Engine, String>,
) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::thread::scope(|s| {
            let own = std::thread::Builder::new()
                .name("yieldtok-engine-build".into())
                .spawn_scoped(s, || crate::engine::own::build(json));
            let parsed = crate::reference::parse(json);
            let own = match own {
                Ok(handle) => {
                    handle.join().unwrap_or_else(|_| Err("the yieldtok engine panicked while loading".into()))
                }
                Err(_) => crate::engine::own::build(json),
            };
            (parsed, own)
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        (crate::reference::parse(json), crate::engine::own::build(json))
    }
}

/// One input of a batch: a text, a pair of texts, or their pre-tokenized forms
/// (`tokenizers`' `EncodeInput` with `InputSequence::Raw` or `InputSequence::PreTokenized`).
#[derive(Debug, Clone)]
pub enum Input {
    Single(Arc<str>),
    Pair(Arc<str>, Arc<str>),
    /// A pre-tokenized sequence: its words (see [`Tokenizer::encode_words`]).
    Words(Arc<[Arc<str>]>),
    /// A pair of pre-tokenized sequences.
    WordsPair(Arc<[Arc<str>]>, Arc<[Arc<str>]>),
}

/// One sequence of an input: a text, or the words of a pre-tokenized one.
#[derive(Clone, Copy)]
enum Sequence<'a> {
    Text(&'a str),
    Words(&'a [Arc<str>]),
}

/// A tokenizer. Cloning is cheap (shared); every method takes `&self` and is thread-safe.
#[derive(Clone)]
pub struct Tokenizer {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("origin", &self.inner.origin)
            .field("vocab_size", &self.vocab_size(true))
            .field("chunking", &self.inner.planner.rules.describe())
            .finish()
    }
}

impl Tokenizer {
    /// Build from the text of a `tokenizer.json`. `origin` names it in errors and logs.
    pub fn from_json_str(json: &str, config: Option<TokenizerConfig>, origin: Option<String>) -> Result<Self> {
        Self::from_json_with(json, config, origin, false)
    }

    /// [`from_json_str`](Self::from_json_str), with `tokenizers`' `encode_special_tokens` set
    /// to `encode_special` on the reference before anything is derived from it (the
    /// added-token matcher then treats special tokens as text, see [`crate::split::added`]).
    /// With it on, only the reference engine serves: the own and the fast engine split special
    /// tokens out.
    fn from_json_with(
        json: &str,
        config: Option<TokenizerConfig>,
        origin: Option<String>,
        encode_special: bool,
    ) -> Result<Self> {
        Self::from_json_around(json, None, config, origin, encode_special)
    }

    /// [`from_json_with`](Self::from_json_with), with `reference` (when given) as the
    /// reference tokenizer in place of `tokenizers`' parse of `json` (which is its
    /// serialization).
    fn from_json_around(
        json: &str,
        reference: Option<&tokenizers::Tokenizer>,
        config: Option<TokenizerConfig>,
        origin: Option<String>,
        encode_special: bool,
    ) -> Result<Self> {
        let (parsed, own) = parse_both(json);
        let (mut tok, mut json_view) = parsed.map_err(|e| Error::invalid_tokenizer_from(origin.clone(), e))?;
        if let Some(reference) = reference {
            tok = reference.clone();
        }
        let own = if encode_special {
            tok.set_encode_special_tokens(true);
            Err(ENCODE_SPECIAL_REASON.to_string())
        } else {
            own
        };
        // Truncation and padding are applied after assembly (`crate::post`), not per piece:
        // they do not stop chunking.
        if let Some(view) = json_view.as_object_mut() {
            view.insert("truncation".into(), Value::Null);
            view.insert("padding".into(), Value::Null);
        }
        let made = Self::from_parts(tok, own, &json_view, config, origin)?;
        Ok(if encode_special {
            made.rebuild(|inner| inner.fast = Arc::new(crate::engine::FastSlot::disabled(ENCODE_SPECIAL_REASON)))
        } else {
            made
        })
    }

    /// This tokenizer rebuilt around `tok` (this one's reference after a change to its added
    /// vocabulary or its `encode_special_tokens`): serialized and loaded again as at any load,
    /// so every engine, the cut rules and the added-token matcher are derived from the changed
    /// vocabulary exactly as for a `tokenizer.json` that had it, with this tokenizer's config,
    /// origin, truncation/padding/overflowing settings, piece size and scheduler kept.
    fn rebuilt_around(&self, tok: &tokenizers::Tokenizer) -> Result<Self> {
        let i = &*self.inner;
        let json = tok.to_string(false).map_err(Error::tokenize)?;
        // `tok` itself is the reference: `tokenizers`' parse of its own JSON renumbers added
        // tokens that follow a gap in the vocabulary (gpt4o, ids up to 200018 in 200000
        // entries: a token added as 200019 comes back as 200000), so the reparse would not be
        // the tokenizer Python `tokenizers` holds after the same call.
        let made = Self::from_json_around(
            &json,
            Some(tok),
            i.config.clone(),
            i.origin.clone(),
            tok.get_encode_special_tokens(),
        )?;
        let fast_off = i.fast.unavailable().filter(|why| why.starts_with("turned off")).map(str::to_string);
        let own_off = i.own.as_ref().err().filter(|why| why.starts_with("turned off")).cloned();
        Ok(made.rebuild(|inner| {
            inner.settings = i.settings.clone();
            inner.default_piece_bytes = i.default_piece_bytes;
            #[cfg(not(target_arch = "wasm32"))]
            {
                inner.scheduler = i.scheduler.clone();
            }
            if let Some(why) = fast_off {
                inner.fast = Arc::new(crate::engine::FastSlot::disabled(&why));
            }
            if let Some(why) = own_off {
                inner.own = Err(why);
            }
        }))
    }

    /// `tokenizers`' `add_tokens`: a tokenizer with `tokens` added to the vocabulary (new ids
    /// after the last; a token the vocabulary already has only updates its flags), and how
    /// many were added. The addition is `tokenizers`' own, on a copy of the reference; the
    /// result is then rebuilt from its `tokenizer.json` (see `rebuilt_around`), so encodes
    /// equal `tokenizers`' after the same call. This tokenizer is unchanged.
    pub fn with_added_tokens(&self, tokens: &[crate::AddedToken]) -> Result<(Self, usize)> {
        let mut tok = (*self.inner.tok).clone();
        let n = tok.add_tokens(tokens.iter().cloned()).map_err(Error::tokenize)?;
        Ok((self.rebuilt_around(&tok)?, n))
    }

    /// `tokenizers`' `add_special_tokens`: as [`with_added_tokens`](Self::with_added_tokens),
    /// the tokens added as special tokens (skipped by `decode(.., skip_special_tokens)`).
    pub fn with_added_special_tokens(&self, tokens: &[crate::AddedToken]) -> Result<(Self, usize)> {
        let mut tok = (*self.inner.tok).clone();
        let n = tok.add_special_tokens(tokens.iter().cloned()).map_err(Error::tokenize)?;
        Ok((self.rebuilt_around(&tok)?, n))
    }

    /// `tokenizers`' `encode_special_tokens` setter: with `true`, special tokens in the text
    /// are encoded as text (`"<|im_end|>"` becomes the tokens of its characters), as
    /// `tokenizers` does; the post-processor's special tokens are still added. Such a
    /// tokenizer encodes with the reference engine only (chunked where the cut rules allow:
    /// no cut falls inside a special token's text). Not kept by [`to_json`](Self::to_json),
    /// as in `tokenizers` (its `tokenizer.json` has no such field).
    pub fn with_encode_special_tokens(&self, value: bool) -> Result<Self> {
        if value == self.encode_special_tokens() {
            return Ok(self.clone());
        }
        let mut tok = (*self.inner.tok).clone();
        tok.set_encode_special_tokens(value);
        self.rebuilt_around(&tok)
    }

    /// `tokenizers`' `encode_special_tokens` getter.
    pub fn encode_special_tokens(&self) -> bool {
        self.inner.tok.get_encode_special_tokens()
    }

    fn from_parts(
        mut tok: tokenizers::Tokenizer,
        own: std::result::Result<yieldtok_engine::Engine, String>,
        structure: &Value,
        config: Option<TokenizerConfig>,
        origin: Option<String>,
    ) -> Result<Self> {
        // Truncation and padding from `tokenizer.json` move to the settings: the reference
        // tokenizer that chunked pieces and checks run through never truncates or pads.
        let settings = crate::post::Settings {
            truncation: tok.get_truncation().cloned(),
            padding: tok.get_padding().cloned(),
            drop_overflowing: false,
        };
        tok.with_truncation(None).map_err(|e| Error::invalid_tokenizer_from(origin.clone(), e))?;
        tok.with_padding(None);
        let range_shape = [crate::post::RangeShape::probe(&tok, false), crate::post::RangeShape::probe(&tok, true)];
        let added = AddedMatcher::new(&tok).map_err(|message| Error::invalid_tokenizer(origin.clone(), message))?;
        let mut rules = crate::split::classify::classify(structure, &tok);
        if rules.continuation.is_some() && added.has_inexact() {
            rules = CutRules::unchunked("continuation mode with added tokens that strip or match single words");
        }
        let mut planner = Planner { rules, added };
        if planner.rules.is_chunked() {
            let sample = crate::selfcheck::sample(&tok);
            if let Err(why) = crate::selfcheck::self_check(&tok, &planner, &sample) {
                log::warn!(
                    "yieldtok: chunking disabled for {}: self-check failed: {why}",
                    origin.as_deref().unwrap_or("tokenizer")
                );
                planner.rules = CutRules::unchunked(format!("self-check failed: {why}"));
            }
        }
        let frame = SpecialFrame::probe(&tok);
        let named = TextNamed::of(&tok, unigram_unk(structure));
        let who = origin.as_deref().unwrap_or("tokenizer");
        let own = own.and_then(|engine| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                OwnEngine::verify(engine, &tok, &named, &planner, &range_shape)
            }))
            .unwrap_or_else(|_| Err("the yieldtok engine panicked in its load-time check".into()))
            .map_err(|why| format!("load-time check against tokenizers failed: {why}"))
        });
        match &own {
            Ok(e) => log::info!("yieldtok: the yieldtok engine serves {who} ({})", e.describe()),
            Err(why) => log::info!("yieldtok: the reference engine (tokenizers) serves {who}: {why}"),
        }
        log::info!("yieldtok: loaded {who} — chunking: {}", planner.rules.describe());
        let own = own.map(Arc::new);
        Ok(Tokenizer {
            inner: Arc::new_cyclic(|me| Inner {
                me: me.clone(),
                tok: Arc::new(tok),
                settings,
                range_shape,
                config,
                planner,
                frame,
                named,
                default_piece_bytes: DEFAULT_PIECE_BYTES,
                origin,
                templates: Default::default(),
                fast: Default::default(),
                own,
                #[cfg(not(target_arch = "wasm32"))]
                scheduler: crate::Scheduler::global().clone(),
            }),
        })
    }

    /// Use another scheduler (thread pool) for this tokenizer's async and parallel work.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_scheduler(&self, scheduler: crate::Scheduler) -> Self {
        self.rebuild(|inner| inner.scheduler = scheduler)
    }

    /// Whether the fast engine (fastokens, native) may serve ids-only work; with `false` the
    /// own engine (or the reference) serves it. For benchmarks and tests that compare engines.
    pub fn with_fast_engine(&self, enabled: bool) -> Self {
        self.rebuild(|inner| {
            inner.fast = Arc::new(if enabled {
                Default::default()
            } else {
                crate::engine::FastSlot::disabled("turned off by with_fast_engine(false)")
            })
        })
    }

    /// This tokenizer with the own engine (`yieldtok-engine`) turned off: `tokenizers` encodes
    /// every full piece (and ids, unless fastokens serves them), as when the engine refuses a
    /// tokenizer. For benchmarks and tests that compare engines.
    pub fn without_own_engine(&self) -> Self {
        self.rebuild(|inner| inner.own = Err("turned off by without_own_engine()".into()))
    }

    /// Use another default piece size (bytes) for jobs and async encodes.
    pub fn with_piece_bytes(&self, bytes: usize) -> Self {
        self.rebuild(|inner| inner.default_piece_bytes = bytes.max(1))
    }

    /// `tokenizers`' `with_truncation`: a tokenizer (sharing everything else with this one)
    /// whose `encode`, `encode_ids`, `encode_pair` and batches truncate with `params`, or
    /// never (`None`). [`Error::InvalidArgument`] when the stride is not below the effective
    /// max length (`max_length` minus the special tokens of a single text), as `tokenizers`.
    /// [`count`](Self::count), chat templates and trajectories never truncate.
    pub fn with_truncation(&self, params: Option<crate::TruncationParams>) -> Result<Self> {
        if let Some(p) = &params {
            crate::post::check_truncation(&self.inner.tok, p)?;
        }
        Ok(self.rebuild(|inner| inner.settings.truncation = params))
    }

    /// `tokenizers`' `with_padding`: a tokenizer whose encodes pad with `params` (a batch to
    /// its longest item for `BatchLongest`), or never (`None`). Like truncation, padding
    /// leaves [`count`](Self::count), chat templates and trajectories alone.
    pub fn with_padding(&self, params: Option<crate::PaddingParams>) -> Self {
        self.rebuild(|inner| inner.settings.padding = params)
    }

    /// A tokenizer whose truncated encodes report no `overflowing` parts (`keep: false`), or
    /// do, as `tokenizers` always does (`keep: true`, the default). Without them, right
    /// truncation of a single text **stops early**: the text's pieces are encoded in order
    /// only until the tokens kept are certain (see [`crate::job`]), with every other field
    /// exactly `tokenizers`' result. transformers' `tokenizer(text, truncation=True,
    /// max_length=n)` without `return_overflowing_tokens` needs nothing more. Ids-only encodes
    /// ([`encode_ids`](Self::encode_ids), [`Output::Ids`]) report no overflowing parts in any
    /// case, so they always stop early.
    pub fn with_overflowing(&self, keep: bool) -> Self {
        self.rebuild(|inner| inner.settings.drop_overflowing = !keep)
    }

    /// Whether truncated encodes report `overflowing` ([`with_overflowing`](Self::with_overflowing)).
    pub fn keeps_overflowing(&self) -> bool {
        !self.inner.settings.drop_overflowing
    }

    /// The truncation in force (`tokenizers`' `get_truncation`), from
    /// [`with_truncation`](Self::with_truncation) or `tokenizer.json`.
    pub fn truncation(&self) -> Option<&crate::TruncationParams> {
        self.inner.settings.truncation.as_ref()
    }

    /// The padding in force (`tokenizers`' `get_padding`).
    pub fn padding(&self) -> Option<&crate::PaddingParams> {
        self.inner.settings.padding.as_ref()
    }

    fn rebuild(&self, f: impl FnOnce(&mut Inner)) -> Self {
        let i = &*self.inner;
        let mut inner = Inner {
            me: std::sync::Weak::new(),
            tok: i.tok.clone(),
            settings: i.settings.clone(),
            range_shape: i.range_shape.clone(),
            config: i.config.clone(),
            planner: i.planner.clone(),
            frame: i.frame.clone(),
            named: i.named.clone(),
            default_piece_bytes: i.default_piece_bytes,
            origin: i.origin.clone(),
            templates: Default::default(),
            fast: i.fast.clone(),
            own: i.own.clone(),
            #[cfg(not(target_arch = "wasm32"))]
            scheduler: i.scheduler.clone(),
        };
        f(&mut inner);
        Tokenizer {
            inner: Arc::new_cyclic(|me| {
                inner.me = me.clone();
                inner
            }),
        }
    }

    /// The wrapped `tokenizers` tokenizer (the reference engine).
    pub fn hf(&self) -> &tokenizers::Tokenizer {
        &self.inner.tok
    }

    /// `tokenizer_config.json`, when the tokenizer was loaded from a model folder.
    pub fn config(&self) -> Option<&TokenizerConfig> {
        self.inner.config.as_ref()
    }

    /// Where the tokenizer came from (path or description).
    pub fn origin(&self) -> Option<&str> {
        self.inner.origin.as_deref()
    }

    /// The cut rules in force (family, rules, or why the tokenizer is not chunked).
    pub fn cut_rules(&self) -> &CutRules {
        &self.inner.planner.rules
    }

    /// The chunking family.
    pub fn family(&self) -> &Family {
        &self.inner.planner.rules.family
    }

    /// The engine that serves ids-only work (`encode_ids`, `count`, ids-only jobs) right now:
    /// `"fastokens"` once the fast engine is loaded and verified (native; llama2-style
    /// continuation pieces, and pieces of 64 KiB or more, still go to the own engine), else `"yieldtok"` when the own engine
    /// serves this tokenizer (see [`encoding_engine`](Self::encoding_engine)), else
    /// `"tokenizers"` (the reference).
    pub fn engine(&self) -> &'static str {
        if self.inner.fast_serves(Output::Ids) {
            return "fastokens";
        }
        self.encoding_engine()
    }

    /// The engine that serves full encodings (ids, offsets, masks): `"yieldtok"` (the own
    /// engine, verified against `tokenizers` at load) or `"tokenizers"` (the reference, when
    /// the own engine refused this tokenizer: see
    /// [`encoding_engine_unavailable_reason`](Self::encoding_engine_unavailable_reason)).
    pub fn encoding_engine(&self) -> &'static str {
        if self.inner.own().is_some() {
            "yieldtok"
        } else {
            "tokenizers"
        }
    }

    /// Why the own engine does not serve this tokenizer (`None` when it does).
    pub fn encoding_engine_unavailable_reason(&self) -> Option<&str> {
        self.inner.own.as_ref().err().map(String::as_str)
    }

    /// Why the fast engine (fastokens) does not serve this tokenizer (`None` while it loads or
    /// once ready).
    pub fn engine_unavailable_reason(&self) -> Option<&str> {
        self.inner.fast.unavailable()
    }

    /// Load the fast engine now (it otherwise loads on first ids-only use) and block until it
    /// is ready or ruled out (native); returns [`engine`](Self::engine). For tests, benchmarks
    /// and servers that want it warm before the first request.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn wait_for_engine(&self) -> &'static str {
        start_fast_engine(&self.inner);
        self.inner.fast.here().engine.wait();
        self.engine()
    }

    pub fn vocab_size(&self, with_added_tokens: bool) -> usize {
        self.inner.tok.get_vocab_size(with_added_tokens)
    }

    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.inner.tok.token_to_id(token)
    }

    pub fn id_to_token(&self, id: u32) -> Option<String> {
        self.inner.tok.id_to_token(id)
    }

    /// Serialize the tokenizer back to `tokenizer.json` text (e.g. for pickling).
    pub fn to_json(&self) -> Result<String> {
        self.to_json_with(false)
    }

    /// `tokenizers`' `to_str(pretty)`: the `tokenizer.json` text, indented when `pretty`.
    /// A model vocabulary whose ids leave more than [`max_id_holes`](crate::max_id_holes)
    /// unused ids below the largest is refused (`tokenizers` would allocate by the largest id).
    pub fn to_json_with(&self, pretty: bool) -> Result<String> {
        crate::engine::check_id_range(self.inner.tok.get_vocab(false).into_values(), "model vocabulary").map_err(
            |why| {
                Error::invalid_tokenizer(
                    self.inner.origin.clone(),
                    format!("cannot be written as tokenizer.json: {why}"),
                )
            },
        )?;
        let s = &self.inner.settings;
        if s.is_empty() {
            return self.inner.tok.to_string(pretty).map_err(Error::tokenize);
        }
        let mut tok = (*self.inner.tok).clone();
        tok.with_truncation(s.truncation.clone()).map_err(Error::tokenize)?;
        tok.with_padding(s.padding.clone());
        tok.to_string(pretty).map_err(Error::tokenize)
    }

    /// `tokenizers`' `save(path, pretty)`: write the `tokenizer.json` text to `path`.
    pub fn save(&self, path: &std::path::Path, pretty: bool) -> Result<()> {
        let json = self.to_json_with(pretty)?;
        std::fs::write(path, json).map_err(|source| Error::Write { path: path.to_path_buf(), source })
    }

    /// Everything this tokenizer was loaded with, as one JSON text that
    /// [`from_bundle`](Self::from_bundle) reads back to an equal tokenizer: the `tokenizer.json`
    /// (added tokens, truncation and padding in force included), the `tokenizer_config.json`
    /// (special tokens, sides, `model_max_length`, the chat templates in force, see
    /// [`TokenizerConfig::to_json`]), the origin and the piece size. What bindings pickle
    /// (`tokenizer.json` alone loses the config: no chat template in a spawned worker).
    pub fn to_bundle(&self) -> Result<String> {
        let bundle = serde_json::json!({
            "yieldtok_bundle": 1,
            "tokenizer": self.to_json()?,
            "config": self.inner.config.as_ref().map(TokenizerConfig::to_json),
            "origin": self.inner.origin,
            "piece_bytes": self.inner.default_piece_bytes,
        });
        Ok(bundle.to_string())
    }

    /// Read a [`to_bundle`](Self::to_bundle) text back (the tokenizer is built again and
    /// checked as at any load).
    pub fn from_bundle(text: &str) -> Result<Self> {
        let bad = |message: String| Error::invalid_tokenizer(None, message);
        let v: Value = serde_json::from_str(text).map_err(|e| bad(format!("not a yieldtok bundle: {e}")))?;
        if v.get("yieldtok_bundle").and_then(Value::as_u64) != Some(1) {
            return Err(bad("not a yieldtok bundle (version 1)".into()));
        }
        let json = v.get("tokenizer").and_then(Value::as_str).ok_or_else(|| bad("bundle without tokenizer".into()))?;
        let origin = v.get("origin").and_then(Value::as_str).map(str::to_string);
        let config = match v.get("config") {
            None | Some(Value::Null) => None,
            Some(Value::String(c)) => Some(TokenizerConfig::from_str(c, origin.as_deref())?),
            Some(_) => return Err(bad("bundle config is not a string".into())),
        };
        let tok = Self::from_json_str(json, config, origin)?;
        Ok(match v.get("piece_bytes").and_then(Value::as_u64) {
            Some(n) if n as usize != tok.inner.default_piece_bytes => tok.with_piece_bytes(n as usize),
            _ => tok,
        })
    }

    /// transformers' `convert_tokens_to_string`: the decoder over `tokens` (joined with spaces
    /// when the tokenizer has no decoder).
    pub fn tokens_to_string(&self, tokens: Vec<String>) -> Result<String> {
        use tokenizers::Decoder as _;
        match self.inner.tok.get_decoder() {
            Some(d) => d.decode(tokens).map_err(Error::tokenize),
            None => Ok(tokens.join(" ")),
        }
    }

    /// `tokenizers`' `get_vocab(with_added_tokens)`: token -> id.
    pub fn vocab(&self, with_added_tokens: bool) -> std::collections::HashMap<String, u32> {
        self.inner.tok.get_vocab(with_added_tokens)
    }

    /// `tokenizers`' `get_added_tokens_decoder()`: id -> added token, ordered by id.
    pub fn added_tokens_decoder(&self) -> std::collections::BTreeMap<u32, tokenizers::AddedToken> {
        self.inner.tok.get_added_tokens_decoder().into_iter().collect()
    }

    // ---- sync encode -------------------------------------------------------------------

    /// Encode like `tokenizers`' `encode(text, add_special_tokens)`: same ids, byte offsets and
    /// masks, the tokenizer's truncation and padding applied (overflowing parts included).
    /// Long texts are encoded in parallel pieces on native targets.
    pub fn encode(&self, text: &str, add_special_tokens: bool) -> Result<Encoding> {
        let opts = EncodeOptions { add_special_tokens, ..Default::default() };
        Ok(self.encode_with(text, &opts)?.into_encoding().expect("full output requested"))
    }

    /// Ids only (skips offsets; faster): the ids of [`encode`](Self::encode), truncated and
    /// padded like them.
    pub fn encode_ids(&self, text: &str, add_special_tokens: bool) -> Result<Vec<u32>> {
        let opts = EncodeOptions { add_special_tokens, output: Output::Ids, ..Default::default() };
        Ok(self.encode_with(text, &opts)?.into_ids())
    }

    /// Number of tokens of `text` (with the post-processor's special tokens when
    /// `add_special_tokens`), **before** truncation and padding: what `encode` gives with them
    /// off. A length check against a context window needs the whole length; with truncation
    /// on, `len(encode(text).ids)` is the truncated one.
    pub fn count(&self, text: &str, add_special_tokens: bool) -> Result<usize> {
        let opts =
            EncodeOptions { add_special_tokens, output: Output::Ids, truncate_and_pad: false, ..Default::default() };
        Ok(self.encode_with(text, &opts)?.ids().len())
    }

    /// [`encode`](Self::encode) with truncation and padding off (chat templates, trajectories).
    pub(crate) fn encode_plain(&self, text: &str, add_special_tokens: bool) -> Result<Encoding> {
        let opts = EncodeOptions { add_special_tokens, truncate_and_pad: false, ..Default::default() };
        Ok(self.encode_with(text, &opts)?.into_encoding().expect("full output requested"))
    }

    /// [`encode_ids`](Self::encode_ids) with truncation and padding off.
    pub(crate) fn encode_ids_plain(&self, text: &str, add_special_tokens: bool) -> Result<Vec<u32>> {
        let opts =
            EncodeOptions { add_special_tokens, output: Output::Ids, truncate_and_pad: false, ..Default::default() };
        Ok(self.encode_with(text, &opts)?.into_ids())
    }

    /// Encode a pair of texts like `tokenizers`' `encode((first, second), add_special_tokens)`:
    /// each text encoded (chunked, in parallel when long) without special tokens, the second
    /// with type id 1, then `tokenizers`' own truncation, post-processor (the pair template)
    /// and padding on the two (see [`crate::post`]). Offsets of sequence 1 are into `second`.
    pub fn encode_pair(&self, first: &str, second: &str, add_special_tokens: bool) -> Result<Encoding> {
        let opts = EncodeOptions { add_special_tokens, ..Default::default() };
        self.encode_pair_until(first, second, &opts, None)
    }

    /// [`encode_pair`](Self::encode_pair) with explicit options, stopping once `cancel` is set
    /// (`opts.output` is ignored: a pair's result is always full).
    pub fn encode_pair_with_cancel(
        &self,
        first: &str,
        second: &str,
        opts: &EncodeOptions,
        cancel: &crate::CancelFlag,
    ) -> Result<Encoding> {
        self.encode_pair_until(first, second, opts, Some(cancel))
    }

    fn encode_pair_until(
        &self,
        first: &str,
        second: &str,
        opts: &EncodeOptions,
        cancel: Option<&crate::CancelFlag>,
    ) -> Result<Encoding> {
        self.encode_sequences(Sequence::Text(first), Some(Sequence::Text(second)), opts, cancel)
    }

    /// Encode a pre-tokenized sequence like `tokenizers`' `encode(words, add_special_tokens)`
    /// with `InputSequence::PreTokenized` (Python: `encode(words, is_pretokenized=True)`):
    /// each word is encoded on its own as a text would be (normalizer, added tokens,
    /// pre-tokenizer, model: chunked when long), every token of word `i` gets word id `i`, the
    /// words' tokens are concatenated with offsets **into their own word** (not into a joined
    /// text: `tokenizers` merges them without shifting), then the post-processor, truncation
    /// and padding apply as for a text. An empty word has no tokens, and its index is skipped.
    pub fn encode_words<S: AsRef<str>>(&self, words: &[S], add_special_tokens: bool) -> Result<Encoding> {
        let words: Vec<Arc<str>> = words.iter().map(|w| Arc::from(w.as_ref())).collect();
        let opts = EncodeOptions { add_special_tokens, ..Default::default() };
        self.encode_sequences(Sequence::Words(&words), None, &opts, None)
    }

    /// A pair of pre-tokenized sequences, like `tokenizers`' `encode((words, pair_words), ..)`:
    /// each as [`encode_words`](Self::encode_words) (the second with type id 1), then the
    /// pair template, truncation and padding as for [`encode_pair`](Self::encode_pair).
    pub fn encode_words_pair<S: AsRef<str>>(
        &self,
        first: &[S],
        second: &[S],
        add_special_tokens: bool,
    ) -> Result<Encoding> {
        let own = |w: &[S]| -> Vec<Arc<str>> { w.iter().map(|w| Arc::from(w.as_ref())).collect() };
        let (a, b) = (own(first), own(second));
        let opts = EncodeOptions { add_special_tokens, ..Default::default() };
        self.encode_sequences(Sequence::Words(&a), Some(Sequence::Words(&b)), &opts, None)
    }

    /// One or two sequences through `tokenizers`' `encode`: each encoded without special
    /// tokens (`encode_single_sequence`, the second with type id 1), then
    /// [`crate::post::finish`] (truncation, post-processor, padding) on the two. Always full
    /// output (`opts.output` is ignored).
    fn encode_sequences(
        &self,
        first: Sequence<'_>,
        second: Option<Sequence<'_>>,
        opts: &EncodeOptions,
        cancel: Option<&crate::CancelFlag>,
    ) -> Result<Encoding> {
        // Each sequence is encoded whole (`truncate_and_pad: false`: no early stop; the
        // truncation below needs the lengths and the overflowing parts).
        let a = self.raw_sequence(first, 0, opts, cancel)?;
        let b = second.map(|s| self.raw_sequence(s, 1, opts, cancel)).transpose()?;
        let none = crate::post::Settings::default();
        let settings = if opts.truncate_and_pad { &self.inner.settings } else { &none };
        crate::post::finish(&self.inner.tok, settings, a, b, opts.add_special_tokens, &self.inner.named)
    }

    /// `tokenizers`' `encode_single_sequence(sequence, type_id, ..)`: the sequence's tokens
    /// before post-processing. A text is one chunked job; a pre-tokenized sequence one job per
    /// word (in parallel on the pool when the words are long in all), every token of word `i`
    /// with word id `i`, merged with each word's offsets kept (`Encoding::merge(.., false)`,
    /// what `tokenizers` collects the words' encodings with). With `opts.char_offsets`, offsets
    /// are converted to chars of their own text (each word's, for words), as Python
    /// `tokenizers`' `encode_char_offsets` does.
    fn raw_sequence(
        &self,
        seq: Sequence<'_>,
        type_id: u32,
        opts: &EncodeOptions,
        cancel: Option<&crate::CancelFlag>,
    ) -> Result<tokenizers::Encoding> {
        let raw =
            EncodeOptions { add_special_tokens: false, output: Output::Full, truncate_and_pad: false, ..opts.clone() };
        let one = |text: &str, word: Option<u32>| -> Result<tokenizers::Encoding> {
            let mut enc = self.run_job(text, &raw, cancel)?.finish_raw(type_id)?;
            if opts.char_offsets {
                let chars = crate::encoding::byte_to_char_offsets(text, enc.get_offsets());
                enc.get_offsets_mut().copy_from_slice(&chars);
            }
            if let Some(w) = word {
                enc.get_word_ids_mut().fill(Some(w));
            }
            Ok(enc)
        };
        match seq {
            Sequence::Text(text) => one(text, None),
            Sequence::Words(words) => {
                let indexed: Vec<(u32, &str)> = words.iter().enumerate().map(|(i, w)| (i as u32, &**w)).collect();
                let bytes: usize = words.iter().map(|w| w.len()).sum();
                let parts = if bytes >= PARALLEL_MIN_BYTES && words.len() > 1 {
                    self.map_batch(&indexed, |&(i, w)| one(w, Some(i)))?
                } else {
                    indexed.iter().map(|&(i, w)| one(w, Some(i))).collect::<Result<Vec<_>>>()?
                };
                Ok(tokenizers::Encoding::merge(parts, false))
            }
        }
    }

    /// One input of a batch: a text, a pair of texts, or their pre-tokenized forms
    /// ([`encode_words`](Self::encode_words)); with `opts.char_offsets`, offsets of pairs and
    /// pre-tokenized input in chars of their own text (each word's).
    pub fn encode_input_with_cancel(
        &self,
        input: &Input,
        opts: &EncodeOptions,
        cancel: &crate::CancelFlag,
    ) -> Result<JobOutput> {
        let (first, second) = match input {
            Input::Single(t) => return self.encode_with_cancel(t, opts, cancel),
            Input::Pair(a, b) => (Sequence::Text(a), Some(Sequence::Text(b))),
            Input::Words(w) => (Sequence::Words(w), None),
            Input::WordsPair(a, b) => (Sequence::Words(a), Some(Sequence::Words(b))),
        };
        let enc = self.encode_sequences(first, second, opts, Some(cancel))?;
        Ok(match opts.output {
            Output::Full => JobOutput::Full(enc),
            Output::Ids => JobOutput::Ids(enc.ids),
        })
    }

    /// A batch of texts, pairs and pre-tokenized inputs, like `tokenizers`' `encode_batch`: in parallel, each
    /// truncated and padded, then padded over the batch (its longest item for
    /// `BatchLongest`). Stops once `cancel` is set.
    pub fn encode_inputs_with_cancel(
        &self,
        inputs: &[Input],
        opts: &EncodeOptions,
        cancel: &crate::CancelFlag,
    ) -> Result<Vec<JobOutput>> {
        let mut outs = self.map_batch(inputs, |i| self.encode_input_with_cancel(i, opts, cancel))?;
        self.pad_outputs(&mut outs, opts);
        Ok(outs)
    }

    /// [`encode_inputs_with_cancel`](Self::encode_inputs_with_cancel) as one task on the
    /// scheduler (dropping the future cancels it).
    pub fn encode_inputs_async(&self, inputs: Vec<Input>, opts: EncodeOptions) -> crate::TaskFuture<Vec<JobOutput>> {
        self.spawn_cancellable(move |tok, cancel| tok.encode_inputs_with_cancel(&inputs, &opts, cancel))
    }

    /// Pad a batch's outputs to one another as the tokenizer's padding says (nothing when
    /// none is set): what [`encode_inputs_with_cancel`](Self::encode_inputs_with_cancel) does
    /// once every item is encoded, truncated and padded on its own. For a front end that runs
    /// a batch's [`job`](Self::job)s itself (the browser's sliced `encodeBatch`).
    pub fn pad_batch(&self, outs: &mut [JobOutput]) {
        if let Some(pad) = &self.inner.settings.padding {
            crate::job::pad_outputs(outs, pad);
        }
    }

    fn pad_outputs(&self, outs: &mut [JobOutput], opts: &EncodeOptions) {
        if let (true, Some(pad)) = (opts.truncate_and_pad, &self.inner.settings.padding) {
            crate::job::pad_outputs(outs, pad);
        }
    }

    fn batch_padding(&self) -> Option<crate::PaddingParams> {
        self.inner.settings.padding.clone()
    }

    /// Encode with explicit options, on the calling thread for short texts and in parallel
    /// pieces on the scheduler's pool for long ones.
    pub fn encode_with(&self, text: &str, opts: &EncodeOptions) -> Result<JobOutput> {
        self.encode_until(text, opts, None)
    }

    /// [`encode_with`](Self::encode_with) that stops once `cancel` is set ([`Error::Cancelled`]):
    /// between pieces, and on the own engine inside a running piece too (a text without a safe
    /// cut is one piece). How a front end makes a long blocking encode interruptible.
    pub fn encode_with_cancel(
        &self,
        text: &str,
        opts: &EncodeOptions,
        cancel: &crate::CancelFlag,
    ) -> Result<JobOutput> {
        self.encode_until(text, opts, Some(cancel))
    }

    /// [`encode_with_cancel`](Self::encode_with_cancel) of a text the caller already holds
    /// shared: the job keeps it as it is (a `&str` is copied into the job).
    pub fn encode_shared_with_cancel(
        &self,
        text: Arc<str>,
        opts: &EncodeOptions,
        cancel: &crate::CancelFlag,
    ) -> Result<JobOutput> {
        self.encode_until(text, opts, Some(cancel))
    }

    fn encode_until<T: AsRef<str> + Into<Arc<str>>>(
        &self,
        text: T,
        opts: &EncodeOptions,
        cancel: Option<&crate::CancelFlag>,
    ) -> Result<JobOutput> {
        self.run_job(text, opts, cancel)?.finish()
    }

    /// A job over `text`, run to its end: in parallel pieces when long (native).
    fn run_job<T: AsRef<str> + Into<Arc<str>>>(
        &self,
        text: T,
        opts: &EncodeOptions,
        cancel: Option<&crate::CancelFlag>,
    ) -> Result<EncodeJob> {
        if cancel.is_some_and(crate::CancelFlag::is_cancelled) {
            return Err(Error::Cancelled);
        }
        let len = text.as_ref().len();
        #[cfg(not(target_arch = "wasm32"))]
        if len >= PARALLEL_MIN_BYTES && self.inner.planner.rules.is_chunked() {
            let threads = self.inner.scheduler.threads().max(1);
            // Pieces for the fast engine stay under its serial bound (a piece ends at the first
            // safe cut at or after its target, so the target leaves room).
            let max = if self.inner.fast_serves(opts.output) { FAST_MAX_PIECE_TARGET } else { 1 << 20 };
            let piece = opts.piece_bytes.unwrap_or_else(|| (len / (threads * 4)).clamp(16 * 1024, max));
            let job = self.job_until(text.into(), EncodeOptions { piece_bytes: Some(piece), ..opts.clone() }, cancel);
            job.run_parallel();
            return Ok(job);
        }
        // One piece on native (the parallel path above handles long texts); on wasm32 long
        // texts in 64 KB pieces, which measured faster than one whole-text call there.
        let whole = if cfg!(target_arch = "wasm32") && len >= PARALLEL_MIN_BYTES { 64 * 1024 } else { usize::MAX };
        let job = self.job_until(
            text.into(),
            EncodeOptions { piece_bytes: Some(opts.piece_bytes.unwrap_or(whole)), ..opts.clone() },
            cancel,
        );
        job.step(crate::job::Budget::UNLIMITED);
        Ok(job)
    }

    /// The pieces a job over `text` would encode, with target size `piece_bytes`: byte ranges
    /// and whether each is a continuation piece. For tests, fuzzing and inspection.
    pub fn plan(&self, text: &str, piece_bytes: usize) -> Vec<(std::ops::Range<usize>, bool)> {
        let mut cur = crate::split::ZoneCursor::default();
        let mut out = Vec::new();
        let mut start = 0;
        while start < text.len() {
            let (end, mode) = self.inner.planner.next_piece(text, start, piece_bytes.max(1), &mut cur);
            out.push((start..end, mode == Mode::Continuation));
            start = end;
        }
        out
    }

    /// A job whose cancel flag is the caller's `cancel` (if any), so that setting it stops a
    /// running own-engine piece too, not only the pieces not yet claimed.
    fn job_until(&self, text: Arc<str>, opts: EncodeOptions, cancel: Option<&crate::CancelFlag>) -> EncodeJob {
        let flag = cancel.cloned().unwrap_or_default();
        EncodeJob::with_cancel(self.inner.clone(), text, opts, flag)
    }

    /// A job over `text`, to advance by hand ([`EncodeJob::step`]) or in parallel.
    pub fn job(&self, text: impl Into<Arc<str>>, opts: EncodeOptions) -> EncodeJob {
        EncodeJob::new(self.inner.clone(), text.into(), opts)
    }

    /// Encode many texts in parallel (rayon, on the scheduler's pool).
    /// Truncation and padding apply as in `tokenizers`' `encode_batch` (padding over the batch).
    pub fn encode_batch<S: AsRef<str> + Sync>(&self, texts: &[S], add_special_tokens: bool) -> Result<Vec<Encoding>> {
        let mut encs = self.map_batch(texts, |t| self.encode(t.as_ref(), add_special_tokens))?;
        if let Some(pad) = &self.inner.settings.padding {
            crate::post::pad_batch(&mut encs, pad);
        }
        Ok(encs)
    }

    /// Ids of many texts in parallel.
    pub fn encode_batch_ids<S: AsRef<str> + Sync>(
        &self,
        texts: &[S],
        add_special_tokens: bool,
    ) -> Result<Vec<Vec<u32>>> {
        let mut ids = self.map_batch(texts, |t| self.encode_ids(t.as_ref(), add_special_tokens))?;
        if let Some(pad) = &self.inner.settings.padding {
            crate::post::pad_batch_ids(&mut ids, pad);
        }
        Ok(ids)
    }

    /// Many texts in parallel with explicit options, stopping once `cancel` is set
    /// ([`Error::Cancelled`]; see [`encode_with_cancel`](Self::encode_with_cancel)).
    pub fn encode_batch_with_cancel<S: AsRef<str> + Sync>(
        &self,
        texts: &[S],
        opts: &EncodeOptions,
        cancel: &crate::CancelFlag,
    ) -> Result<Vec<JobOutput>> {
        let mut outs = self.map_batch(texts, |t| self.encode_with_cancel(t.as_ref(), opts, cancel))?;
        self.pad_outputs(&mut outs, opts);
        Ok(outs)
    }

    fn map_batch<T: Sync, R: Send>(&self, items: &[T], f: impl Fn(&T) -> Result<R> + Sync + Send) -> Result<Vec<R>> {
        cfg_if::cfg_if! {
            if #[cfg(target_arch = "wasm32")] {
                items.iter().map(f).collect()
            } else {
                use rayon::prelude::*;
                self.inner.scheduler.pool().install(|| items.par_iter().map(f).collect())
            }
        }
    }

    // ---- async encode ------------------------------------------------------------------

    /// Encode without blocking: a future that runs the text in pieces on the scheduler (native)
    /// or in cooperative slices (wasm32). Dropping it cancels the remaining pieces.
    pub fn encode_async(&self, text: impl Into<Arc<str>>, opts: EncodeOptions) -> crate::EncodeFuture {
        let job = self.job(text, opts);
        cfg_if::cfg_if! {
            if #[cfg(target_arch = "wasm32")] {
                crate::EncodeFuture::new(job, web_time::Duration::from_millis(4))
            } else {
                crate::EncodeFuture::new(job, self.inner.scheduler.clone())
            }
        }
    }

    /// Encode many texts without blocking: one job per text on the fair scheduler (or in
    /// cooperative slices on wasm32), resolving to the outputs in input order. The first error
    /// cancels the rest; dropping the future cancels every job still running. A small batch
    /// ([`SMALL_BATCH_BYTES`](crate::batch::SMALL_BATCH_BYTES) in all) runs as one task.
    pub fn encode_batch_async<S: Into<Arc<str>>>(
        &self,
        texts: impl IntoIterator<Item = S>,
        opts: EncodeOptions,
    ) -> crate::BatchFuture {
        let pad = if opts.truncate_and_pad { self.batch_padding() } else { None };
        let texts: Vec<Arc<str>> = texts.into_iter().map(Into::into).collect();
        let total: usize = texts.iter().map(|t| t.len()).sum();
        if !texts.is_empty() && total <= crate::batch::SMALL_BATCH_BYTES {
            let n = texts.len();
            let task = self.spawn_cancellable(move |tok, cancel| {
                texts
                    .iter()
                    .map(|t| if cancel.is_cancelled() { Err(Error::Cancelled) } else { tok.encode_with(t, &opts) })
                    .collect()
            });
            return crate::BatchFuture::small(task, n, total).padded(pad);
        }
        crate::BatchFuture::new(texts.into_iter().map(|t| self.encode_async(t, opts.clone()).in_batch()).collect())
            .padded(pad)
    }

    /// Run `work` with this tokenizer as one unit of work on its scheduler's pool (native) or
    /// at the first poll (wasm32): how front ends run decodes, chat templates and trajectory
    /// tokenization without blocking their event loop. Dropping the future before the work
    /// starts means it never starts; a panic becomes [`Error::Panic`].
    pub fn spawn<T, F>(&self, work: F) -> crate::TaskFuture<T>
    where
        T: Send + 'static,
        F: FnOnce(&Tokenizer) -> Result<T> + Send + 'static,
    {
        self.spawn_cancellable(move |tok, _| work(tok))
    }

    /// [`spawn`](Self::spawn) for work that can stop early: it gets the task's
    /// [`CancelFlag`](crate::CancelFlag), set when the future is dropped or cancelled, to check
    /// between its units of work.
    pub fn spawn_cancellable<T, F>(&self, work: F) -> crate::TaskFuture<T>
    where
        T: Send + 'static,
        F: FnOnce(&Tokenizer, &crate::CancelFlag) -> Result<T> + Send + 'static,
    {
        let tok = self.clone();
        let flag = crate::CancelFlag::new();
        let f = flag.clone();
        let work: Box<dyn FnOnce() -> Result<T> + Send> = Box::new(move || work(&tok, &f));
        cfg_if::cfg_if! {
            if #[cfg(target_arch = "wasm32")] {
                crate::TaskFuture::deferred(flag, work)
            } else {
                crate::TaskFuture::on(&self.inner.scheduler, flag, work)
            }
        }
    }

    /// [`decode`](Self::decode) as a future on the scheduler.
    pub fn decode_async(&self, ids: impl Into<Vec<u32>>, skip_special_tokens: bool) -> crate::TaskFuture<String> {
        let ids = ids.into();
        self.spawn(move |t| t.decode(&ids, skip_special_tokens))
    }

    /// [`decode_batch`](Self::decode_batch) as a future on the scheduler.
    pub fn decode_batch_async(
        &self,
        batch: Vec<Vec<u32>>,
        skip_special_tokens: bool,
    ) -> crate::TaskFuture<Vec<String>> {
        self.spawn(move |t| t.decode_batch(&batch, skip_special_tokens))
    }

    /// `tokenizers`' `Encoding.tokens` for an encoding of this tokenizer: each token's
    /// vocabulary entry, the padding's `pad_token` for padding, and the text for the tokens
    /// `tokenizers` names by it (a Unigram unknown piece, an added token matched with the
    /// whitespace it strips or in normalized form: [`Encoding::token_texts`]).
    pub fn tokens(&self, enc: &Encoding) -> Vec<String> {
        enc.tokens(|id| self.id_to_token(id), self.padding().map(|p| p.pad_token.as_str()))
    }

    // ---- decode ------------------------------------------------------------------------

    /// Decode ids to text, exactly like `tokenizers`' `decode`: ids the vocabulary lacks are
    /// skipped (no error), as `tokenizers` does.
    pub fn decode(&self, ids: &[u32], skip_special_tokens: bool) -> Result<String> {
        self.inner.tok.decode(ids, skip_special_tokens).map_err(Error::tokenize)
    }

    /// Decode many id lists in parallel.
    pub fn decode_batch<S: AsRef<[u32]> + Sync>(&self, batch: &[S], skip_special_tokens: bool) -> Result<Vec<String>> {
        self.map_batch(batch, |ids| self.decode(ids.as_ref(), skip_special_tokens))
    }
}

/// The model's unknown id when it is a Unigram model's (from the file's view: `tokenizers`
/// keeps it private), whose unknown pieces `tokenizers` names by their text.
fn unigram_unk(structure: &Value) -> Option<u32> {
    let model = &structure["model"];
    if model["type"] != "Unigram" {
        return None;
    }
    model["unk_id"].as_u64().and_then(|id| u32::try_from(id).ok())
}
