//! One history → one [`TokenizedResult`] (ART's `tokenize_trajectory`): cut the history after
//! its last trainable item, render the chat, find the sentinel, render the token template
//! (`continue_final_message`), encode it, splice every trainable message's ids in (sampled
//! ids for Choices, `encode(content)` for plain-dict turns), with the `<think>` adjustment and
//! the duplicate end-token removal, then the extra logprobs and `input_pos`.

use serde_json::Value;

use super::error::{Result, TrajectoryError, TrajectoryErrorKind as K};
use super::input::{Item, Token, TokenLogprob};
use super::messages::{chat_messages, is_sentinel_item, template_tools, token_template_messages};
use super::result::TokenizedResult;
use super::splice::{Found, SpliceList};
use super::{TrajectoryOptions, TrajectoryTokenizer};
use crate::chat_template::ChatRequest;

const THINK: &str = "<think>";

impl TrajectoryTokenizer {
    /// Tokenize one history. `Ok(None)`: no trainable item. Errors carry the item index.
    pub(crate) fn tokenize_items(
        &self,
        items: &[Item],
        tools: Option<&Value>,
        advantage: f64,
        opts: &TrajectoryOptions,
        parallel_encode: bool,
    ) -> Result<Option<TokenizedResult>> {
        let allow = opts.allow_training_without_logprobs;
        // the last trainable item; `message["role"]` is read for every dict
        let mut last = None;
        for (i, item) in items.iter().enumerate() {
            match item {
                Item::Message(m) => {
                    let role =
                        m.get("role").ok_or_else(|| TrajectoryError::new(K::MissingRole).at(|l| l.item = Some(i)))?;
                    if allow && role.as_str() == Some("assistant") {
                        last = Some(i);
                    }
                }
                Item::Choice(c) => {
                    if c.logprobs.is_some() || allow {
                        last = Some(i);
                    }
                }
            }
        }
        let Some(last) = last else { return Ok(None) };
        let items = &items[..=last];

        let messages = chat_messages(items, self.parse_tool_call_arguments)?;
        let tools = template_tools(tools, opts.tool_schema_format);
        let kwargs = self.kwargs(opts);
        let template_err = |e: crate::chat_template::ChatTemplateError| {
            TrajectoryError::new(K::ChatTemplate(e.to_string())).caused_by(e)
        };

        let chat = self
            .template
            .render(&ChatRequest {
                messages: Value::Array(messages.clone()),
                tools: tools.clone(),
                kwargs: kwargs.clone(),
                ..Default::default()
            })
            .map_err(template_err)?
            .text;

        let sentinel = match self.sentinel.shortcut(&self.tok, &chat) {
            Some(s) => s,
            None => {
                let ids = self.encode(&chat, parallel_encode)?;
                self.sentinel.highest_absent(&ids).ok_or_else(|| {
                    TrajectoryError::new(K::Setup(
                        "max() arg is an empty sequence: the chat uses every base-vocabulary id".into(),
                    ))
                })?
            }
        };
        let sentinel_text = self.decode_one(sentinel);

        let token_messages = token_template_messages(items, messages, &sentinel_text, allow);
        let template_text = self
            .template
            .render(&ChatRequest {
                messages: Value::Array(token_messages),
                tools,
                kwargs,
                continue_final_message: true,
                ..Default::default()
            })
            .map_err(template_err)?
            .text;
        let template_ids = self.encode(&template_text, parallel_encode)?;

        let sampled: usize = items
            .iter()
            .map(|it| match it {
                Item::Choice(c) => c.logprobs.as_ref().map_or(0, |l| l.entries().len()),
                Item::Message(_) => 0,
            })
            .sum();
        let mut list = SpliceList::new(&template_ids, sentinel, sampled);
        let mut choice_offsets = Vec::new();
        let mut recorded: Vec<(usize, &[TokenLogprob])> = Vec::new();

        for (i, item) in items.iter().enumerate() {
            let at = |e: TrajectoryError| e.at(|l| l.item = Some(i));
            let is_choice = matches!(item, Item::Choice(_));
            if !is_choice && (!allow || !is_sentinel_item(item, allow)) {
                continue;
            }
            if let Item::Choice(c) = item {
                if c.logprobs.is_none() && !allow {
                    continue;
                }
            }
            let start = match list.find_sentinel() {
                Found::Template(s) => s,
                Found::Spliced(s) => {
                    if opts.validate_sampled_tokens {
                        return Err(at(TrajectoryError::new(K::SentinelCollision { sentinel })));
                    }
                    s
                }
                Found::Missing => return Err(at(TrajectoryError::new(K::SentinelNotFound { sentinel }))),
            };
            let end = start + 1;
            let end_token = list.get(end);
            match item {
                Item::Message(m) => {
                    if m.get("tool_calls").is_some_and(super::messages::py_truthy) {
                        return Err(at(TrajectoryError::new(K::DictToolCalls)));
                    }
                    let Some(Value::String(content)) = m.get("content") else {
                        return Err(at(TrajectoryError::new(K::DictContentNotString)));
                    };
                    let ids = self.encode(content, false).map_err(at)?;
                    list.replace(start, end, &ids, None);
                }
                Item::Choice(c) => {
                    let Some(lp) = &c.logprobs else { continue };
                    let entries = lp.entries();
                    let mut start = start as isize;
                    if let Some(first) = entries.first() {
                        if first_bytes_are_think(first).map_err(at)? {
                            let before = list.get_py(start - 4).ok_or_else(|| {
                                at(TrajectoryError::new(K::Index("list index out of range (<think> check)".into())))
                            })?;
                            if self.decode_one(before) == THINK {
                                start -= 4;
                            }
                        }
                    }
                    if start < 0 {
                        return Err(at(TrajectoryError::new(K::Index(
                            "the <think> adjustment moves the splice before the start of the token list".into(),
                        ))));
                    }
                    let start = start as usize;
                    choice_offsets.push(start);
                    recorded.push((start, entries));
                    let ids = self.sampled_ids(entries, opts.validate_sampled_tokens).map_err(at)?;
                    let mut lps = entries.iter().map(|e| e.logprob);
                    list.replace(start, end, &ids, Some(&mut lps));
                    let n = entries.len() as isize;
                    let last = list.get_py(start as isize + n - 1).ok_or_else(|| {
                        at(TrajectoryError::new(K::Index("list index out of range (end-token check)".into())))
                    })?;
                    if end_token == Some(last) {
                        list.remove(start + entries.len());
                    }
                }
            }
        }

        let (token_ids, assistant_mask, logprobs) = list.finish();
        let n = token_ids.len();
        let mut extra_logprobs: Vec<(String, Vec<f64>)> = Vec::new();
        for (offset, entries) in recorded {
            for (i, e) in entries.iter().enumerate() {
                let Some(extra) = e.extra_logprobs() else { continue };
                for (key, value) in extra {
                    let value = value.clone().map_err(|m| TrajectoryError::new(K::ExtraLogprobs(m)))?;
                    let pos = offset + i;
                    let col = match extra_logprobs.iter().position(|(k, _)| k == key) {
                        Some(c) => c,
                        None => {
                            extra_logprobs.push((key.clone(), vec![f64::NAN; n]));
                            extra_logprobs.len() - 1
                        }
                    };
                    let slot = extra_logprobs[col].1.get_mut(pos).ok_or_else(|| {
                        TrajectoryError::new(K::ExtraLogprobs(format!("list assignment index {pos} out of range")))
                    })?;
                    *slot = value;
                }
            }
        }
        Ok(Some(TokenizedResult {
            input_pos: (0..n as u32).collect(),
            token_ids,
            assistant_mask,
            logprobs,
            choice_offsets,
            extra_logprobs,
            advantage,
            weight: 0.0,
            prompt_id: 0,
            prompt_length: 0,
            chat,
            group_index: 0,
            trajectory_index: 0,
            history_index: 0,
        }))
    }

