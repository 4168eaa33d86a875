//! Packing (ART's `packed_tensors_from_tokenized_results`) into flat row-major arrays of shape
//! `(n_rows, seq_len)`.
//!
//! For each result in order: skip it if longer than `seq_len` without `truncate_long_results`,
//! or if it has no trainable token after its prompt; start a new row if the current one is not
//! empty and (`!pack_results` or the result — without its prompt when the row already holds its
//! `prompt_id` — does not fit); draw its `group_id`; append it (without its prompt when the row
//! holds the prompt id), `group_ids` = prompt id over the prompt then `group_id`, `parent_ids`
//! = prompt id; cut the row to `seq_len` when truncating. Then shuffle the rows, pad (`tokens`
//! with `pad_token_id`, ids with -1, positions 0, mask false, logprobs NaN, floats 0), zero
//! weights and advantages off the mask, scale the weights to mean 1 over the mask, apply
//! `advantage_balance`, and divide the advantages by the mean of `|advantage| * weight` over the
//! mask — in float32 like torch (means accumulated in float64, then rounded).
//!
//! Rows are first planned as segments (which result, which slice), then every token is written
//! once, straight into its shuffled row.

use super::error::{Result, TrajectoryError, TrajectoryErrorKind};
use super::pyrandom::PyRandom;
use super::result::TokenizedResult;

/// Packing options (ART's arguments, plus the seed of its `random` draws).
#[derive(Debug, Clone, PartialEq)]
pub struct PackOptions {
    pub seq_len: usize,
    pub pad_token_id: i64,
    pub truncate_long_results: bool,
    pub advantage_balance: f64,
    pub pack_results: bool,
    /// Seed of the group-id draws and the row shuffle (`None`: fresh entropy).
    pub seed: Option<i128>,
}

impl PackOptions {
    /// ART's defaults for a sequence length.
    pub fn new(seq_len: usize) -> Self {
        PackOptions {
            seq_len,
            pad_token_id: -100,
            truncate_long_results: true,
            advantage_balance: 0.0,
            pack_results: true,
            seed: None,
        }
    }
}

/// Where a packed result went (in packing order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackedResult {
    /// Index of the result in the input.
    pub result_index: usize,
    /// Row before the shuffle.
    pub row: usize,
    /// Offset in that row.
    pub offset: usize,
    /// The drawn group id.
    pub group_id: i64,
    /// Whether its prompt was left out (shared with an earlier result in the row).
    pub prompt_stripped: bool,
}

/// The packed tensors, row-major `(n_rows, seq_len)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Packed {
    pub n_rows: usize,
    pub seq_len: usize,
    pub tokens: Vec<i64>,
    pub group_ids: Vec<i64>,
    pub parent_ids: Vec<i64>,
    pub input_pos: Vec<i64>,
    pub assistant_mask: Vec<bool>,
    pub logprobs: Vec<f32>,
    pub advantages: Vec<f32>,
    pub weights: Vec<f32>,
    /// Per packed result, in packing order.
    pub provenance: Vec<PackedResult>,
    /// Output row `r` is pre-shuffle row `permutation[r]`.
    pub permutation: Vec<usize>,
}

#[derive(Clone, Copy)]
struct Seg {
    result: usize,
    /// First token taken from the result (its prompt length when stripped).
    from: usize,
    /// Tokens taken (after truncation).
    take: usize,
    /// Leading positions whose group id is the prompt id.
    prompt_part: usize,
    prompt_id: i64,
    group_id: i64,
}

#[derive(Default)]
struct Row {
    segs: Vec<Seg>,
    len: usize,
}

impl Row {
    /// `value in group_ids[-1]`.
    fn has(&self, value: i64) -> bool {
        self.segs.iter().any(|s| {
            (s.prompt_id == value && s.prompt_part.min(s.take) > 0) || (s.group_id == value && s.take > s.prompt_part)
        })
    }
}

