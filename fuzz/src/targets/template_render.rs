//! Any template source either fails to compile or renders a conversation with an `Ok` or an
//! error: no panic, no hang (fuel), bounded memory (fuel counts the data a render builds,
//! and the output is capped). libFuzzer's `-timeout` and `-rss_limit_mb` catch the rest.
use serde_json::json;
use yieldtok_chat::{ChatRequest, ChatTemplate, ChatTemplateOptions, Limits};

/// One input: panics (fails the fuzz run) when the property does not hold.
pub fn check(data: &[u8]) {
    let Ok(source) = std::str::from_utf8(data) else { return };
    let limits = Limits { fuel: Some(200_000), max_output_bytes: 1 << 20, ..Limits::default() };
    let clock = yieldtok_chat::fixed_clock(Default::default());
    let options = ChatTemplateOptions { limits, clock, ..Default::default() };
    let specials = json!({"bos_token": "<s>", "eos_token": "</s>", "pad_token": null});
    let Ok(template) = ChatTemplate::with_options(source, specials.as_object().unwrap().clone(), options) else {
        return;
    };
    let request = ChatRequest {
        messages: json!([
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "What is 2+2? <b>é</b> 🙂"},
            {"role": "assistant", "content": "4", "reasoning_content": "easy",
             "tool_calls": [{"type": "function", "function": {"name": "add", "arguments": {"a": 2, "b": 2}}}]},
            {"role": "tool", "content": "4"},
            {"role": "user", "content": [{"type": "text", "text": "And 3+3?"}]}
        ]),
        tools: Some(json!([{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}])),
        documents: None,
        add_generation_prompt: true,
        continue_final_message: false,
        continue_final_field: None,
        kwargs: Default::default(),
    };
    if let Ok(out) = template.render(&request) {
        assert!(out.text.len() <= 1 << 20, "output over the limit: {} bytes", out.text.len());
        for span in &out.generation_spans {
            assert!(span.start <= span.end && span.end <= out.text.len(), "generation span {span:?} outside the text");
        }
    }
}