    /// The sampled ids of a Choice: `int(token.split(":")[1])` for every entry, or, if any
    /// entry does not parse, `convert_tokens_to_ids(token or eos_token)` for all (unknown →
    /// unk, else EOS).
    fn sampled_ids(&self, entries: &[TokenLogprob], validate: bool) -> Result<Vec<u32>> {
        let check = |id: u32| -> Result<u32> {
            if validate && id as usize >= self.full_vocab {
                return Err(TrajectoryError::new(K::TokenIdOutOfVocabulary { id, vocab_size: self.full_vocab }));
            }
            Ok(id)
        };
        if entries.iter().all(|e| matches!(e.token, Token::Id(_))) {
            return entries
                .iter()
                .map(|e| check(if let Token::Id(id) = e.token { id } else { unreachable!() }))
                .collect();
        }
        let parsed: Option<Vec<i128>> = entries
            .iter()
            .map(|e| match &e.token {
                Token::Id(id) => Some(*id as i128),
                Token::Text(s) => s.split(':').nth(1).and_then(py_int),
            })
            .collect();
        if let Some(values) = parsed {
            return values
                .iter()
                .zip(entries)
                .map(|(&v, e)| {
                    let id = u32::try_from(v)
                        .map_err(|_| TrajectoryError::new(K::UnrepresentableTokenId(e.token.text().into_owned())))?;
                    check(id)
                })
                .collect();
        }
        let mut out = Vec::with_capacity(entries.len());
        for e in entries {
            let text = e.token.text();
            let text: &str = if text.is_empty() {
                match &self.eos {
                    Some((s, _)) => s,
                    None => {
                        return Err(TrajectoryError::new(K::Setup(
                            "an empty sampled token needs the tokenizer's eos_token".into(),
                        )))
                    }
                }
            } else {
                &text
            };
            let id = match self.tok.token_to_id(text) {
                Some(id) => id,
                None if validate => return Err(TrajectoryError::new(K::TokenNotInVocabulary(text.to_string()))),
                None => match self.unk_id.or(self.eos.as_ref().map(|e| e.1)) {
                    Some(id) => id,
                    None => {
                        return Err(TrajectoryError::new(K::Setup(format!(
                            "no id for sampled token {text:?} and no eos_token"
                        ))))
                    }
                },
            };
            out.push(id);
        }
        Ok(out)
    }
}

