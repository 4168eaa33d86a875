//! `tokenizeTrajectories` and `packTrajectories` (OpenPipe ART's `tokenize_trajectory_groups`
//! and `packed_tensors_from_tokenized_results`, computed by the core's
//! [`yieldtok::trajectory`]). The input arrives as JSON text or UTF-8 bytes (the JS layer
//! `JSON.stringify`s plain objects) and is parsed by the core — on the scheduler, with the
//! tokenization, for the Promise version, which an abort stops between histories. Results go
//! back as the core made them: each vector
//! becomes an external typed array on the JS thread without a copy (`Uint32Array` ids,
//! `Uint8Array` mask, `Float64Array` logprobs, `BigInt` prompt ids); per-trajectory errors come
//! back next to the results and the JS layer decides how to report them. Packing copies the
//! fields it needs out of the JS result objects (the core packs its own `TokenizedResult`s) and
//! returns `BigInt64Array`s (ART's int64 tensors), a `Uint8Array` mask and `Float32Array`s.

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;
use serde_json::Value;
use yieldtok::trajectory::{
    self, GroupResult, PackOptions, Packed, TokenizedResult, ToolSchemaFormat, TrajectoryError, TrajectoryOptions,
    TrajectoryTokenizer,
};

use crate::cancel::CancelToken;
use crate::errors::{guard, invalid_arg};
use crate::promise::run_task;
use crate::NativeTokenizer;

// ---- options -----------------------------------------------------------------------------

/// Options of `tokenizeTrajectories`; unset fields take ART's defaults (from the core).
#[napi(object)]
pub struct TrajectoryArgs {
    pub allow_training_without_logprobs: Option<bool>,
    pub scale_rewards: Option<bool>,
    pub shuffle_group_trajectories: Option<bool>,
    pub drop_zero_advantage_trajectories: Option<bool>,
    /// A JSON object of extra template variables.
    pub chat_template_kwargs: Option<String>,
    /// `"default"` or `"vllm_openai"`.
    pub chat_template_tool_schema_format: Option<String>,
    /// A decimal integer (Python's `random.seed(seed)`), or none for fresh entropy.
    pub seed: Option<String>,
    pub validate_sampled_tokens: Option<bool>,
    pub chat_template: Option<String>,
}

fn seed(s: Option<&str>) -> Result<Option<i128>> {
    s.map(|s| s.parse::<i128>().map_err(|_| invalid_arg(format!("seed must be an integer, got {s:?}")))).transpose()
}

fn options(a: TrajectoryArgs) -> Result<TrajectoryOptions> {
    let d = TrajectoryOptions::default();
    let chat_template_kwargs = match a.chat_template_kwargs.as_deref().map(serde_json::from_str::<Value>).transpose() {
        Err(e) => return Err(invalid_arg(format!("chatTemplateKwargs: {e}"))),
        Ok(None | Some(Value::Null)) => None,
        Ok(Some(Value::Object(m))) => Some(m),
        Ok(Some(_)) => return Err(invalid_arg("chatTemplateKwargs must be an object")),
    };
    let tool_schema_format = match a.chat_template_tool_schema_format.as_deref() {
        None => ToolSchemaFormat::Default,
        Some(f) => f.parse().map_err(|e| invalid_arg(format!("chatTemplateToolSchemaFormat: {e}")))?,
    };
    Ok(TrajectoryOptions {
        allow_training_without_logprobs: a.allow_training_without_logprobs.unwrap_or(d.allow_training_without_logprobs),
        scale_rewards: a.scale_rewards.unwrap_or(d.scale_rewards),
        shuffle_group_trajectories: a.shuffle_group_trajectories.unwrap_or(d.shuffle_group_trajectories),
        drop_zero_advantage_trajectories: a
            .drop_zero_advantage_trajectories
            .unwrap_or(d.drop_zero_advantage_trajectories),
        chat_template_kwargs,
        tool_schema_format,
        seed: seed(a.seed.as_deref())?,
        validate_sampled_tokens: a.validate_sampled_tokens.unwrap_or(d.validate_sampled_tokens),
        chat_template: a.chat_template,
    })
}

// ---- results -----------------------------------------------------------------------------

