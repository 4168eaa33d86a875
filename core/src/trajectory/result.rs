//! [`TokenizedResult`]: one tokenized history, ART's `TokenizedResult` as flat vectors (the
//! Python binding exposes them as numpy arrays without copying), plus where it came from.

/// One tokenized history.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenizedResult {
    /// Token ids: the template's rendering with every trainable message's sampled ids spliced in.
    pub token_ids: Vec<u32>,
    /// 1 where the token was sampled (or, with `allow_training_without_logprobs`, comes from a
    /// plain-dict assistant message), else 0.
    pub assistant_mask: Vec<u8>,
    /// The sampled tokens' logprobs, NaN elsewhere.
    pub logprobs: Vec<f64>,
    /// `0..len` (ART's `input_pos`).
    pub input_pos: Vec<u32>,
    /// Start of each trained Choice's tokens in `token_ids`.
    pub choice_offsets: Vec<usize>,
    /// Per name (in first-seen order), a value per token: the entries' `extra_logprobs`, NaN
    /// elsewhere.
    pub extra_logprobs: Vec<(String, Vec<f64>)>,
    /// GRPO advantage of the trajectory.
    pub advantage: f64,
    /// `1 / (trainable tokens of the trajectory's results + 1e-6)`.
    pub weight: f64,
    /// Random id shared by the results of a group.
    pub prompt_id: i64,
    /// Length of the group's shared prompt (see the module docs).
    pub prompt_length: usize,
    /// The rendered chat (`apply_chat_template(..., tokenize=False)`), final message included.
    pub chat: String,
    /// Provenance: group index in the input.
    pub group_index: usize,
    /// Provenance: trajectory index within the group.
    pub trajectory_index: usize,
    /// Provenance: 0 = the trajectory's `messages_and_choices`, k = `additional_histories[k-1]`.
    pub history_index: usize,
}

impl TokenizedResult {
    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.token_ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.token_ids.is_empty()
    }

    /// Number of trainable tokens (`sum(assistant_mask)`).
    pub fn trainable_tokens(&self) -> usize {
        self.assistant_mask.iter().map(|&m| m as usize).sum()
    }

    /// ART's `without_prompt()`: every per-token list from `prompt_length` on, `prompt_length`
    /// 0, `choice_offsets` unchanged.
    pub fn without_prompt(&self) -> TokenizedResult {
        let p = self.prompt_length.min(self.token_ids.len());
        TokenizedResult {
            token_ids: self.token_ids[p..].to_vec(),
            assistant_mask: self.assistant_mask[p..].to_vec(),
            logprobs: self.logprobs[p..].to_vec(),
            input_pos: self.input_pos[p..].to_vec(),
            choice_offsets: self.choice_offsets.clone(),
            extra_logprobs: self
                .extra_logprobs
                .iter()
                .map(|(k, v)| (k.clone(), v[p.min(v.len())..].to_vec()))
                .collect(),
            prompt_length: 0,
            chat: self.chat.clone(),
            ..*self
        }
    }
}