/// `bytes(entry.bytes or []).decode("utf-8") == "<think>"`, with Python's errors.
fn first_bytes_are_think(e: &TokenLogprob) -> Result<bool> {
    let Some(b) = e.bytes() else { return Ok(false) };
    let mut bytes = Vec::with_capacity(b.len());
    for &x in b {
        let x = u8::try_from(x)
            .map_err(|_| TrajectoryError::new(K::InvalidBytes("bytes must be in range(0, 256)".into())))?;
        bytes.push(x);
    }
    let s = std::str::from_utf8(&bytes)
        .map_err(|e| TrajectoryError::new(K::InvalidBytes(format!("'utf-8' codec can't decode: {e}"))).caused_by(e))?;
    Ok(s == THINK)
}

/// Python's `int(s)` for base 10: surrounding whitespace, a sign, ASCII digits with single
/// underscores between them. (Non-ASCII decimal digits, which Python also accepts, are not.)
pub(crate) fn py_int(s: &str) -> Option<i128> {
    let t = s.trim_matches(|c: char| c.is_whitespace());
    let (neg, digits) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") {
        return None;
    }
    let mut v: i128 = 0;
    for b in digits.bytes() {
        match b {
            b'_' => {}
            b'0'..=b'9' => v = v.checked_mul(10)?.checked_add((b - b'0') as i128)?,
            _ => return None,
        }
    }
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::py_int;

    #[test]
    fn python_int_parsing() {
        assert_eq!(py_int("123"), Some(123));
        assert_eq!(py_int(" 12 "), Some(12));
        assert_eq!(py_int("+7"), Some(7));
        assert_eq!(py_int("-5"), Some(-5));
        assert_eq!(py_int("1_000"), Some(1000));
        assert_eq!(py_int("007"), Some(7));
        assert_eq!(py_int("1__0"), None);
        assert_eq!(py_int("_1"), None);
        assert_eq!(py_int(""), None);
        assert_eq!(py_int("1.0"), None);
        assert_eq!(py_int("abc"), None);
    }
}