/// One tokenized history (ART's `TokenizedResult`), field for field.
#[napi(object)]
pub struct ResultBuffers {
    pub token_ids: Uint32Array,
    pub assistant_mask: Uint8Array,
    pub logprobs: Float64Array,
    pub input_pos: Uint32Array,
    pub choice_offsets: Uint32Array,
    /// In first-seen order (the JS layer makes an object of them).
    pub extra_logprobs: Vec<ExtraLogprobs>,
    pub advantage: f64,
    pub weight: f64,
    pub prompt_id: BigInt,
    pub prompt_length: u32,
    pub chat: String,
    pub group_index: u32,
    pub trajectory_index: u32,
    pub history_index: u32,
}

#[napi(object)]
pub struct ExtraLogprobs {
    pub name: String,
    pub values: Float64Array,
}

/// A per-trajectory error: the core's message and where it is.
#[napi(object)]
pub struct TrajectoryErrorInfo {
    /// Location and reason, e.g. `group 0, trajectory 2, messages_and_choices, item 3: ...`.
    pub message: String,
    /// The reason alone.
    pub reason: String,
    /// A stable name of the kind of failure (`missing_role`, `token_id_out_of_vocabulary`, ...).
    pub kind: String,
    /// The exception ART 0.5.18 raises in the same situation, if any.
    pub art_exception: Option<String>,
    pub group: Option<u32>,
    pub trajectory: Option<u32>,
    pub history: Option<u32>,
    pub item: Option<u32>,
}

#[napi(object)]
pub struct TrajectoryOutput {
    /// Every result, group by group, in ART's order.
    pub results: Vec<ResultBuffers>,
    /// Per-trajectory errors, group by group (their trajectories have no results).
    pub errors: Vec<TrajectoryErrorInfo>,
}

/// What a worker hands over: the core's results (vectors shrunk, so that wrapping them on the
/// JS thread never reallocates) and errors — or the error of the whole call (input that is not
/// a list of groups, a tokenizer without a chat template), which rejects.
pub struct Tokenized(std::result::Result<(Vec<TokenizedResult>, Vec<TrajectoryError>), TrajectoryError>);

impl Tokenized {
    /// Every group's results and errors, in group order.
    fn flatten(groups: Vec<GroupResult>) -> (Vec<TokenizedResult>, Vec<TrajectoryError>) {
        let mut results = Vec::with_capacity(groups.iter().map(|g| g.results.len()).sum());
        let mut errors = Vec::new();
        for g in groups {
            results.extend(g.results.into_iter().map(shrink));
            errors.extend(g.errors);
        }
        (results, errors)
    }

    fn into_js(self) -> Result<TrajectoryOutput> {
        let (results, errors) = self.0.map_err(whole)?;
        Ok(TrajectoryOutput {
            results: results.into_iter().map(result_js).collect(),
            errors: errors.into_iter().map(error_js).collect(),
        })
    }
}

fn shrink(mut r: TokenizedResult) -> TokenizedResult {
    r.token_ids.shrink_to_fit();
    r.assistant_mask.shrink_to_fit();
    r.logprobs.shrink_to_fit();
    r.input_pos.shrink_to_fit();
    r.extra_logprobs.iter_mut().for_each(|(_, v)| v.shrink_to_fit());
    r
}

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn result_js(r: TokenizedResult) -> ResultBuffers {
    ResultBuffers {
        token_ids: Uint32Array::new(r.token_ids),
        assistant_mask: Uint8Array::new(r.assistant_mask),
        logprobs: Float64Array::new(r.logprobs),
        input_pos: Uint32Array::new(r.input_pos),
        choice_offsets: Uint32Array::new(r.choice_offsets.into_iter().map(u32_of).collect()),
        extra_logprobs: r
            .extra_logprobs
            .into_iter()
            .map(|(name, v)| ExtraLogprobs { name, values: Float64Array::new(v) })
            .collect(),
        advantage: r.advantage,
        weight: r.weight,
        prompt_id: BigInt::from(r.prompt_id),
        prompt_length: u32_of(r.prompt_length),
        chat: r.chat,
        group_index: u32_of(r.group_index),
        trajectory_index: u32_of(r.trajectory_index),
        history_index: u32_of(r.history_index),
    }
}