/// Pack tokenized results.
pub fn pack<'a>(results: impl IntoIterator<Item = &'a TokenizedResult>, opts: &PackOptions) -> Result<Packed> {
    let results: Vec<&TokenizedResult> = results.into_iter().collect();
    let seq_len = opts.seq_len;
    if seq_len == 0 {
        return Err(TrajectoryError::new(TrajectoryErrorKind::InvalidArgument("seq_len must be positive".into())));
    }
    let mut rng = PyRandom::new(opts.seed);
    let mut rows = vec![Row::default()];
    let mut provenance = Vec::new();
    for (ri, r) in results.iter().enumerate() {
        let n = r.token_ids.len();
        if r.assistant_mask.len() != n || r.logprobs.len() != n || r.input_pos.len() != n {
            return Err(TrajectoryError::new(TrajectoryErrorKind::InvalidArgument(format!(
                "result {ri}: token_ids, assistant_mask, logprobs and input_pos differ in length"
            ))));
        }
        if n > seq_len && !opts.truncate_long_results {
            continue;
        }
        let p = r.prompt_length.min(n);
        if r.assistant_mask[p..].iter().all(|&m| m == 0) {
            continue;
        }
        let row = rows.last().expect("one row");
        let need = if row.has(r.prompt_id) { n - p } else { n };
        if row.len > 0 && (!opts.pack_results || row.len + need > seq_len) {
            rows.push(Row::default());
        }
        let group_id = rng.randint_i64();
        let row_index = rows.len() - 1;
        let row = rows.last_mut().expect("one row");
        let stripped = row.has(r.prompt_id);
        let (from, prompt_part) = if stripped { (p, 0) } else { (0, p) };
        let mut take = n - from;
        if opts.truncate_long_results {
            take = take.min(seq_len - row.len);
        } else if row.len + take > seq_len {
            return Err(TrajectoryError::new(TrajectoryErrorKind::InvalidArgument(
                "internal: a row overflows seq_len".into(),
            )));
        }
        provenance.push(PackedResult {
            result_index: ri,
            row: row_index,
            offset: row.len,
            group_id,
            prompt_stripped: stripped,
        });
        row.segs.push(Seg { result: ri, from, take, prompt_part, prompt_id: r.prompt_id, group_id });
        row.len += take;
    }
    let mut permutation: Vec<usize> = (0..rows.len()).collect();
    rng.shuffle(&mut permutation);

    let n_rows = rows.len();
    let total = n_rows * seq_len;
    let mut out = Packed {
        n_rows,
        seq_len,
        tokens: vec![opts.pad_token_id; total],
        group_ids: vec![-1; total],
        parent_ids: vec![-1; total],
        input_pos: vec![0; total],
        assistant_mask: vec![false; total],
        logprobs: vec![f32::NAN; total],
        advantages: vec![0.0; total],
        weights: vec![0.0; total],
        provenance,
        permutation,
    };
    for (r_out, &r_in) in out.permutation.iter().enumerate() {
        let mut pos = r_out * seq_len;
        for s in &rows[r_in].segs {
            let r = results[s.result];
            let range = s.from..s.from + s.take;
            let dst = pos..pos + s.take;
            for (d, &t) in out.tokens[dst.clone()].iter_mut().zip(&r.token_ids[range.clone()]) {
                *d = t as i64;
            }
            let prompt = s.prompt_part.min(s.take);
            out.group_ids[pos..pos + prompt].fill(s.prompt_id);
            out.group_ids[pos + prompt..pos + s.take].fill(s.group_id);
            out.parent_ids[dst.clone()].fill(s.prompt_id);
            for (d, &t) in out.input_pos[dst.clone()].iter_mut().zip(&r.input_pos[range.clone()]) {
                *d = t as i64;
            }
            for (d, &m) in out.assistant_mask[dst.clone()].iter_mut().zip(&r.assistant_mask[range.clone()]) {
                *d = m != 0;
            }
            for (d, &x) in out.logprobs[dst.clone()].iter_mut().zip(&r.logprobs[range.clone()]) {
                *d = x as f32;
            }
            out.advantages[dst.clone()].fill(r.advantage as f32);
            out.weights[dst].fill(r.weight as f32);
            pos += s.take;
        }
    }

    // weights: zero off the mask, mean 1 over the mask
    let mask = &out.assistant_mask;
    let mut sum = 0.0f64;
    let mut count = 0usize;
    for (w, &m) in out.weights.iter_mut().zip(mask) {
        if m {
            sum += *w as f64;
            count += 1;
        } else {
            *w = 0.0;
        }
    }
    if count > 0 {
        let mean = (sum / count as f64) as f32;
        for (w, &m) in out.weights.iter_mut().zip(mask) {
            if m {
                *w /= mean;
            }
        }
    }
    // advantages: zero off the mask, balance, then normalise by mean(|a| * w) over the mask
    for (a, &m) in out.advantages.iter_mut().zip(mask) {
        if !m {
            *a = 0.0;
        }
    }
    let b = opts.advantage_balance;
    if b > 0.0 {
        let f = (1.0 - b) as f32;
        for a in out.advantages.iter_mut() {
            if (*a).partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                *a *= f;
            }
        }
    } else if b < 0.0 {
        let f = (1.0 + b) as f32;
        for a in out.advantages.iter_mut() {
            if (*a).partial_cmp(&0.0) != Some(std::cmp::Ordering::Less) {
                *a *= f;
            }
        }
    }
    if count > 0 {
        let mut s = 0.0f64;
        for ((a, w), &m) in out.advantages.iter().zip(&out.weights).zip(mask) {
            if m {
                s += (a.abs() * w) as f64;
            }
        }
        let mean = (s / count as f64) as f32;
        for (a, &m) in out.advantages.iter_mut().zip(mask) {
            if m {
                *a /= mean;
            }
        }
    }
    Ok(out)
}
