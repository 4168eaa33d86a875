//! Trajectory tokenization and packing for RL trainers, with the results of OpenPipe ART 0.5.18
//! (`art.preprocessing.tokenize.tokenize_trajectory_groups` / `tokenize_trajectory` and
//! `art.preprocessing.pack.packed_tensors_from_tokenized_results`), quirks included, computed
//! in parallel. The exact semantics are written up in `docs/art-semantics.md`.
//!
//! ```no_run
//! use yieldtok::trajectory::{self, PackOptions, TrajectoryOptions};
//! let tok = yieldtok::Tokenizer::from_dir("path/to/model")?;
//! let groups = trajectory::parse_groups(&std::fs::read("groups.json").unwrap())?;
//! let opts = TrajectoryOptions { seed: Some(0), ..Default::default() };
//! let out = tok.tokenize_trajectory_groups(&groups, &opts)?;          // Vec<GroupResult>
//! let results = trajectory::into_results(out)?;                          // or inspect errors
//! let packed = trajectory::pack(&results, &PackOptions { seed: Some(0), ..PackOptions::new(8192) })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Modules: [`input`] (the input model and its parsing), `messages` (what the chat template
//! gets), `sentinel` (the sentinel id, usually without a second encode), `splice` (the spliced
//! token list), `history` (one history), `group` (groups, advantages, weights, prompt ids and
//! lengths, shuffles, parallelism), [`pack`] (packing), [`pyrandom`] (CPython's `random`),
//! [`result`], [`wire`] (a result's byte form, for pickling and object stores), [`error`].
//!
//! Differences from ART, all on inputs ART mishandles: with `validate_sampled_tokens` (the
//! default) a sampled id outside the vocabulary, a token string that is not in it, and a
//! sentinel collision are errors (ART splices garbage silently; turn the option off to get
//! ART's output); malformed trajectories and failing ones are reported per trajectory instead
//! of aborting the call; a `<think>` adjustment that would move before the start of the list,
//! a sampled id that is negative or beyond 32 bits, and tokenizers with named chat templates
//! (ART asserts a single template; here `default` is used) are handled as documented on the
//! error kinds.

pub mod error;
mod group;
mod history;
pub mod input;
pub mod lenient;
mod messages;
pub mod pack;
pub mod pyrandom;
pub mod result;
mod sentinel;
mod splice;
pub mod wire;

use serde_json::{Map, Value};

pub use error::{Location, TrajectoryError, TrajectoryErrorKind};
pub use group::{into_results, GroupResult};
pub use input::{
    choice_logprobs_key_read, groups_from_value, history_from_value, is_choice, item_from_value,
    logprob_entry_key_read, parse_group, parse_groups, parse_groups_jsonl, parse_trajectory, trajectory_from_value,
    Choice, ChoiceLogprobs, ExtraLogprobs, History, Item, Token, TokenLogprob, Trajectory, TrajectoryGroup,
};
pub use messages::ToolSchemaFormat;
pub use pack::{pack, PackOptions, Packed, PackedResult};
pub use result::TokenizedResult;

use crate::chat_template::TemplateSource;
use crate::chat_template::{ChatTemplate, ChatTemplateOptions, MessageHandling};
use crate::job::{Budget, EncodeOptions, Output};
use crate::Tokenizer;
use error::{Result, TrajectoryErrorKind as K};
use sentinel::SentinelFinder;

/// Options of [`TrajectoryTokenizer::tokenize_trajectory_groups`] (ART's arguments, same
/// defaults, plus the seed of its `random` draws and token validation).
#[derive(Debug, Clone, PartialEq)]
pub struct TrajectoryOptions {
    pub allow_training_without_logprobs: bool,
    pub scale_rewards: bool,
    pub shuffle_group_trajectories: bool,
    pub drop_zero_advantage_trajectories: bool,
    /// Extra template variables (override ART's `enable_thinking=False` /
    /// `preserve_thinking=True` defaults).
    pub chat_template_kwargs: Option<Map<String, Value>>,
    /// ART's `chat_template_tool_schema_format`.
    pub tool_schema_format: ToolSchemaFormat,
    /// Seed of the prompt-id draws and shuffles, as `random.seed(seed)` before ART's call
    /// (`None`: fresh entropy).
    pub seed: Option<i128>,
    /// Reject sampled ids outside the vocabulary, unknown token strings, sentinel collisions
    /// and NaN or infinite rewards (ART accepts them silently: the last gives the whole group
    /// NaN advantages). Default `true`.
    pub validate_sampled_tokens: bool,
    /// Use this chat template instead of the tokenizer's.
    pub chat_template: Option<String>,
}