fn error_js(e: TrajectoryError) -> TrajectoryErrorInfo {
    let l = e.location;
    TrajectoryErrorInfo {
        message: e.to_string(),
        reason: e.kind.to_string(),
        kind: e.kind.name().to_string(),
        art_exception: e.kind.art_exception().map(str::to_string),
        group: l.group.map(u32_of),
        trajectory: l.trajectory.map(u32_of),
        history: l.history.map(u32_of),
        item: l.item.map(u32_of),
    }
}

/// An error of the whole call as a napi error: the core's message, verbatim.
fn whole(e: TrajectoryError) -> Error {
    crate::errors::js_trajectory_err(&e)
}

/// Parse and tokenize; stops between histories once `cancel` is set (then `Err(Cancelled)`).
fn tokenize(
    tok: &yieldtok::Tokenizer,
    json: &[u8],
    opts: &TrajectoryOptions,
    cancel: &yieldtok::CancelFlag,
) -> yieldtok::Result<Tokenized> {
    let tt = match trajectory::parse_groups(json)
        .and_then(|g| Ok((g, TrajectoryTokenizer::new(tok, opts.chat_template.as_deref())?)))
    {
        Ok(x) => x,
        Err(e) => return Ok(Tokenized(Err(e))),
    };
    let (groups, tt) = tt;
    Ok(Tokenized(Ok(Tokenized::flatten(tt.tokenize_trajectory_groups_cancellable(&groups, opts, cancel)?))))
}

#[napi]
impl NativeTokenizer {
    /// ART's `tokenize_trajectory_groups` on the core scheduler (parsing included): resolves to
    /// the results and the per-trajectory errors.
    #[napi(ts_return_type = "Promise<TrajectoryOutput>")]
    pub fn tokenize_trajectories<'env>(
        &self,
        env: &'env Env,
        groups: Either<String, Uint8Array>,
        args: TrajectoryArgs,
        token: Option<&CancelToken>,
    ) -> Result<Object<'env>> {
        let opts = options(args)?;
        let json: Vec<u8> = match groups {
            Either::A(s) => s.into_bytes(),
            Either::B(b) => b.to_vec(),
        };
        run_task(
            env,
            self.tok().spawn_cancellable(move |tok, cancel| tokenize(tok, &json, &opts, cancel)),
            token,
            Tokenized::into_js,
        )
    }

    /// [`tokenize_trajectories`](Self::tokenize_trajectories) on the calling thread (histories
    /// still in parallel on the core's pool).
    #[napi]
    pub fn tokenize_trajectories_sync(
        &self,
        groups: Either<String, Uint8Array>,
        args: TrajectoryArgs,
    ) -> Result<TrajectoryOutput> {
        let opts = options(args)?;
        let json: &[u8] = match &groups {
            Either::A(s) => s.as_bytes(),
            Either::B(b) => b,
        };
        guard(|| tokenize(&self.tok(), json, &opts, &yieldtok::CancelFlag::new()))?.into_js()
    }
}

// ---- packing -----------------------------------------------------------------------------

/// What packing reads of a result.
#[napi(object)]
pub struct PackInput {
    pub token_ids: Uint32Array,
    pub assistant_mask: Uint8Array,
    pub logprobs: Float64Array,
    pub input_pos: Uint32Array,
    pub advantage: f64,
    pub weight: f64,
    pub prompt_id: BigInt,
    pub prompt_length: u32,
}

/// ART's packing arguments (defaults applied by the JS layer).
#[napi(object)]
pub struct PackArgs {
    pub seq_len: u32,
    pub pad_token_id: i64,
    pub truncate_long_results: bool,
    pub advantage_balance: f64,
    pub pack_results: bool,
    /// A decimal integer, or none for fresh entropy.
    pub seed: Option<String>,
}

/// ART's packed tensors, row-major `(nRows, seqLen)`, plus where each result went.
#[napi(object)]
pub struct PackedBuffers {
    pub n_rows: u32,
    pub seq_len: u32,
    pub tokens: BigInt64Array,
    pub group_ids: BigInt64Array,
    pub parent_ids: BigInt64Array,
    pub input_pos: BigInt64Array,
    pub assistant_mask: Uint8Array,
    pub logprobs: Float32Array,
    pub advantages: Float32Array,
    pub weights: Float32Array,
    /// Output row `r` is row `permutation[r]` before the shuffle.
    pub permutation: Uint32Array,
    pub provenance: Vec<PackedResultInfo>,
}

