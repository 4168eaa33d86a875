//! Groups (ART's `tokenize_trajectory_groups`): GRPO advantages, the histories of each kept
//! trajectory tokenized in parallel, `weight`, `prompt_id`, `prompt_length`, the seeded
//! per-group shuffle — and per-trajectory error reporting instead of ART's abort.
//!
//! Statistics, in float64 with left-to-right sums as CPython 3.11's `sum()`: `mean = Σr / n`,
//! `std = sqrt(Σ(r - mean)² / n)`; `advantage = r - mean`, divided by `std + 1e-6` with
//! `scale_rewards`; trajectories with `advantage == 0` are dropped with
//! `drop_zero_advantage_trajectories`. The random draws follow ART's order on one Python-`random`
//! stream: per non-empty group, `randint(-2**63, 2**63 - 1)` for the prompt id, then
//! `shuffle(results)`.
//!
//! Errors: an invalid trajectory (failed validation, or — with `validate_sampled_tokens` — a
//! reward that is NaN or infinite) is reported and is not part of its group; an invalid group
//! is reported and has no results; a trajectory whose tokenization fails is reported and
//! yields no results (its reward still counts, as it would in ART). Everything else of the
//! batch is returned.

use super::error::{Result, TrajectoryError};
use super::input::{Item, TrajectoryGroup};
use super::pyrandom::PyRandom;
use super::result::TokenizedResult;
use super::{TrajectoryOptions, TrajectoryTokenizer};

/// The outcome of one input group.
#[derive(Debug, Clone, Default)]
pub struct GroupResult {
    /// Index of the group in the input.
    pub group_index: usize,
    /// The group's results, in ART's order (shuffled when asked).
    pub results: Vec<TokenizedResult>,
    /// Per-trajectory errors (their trajectories yield no results).
    /// Per-trajectory errors, in input order (trajectory, history, item).
    pub errors: Vec<TrajectoryError>,
}

/// All results in order, or the first error (ART's all-or-nothing behaviour).
pub fn into_results(groups: Vec<GroupResult>) -> Result<Vec<TokenizedResult>> {
    let mut out = Vec::with_capacity(groups.iter().map(|g| g.results.len()).sum());
    for g in groups {
        if let Some(e) = g.errors.into_iter().next() {
            return Err(e);
        }
        out.extend(g.results);
    }
    Ok(out)
}

struct Job<'a> {
    group: usize,
    trajectory: usize,
    history: usize,
    items: &'a [Item],
    tools: Option<&'a serde_json::Value>,
    advantage: f64,
}

impl TrajectoryTokenizer {
    /// ART's `tokenize_trajectory_groups`, with histories tokenized in parallel.
    pub fn tokenize_trajectory_groups(&self, groups: &[TrajectoryGroup], opts: &TrajectoryOptions) -> Vec<GroupResult> {
        self.tokenize_groups(groups, opts, None)
    }

    /// [`tokenize_trajectory_groups`](Self::tokenize_trajectory_groups) that stops when
    /// `cancel` is set: histories not yet started are skipped and the call returns
    /// [`Error::Cancelled`](crate::Error::Cancelled).
    pub fn tokenize_trajectory_groups_cancellable(
        &self,
        groups: &[TrajectoryGroup],
        opts: &TrajectoryOptions,
        cancel: &crate::CancelFlag,
    ) -> crate::Result<Vec<GroupResult>> {
        let out = self.tokenize_groups(groups, opts, Some(cancel));
        if cancel.is_cancelled() {
            return Err(crate::Error::Cancelled);
        }
        Ok(out)
    }