impl Default for TrajectoryOptions {
    fn default() -> Self {
        TrajectoryOptions {
            allow_training_without_logprobs: false,
            scale_rewards: true,
            shuffle_group_trajectories: true,
            drop_zero_advantage_trajectories: true,
            chat_template_kwargs: None,
            tool_schema_format: ToolSchemaFormat::Default,
            seed: None,
            validate_sampled_tokens: true,
            chat_template: None,
        }
    }
}

impl TrajectoryOptions {
    /// ART's exact behaviour, quirks included (no sampled-token validation).
    pub fn art_compatible() -> Self {
        TrajectoryOptions { validate_sampled_tokens: false, ..Default::default() }
    }
}

/// A tokenizer prepared for trajectories: its chat template compiled (rendered like
/// transformers 5.2.0, ART's pin: messages as given), the special tokens and the sentinel
/// shortcut worked out. Build once, use from any thread.
pub struct TrajectoryTokenizer {
    tok: Tokenizer,
    template: ChatTemplate,
    source: String,
    parse_tool_call_arguments: bool,
    sentinel: SentinelFinder,
    /// Vocabulary size with added tokens (for validation).
    full_vocab: usize,
    eos: Option<(String, u32)>,
    unk_id: Option<u32>,
    clean_up_tokenization_spaces: bool,
}

impl std::fmt::Debug for TrajectoryTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrajectoryTokenizer")
            .field("tokenizer", &self.tok)
            .field("template_bytes", &self.source.len())
            .field("sentinel_shortcut", &self.sentinel.has_shortcut())
            .finish()
    }
}

impl TrajectoryTokenizer {
    /// Prepare `tok` with its own chat template (a model folder's `tokenizer_config.json` or
    /// `chat_template.jinja`; named templates: `default`), or `chat_template` if given.
    pub fn new(tok: &Tokenizer, chat_template: Option<&str>) -> Result<Self> {
        let setup = |m: String| TrajectoryError::new(K::Setup(m));
        let source = match chat_template {
            Some(s) => s.to_string(),
            None => match tok.config().and_then(|c| c.chat_template.as_ref()) {
                Some(TemplateSource::Single(s)) => s.clone(),
                Some(TemplateSource::Named(list)) => {
                    list.iter().rev().find(|(n, _)| n == "default").map(|(_, t)| t.clone()).ok_or_else(|| {
                        setup("the tokenizer has named chat templates and none is named \"default\"".into())
                    })?
                }
                None => {
                    return Err(setup("the tokenizer has no chat template (load a model folder or pass one)".into()))
                }
            },
        };
        let special = tok.config().map(|c| c.template_special_tokens()).unwrap_or_default();
        let options = ChatTemplateOptions { message_handling: MessageHandling::AsGiven, ..Default::default() };
        let template = ChatTemplate::with_options(&source, special, options)
            .map_err(|e| setup(format!("chat template: {e}")).caused_by(e))?;
        let token = |key: &str| tok.config().and_then(|c| c.special_token(key)).map(str::to_string);
        let unk_id = token("unk_token").and_then(|t| tok.token_to_id(&t));
        let eos = token("eos_token").and_then(|t| tok.token_to_id(&t).or(unk_id).map(|id| (t, id)));
        let clean_up_tokenization_spaces = tok
            .config()
            .and_then(|c| c.raw.get("clean_up_tokenization_spaces"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Ok(TrajectoryTokenizer {
            parse_tool_call_arguments: source.contains("tool_call.arguments|items"),
            sentinel: SentinelFinder::new(tok),
            full_vocab: tok.vocab_size(true),
            tok: tok.clone(),
            template,
            source,
            eos,
            unk_id,
            clean_up_tokenization_spaces,
        })
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tok
    }

    /// The chat template source in use.
    pub fn template_source(&self) -> &str {
        &self.source
    }

    /// ART's `tokenize_trajectory` for one history with a given advantage (`weight`,
    /// `prompt_id` and `prompt_length` are left 0, as ART leaves them). `Ok(None)`: the
    /// history has no trainable message.
    pub fn tokenize_trajectory(
        &self,
        history: &History,
        advantage: f64,
        opts: &TrajectoryOptions,
    ) -> Result<Option<TokenizedResult>> {
        self.tokenize_items(&history.messages_and_choices, history.tools.as_ref(), advantage, opts, true)
    }

    fn kwargs(&self, opts: &TrajectoryOptions) -> Map<String, Value> {
        messages::template_kwargs(&self.source, opts.chat_template_kwargs.as_ref())
    }

    /// `encode(text, add_special_tokens=False)`; in parallel pieces when `parallel`, else on
    /// the calling thread (the caller is already parallel).
    fn encode(&self, text: &str, parallel: bool) -> Result<Vec<u32>> {
        let tokenize = |e: crate::Error| TrajectoryError::new(K::Tokenize(e.to_string())).caused_by(e);
        if parallel {
            return self.tok.encode_ids_plain(text, false).map_err(tokenize);
        }
        let job = self.tok.job(
            text,
            EncodeOptions {
                add_special_tokens: false,
                output: Output::Ids,
                piece_bytes: None,
                truncate_and_pad: false,
                char_offsets: false,
            },
        );
        job.step(Budget::UNLIMITED);
        Ok(job.finish().map_err(tokenize)?.into_ids())
    }

    /// transformers' `decode(id)` (special tokens kept, clean-up as configured).
    fn decode_one(&self, id: u32) -> String {
        let text = self.tok.hf().decode(&[id], false).unwrap_or_default();
        if self.clean_up_tokenization_spaces {
            clean_up_tokenization(&text)
        } else {
            text
        }
    }
}

/// `items.map(f)` on the core's pool (native), in order.
pub(crate) fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    cfg_if::cfg_if! {
        if #[cfg(target_arch = "wasm32")] {
            items.iter().map(f).collect()
        } else {
            use rayon::prelude::*;
            if items.len() < 2 {
                return items.iter().map(f).collect();
            }
            crate::Scheduler::global().pool().install(|| items.par_iter().with_max_len(1).map(f).collect())
        }
    }
}