/// Where a packed result went.
#[napi(object)]
pub struct PackedResultInfo {
    pub result_index: u32,
    pub row: u32,
    pub offset: u32,
    pub group_id: BigInt,
    pub prompt_stripped: bool,
}

fn pack_inputs(results: &[PackInput]) -> Result<Vec<TokenizedResult>> {
    results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (prompt_id, lossless) = r.prompt_id.get_i64();
            if !lossless {
                return Err(invalid_arg(format!("results[{i}].promptId does not fit in 64 bits")));
            }
            Ok(TokenizedResult {
                token_ids: r.token_ids.to_vec(),
                assistant_mask: r.assistant_mask.to_vec(),
                logprobs: r.logprobs.to_vec(),
                input_pos: r.input_pos.to_vec(),
                choice_offsets: Vec::new(),
                extra_logprobs: Vec::new(),
                advantage: r.advantage,
                weight: r.weight,
                prompt_id,
                prompt_length: r.prompt_length as usize,
                chat: String::new(),
                group_index: 0,
                trajectory_index: 0,
                history_index: 0,
            })
        })
        .collect()
}

fn pack_options(a: &PackArgs) -> Result<PackOptions> {
    Ok(PackOptions {
        seq_len: a.seq_len as usize,
        pad_token_id: a.pad_token_id,
        truncate_long_results: a.truncate_long_results,
        advantage_balance: a.advantage_balance,
        pack_results: a.pack_results,
        seed: seed(a.seed.as_deref())?,
    })
}

/// Pack (on a worker); `Err`: bad arguments, reported by [`packed_js`].
fn pack(results: &[TokenizedResult], opts: &PackOptions) -> std::result::Result<Packed, TrajectoryError> {
    let mut p = trajectory::pack(results, opts)?;
    for v in [&mut p.tokens, &mut p.group_ids, &mut p.parent_ids, &mut p.input_pos] {
        v.shrink_to_fit();
    }
    for v in [&mut p.logprobs, &mut p.advantages, &mut p.weights] {
        v.shrink_to_fit();
    }
    Ok(p)
}

fn packed_js(p: std::result::Result<Packed, TrajectoryError>) -> Result<PackedBuffers> {
    let p = p.map_err(whole)?;
    Ok(PackedBuffers {
        n_rows: u32_of(p.n_rows),
        seq_len: u32_of(p.seq_len),
        tokens: BigInt64Array::new(p.tokens),
        group_ids: BigInt64Array::new(p.group_ids),
        parent_ids: BigInt64Array::new(p.parent_ids),
        input_pos: BigInt64Array::new(p.input_pos),
        assistant_mask: Uint8Array::new(p.assistant_mask.into_iter().map(u8::from).collect()),
        logprobs: Float32Array::new(p.logprobs),
        advantages: Float32Array::new(p.advantages),
        weights: Float32Array::new(p.weights),
        permutation: Uint32Array::new(p.permutation.into_iter().map(u32_of).collect()),
        provenance: p
            .provenance
            .into_iter()
            .map(|r| PackedResultInfo {
                result_index: u32_of(r.result_index),
                row: u32_of(r.row),
                offset: u32_of(r.offset),
                group_id: BigInt::from(r.group_id),
                prompt_stripped: r.prompt_stripped,
            })
            .collect(),
    })
}

/// Pack tokenized results on the core scheduler. The fields packing reads are copied out of
/// the JS arrays first (on the calling thread: a memcpy).
#[napi(ts_return_type = "Promise<PackedBuffers>")]
pub fn pack_trajectories<'env>(
    env: &'env Env,
    results: Vec<PackInput>,
    args: PackArgs,
    token: Option<&CancelToken>,
) -> Result<Object<'env>> {
    let opts = pack_options(&args)?;
    let results = pack_inputs(&results)?;
    run_task(env, yieldtok::spawn(move || Ok(pack(&results, &opts))), token, packed_js)
}

/// [`pack_trajectories`] on the calling thread.
#[napi]
pub fn pack_trajectories_sync(results: Vec<PackInput>, args: PackArgs) -> Result<PackedBuffers> {
    let opts = pack_options(&args)?;
    let results = pack_inputs(&results)?;
    packed_js(guard(|| Ok(pack(&results, &opts)))?)
}