    fn tokenize_groups(
        &self,
        groups: &[TrajectoryGroup],
        opts: &TrajectoryOptions,
        cancel: Option<&crate::CancelFlag>,
    ) -> Vec<GroupResult> {
        let mut out: Vec<GroupResult> =
            (0..groups.len()).map(|g| GroupResult { group_index: g, ..Default::default() }).collect();
        let mut active = vec![false; groups.len()];
        let mut jobs: Vec<Job> = Vec::new();
        for (gi, group) in groups.iter().enumerate() {
            if let Some(e) = &group.invalid {
                out[gi].errors.push(e.clone().at(|l| l.group = Some(gi)));
            }
            let mut valid: Vec<(usize, &super::Trajectory)> = Vec::with_capacity(group.trajectories.len());
            for (ti, t) in group.trajectories.iter().enumerate() {
                let here = |e: TrajectoryError| {
                    e.at(|l| {
                        l.group = Some(gi);
                        l.trajectory = Some(ti);
                    })
                };
                if let Some(e) = &t.invalid {
                    out[gi].errors.push(here(e.clone()));
                } else if opts.validate_sampled_tokens && !t.reward.is_finite() {
                    // ART would compute NaN advantages for the whole group
                    out[gi].errors.push(here(super::error::invalid(format!(
                        "reward: {} is not a finite number (it would make every advantage of the group NaN)",
                        t.reward
                    ))));
                } else {
                    valid.push((ti, t));
                }
            }
            if valid.is_empty() {
                continue;
            }
            active[gi] = true;
            let n = valid.len() as f64;
            let mut sum = 0.0;
            for (_, t) in &valid {
                sum += t.reward;
            }
            let mean = sum / n;
            let mut sq = 0.0;
            for (_, t) in &valid {
                let d = t.reward - mean;
                sq += d * d;
            }
            let std = (sq / n).sqrt();
            for (ti, t) in valid {
                let mut advantage = t.reward - mean;
                if opts.scale_rewards {
                    advantage /= std + 1e-6;
                }
                if advantage == 0.0 && opts.drop_zero_advantage_trajectories {
                    continue;
                }
                jobs.push(Job {
                    group: gi,
                    trajectory: ti,
                    history: 0,
                    items: &t.messages_and_choices,
                    tools: t.tools.as_ref(),
                    advantage,
                });
                for (k, h) in t.additional_histories.iter().enumerate() {
                    jobs.push(Job {
                        group: gi,
                        trajectory: ti,
                        history: k + 1,
                        items: &h.messages_and_choices,
                        tools: h.tools.as_ref(),
                        advantage,
                    });
                }
            }
        }

        let parallel_encode = jobs.len() < 2 * self.threads();
        let outcomes: Vec<Result<Option<TokenizedResult>>> = self.map_parallel(&jobs, |j| {
            if cancel.is_some_and(crate::CancelFlag::is_cancelled) {
                return Ok(None); // the caller reports the cancellation
            }
            self.tokenize_items(j.items, j.tools, j.advantage, opts, parallel_encode)
                .map(|r| {
                    r.map(|mut r| {
                        r.group_index = j.group;
                        r.trajectory_index = j.trajectory;
                        r.history_index = j.history;
                        r
                    })
                })
                .map_err(|e| {
                    e.at(|l| {
                        l.group = Some(j.group);
                        l.trajectory = Some(j.trajectory);
                        l.history = Some(j.history);
                    })
                })
        });

        // assemble, group by group, in input order (the random draws depend on it)
        let mut rng = PyRandom::new(opts.seed);
        let mut outcomes = outcomes.into_iter().zip(&jobs).peekable();
        for gi in 0..groups.len() {
            if !active[gi] {
                continue;
            }
            let mut results: Vec<TokenizedResult> = Vec::new();
            while let Some((_, job)) = outcomes.peek() {
                if job.group != gi {
                    break;
                }
                let ti = job.trajectory;
                let mut trajectory_results = Vec::new();
                let mut failed = false;
                while let Some((_, job)) = outcomes.peek() {
                    if job.group != gi || job.trajectory != ti {
                        break;
                    }
                    let (outcome, _) = outcomes.next().expect("peeked");
                    match outcome {
                        Ok(Some(r)) => trajectory_results.push(r),
                        Ok(None) => {}
                        Err(e) => {
                            failed = true;
                            out[gi].errors.push(e);
                        }
                    }
                }
                if failed {
                    continue;
                }
                let trainable: usize = trajectory_results.iter().map(TokenizedResult::trainable_tokens).sum();
                let weight = 1.0 / (trainable as f64 + 1e-6);
                for r in &mut trajectory_results {
                    r.weight = weight;
                }
                results.extend(trajectory_results);
            }
            let prompt_id = rng.randint_i64();
            let prompt_length = prompt_length(&results);
            for r in &mut results {
                r.prompt_id = prompt_id;
                r.prompt_length = prompt_length;
            }
            if opts.shuffle_group_trajectories {
                rng.shuffle(&mut results);
            }
            out[gi].results = results;
        }
        // In input order, like the exception ART would raise first (validation errors were
        // collected before the tokenization ones).
        for g in &mut out {
            g.errors.sort_by_key(|e| (e.location.trajectory, e.location.history, e.location.item));
        }
        out
    }

    fn map_parallel<T: Sync, R: Send>(&self, items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
        cfg_if::cfg_if! {
            if #[cfg(target_arch = "wasm32")] {
                items.iter().map(f).collect()
            } else {
                use rayon::prelude::*;
                self.tok.inner.scheduler.pool().install(|| items.par_iter().with_max_len(1).map(f).collect())
            }
        }
    }

    fn threads(&self) -> usize {
        cfg_if::cfg_if! {
            if #[cfg(target_arch = "wasm32")] {
                1
            } else {
                self.tok.inner.scheduler.threads().max(1)
            }
        }
    }
}

/// `max(min(P, F) - 1, 0)`: `P` the longest common prefix of all token ids (a single result:
/// its length), `F` the smallest index of a first non-NaN logprob (a result without one counts
/// its length; no results: 0).
pub(crate) fn prompt_length(results: &[TokenizedResult]) -> usize {
    let Some(first) = results.first() else { return 0 };
    let mut p = first.token_ids.len();
    for r in &results[1..] {
        p = p.min(r.token_ids.len());
        p = first.token_ids[..p].iter().zip(&r.token_ids[..p]).position(|(a, b)| a != b).unwrap_or(p);
    }
    let f = results
        .iter()
        .map(|r| r.logprobs.iter().position(|x| !x.is_nan()).unwrap_or(r.logprobs.len()))
        .min()
        .unwrap_or(0);
    p.min(f).saturating_sub(1)
}