/// transformers' `clean_up_tokenization`.
fn clean_up_tokenization(s: &str) -> String {
    s.replace(" .", ".")
        .replace(" ?", "?")
        .replace(" !", "!")
        .replace(" ,", ",")
        .replace(" ' ", "'")
        .replace(" n't", "n't")
        .replace(" 'm", "'m")
        .replace(" 's", "'s")
        .replace(" 've", "'ve")
        .replace(" 're", "'re")
}

impl Tokenizer {
    /// ART's `tokenize_trajectory_groups` with this tokenizer and its chat template. `Err` only
    /// when the tokenizer cannot be used (no chat template, ...); per-trajectory errors are in
    /// the [`GroupResult`]s. For repeated calls, build a [`TrajectoryTokenizer`] once.
    pub fn tokenize_trajectory_groups(
        &self,
        groups: &[TrajectoryGroup],
        opts: &TrajectoryOptions,
    ) -> Result<Vec<GroupResult>> {
        Ok(TrajectoryTokenizer::new(self, opts.chat_template.as_deref())?.tokenize_trajectory_groups(groups, opts))
    }

    /// ART's `tokenize_trajectory` for one history.
    pub fn tokenize_trajectory(
        &self,
        history: &History,
        advantage: f64,
        opts: &TrajectoryOptions,
    ) -> Result<Option<TokenizedResult>> {
        TrajectoryTokenizer::new(self, opts.chat_template.as_deref())?.tokenize_trajectory(history, advantage, opts)
    }

    /// [`tokenize_trajectory_groups`](Self::tokenize_trajectory_groups) as a future on the
    /// scheduler, from JSON bytes (parsed there too). Dropping the future stops the histories
    /// not yet started and resolves nothing; the future resolves to the per-group results, or
    /// to the [`TrajectoryError`] of the whole input (malformed JSON, a tokenizer without a
    /// chat template); its own `Err` is [`Error::Cancelled`](crate::Error::Cancelled) (or a
    /// caught panic).
    pub fn tokenize_trajectory_groups_async(
        &self,
        json: Vec<u8>,
        opts: TrajectoryOptions,
    ) -> crate::TaskFuture<Result<Vec<GroupResult>>> {
        self.spawn_cancellable(move |tok, cancel| {
            let prepared = parse_groups(&json)
                .and_then(|groups| Ok((groups, TrajectoryTokenizer::new(tok, opts.chat_template.as_deref())?)));
            match prepared {
                Ok((groups, tt)) => tt.tokenize_trajectory_groups_cancellable(&groups, &opts, cancel).map(Ok),
                Err(e) => Ok(Err(e)),
            }
        })
    }
}

/// Free-function form of [`Tokenizer::tokenize_trajectory_groups`].
pub fn tokenize_trajectory_groups(
    tok: &Tokenizer,
    groups: &[TrajectoryGroup],
    opts: &TrajectoryOptions,
) -> Result<Vec<GroupResult>> {
    tok.tokenize_trajectory_groups(groups, opts)
}

/// Free-function form of [`Tokenizer::tokenize_trajectory`].
pub fn tokenize_trajectory(
    tok: &Tokenizer,
    history: &History,
    advantage: f64,
    opts: &TrajectoryOptions,
) -> Result<Option<TokenizedResult>> {
    tok.tokenize_trajectory(history, advantage, opts)
}
