//! API-level tests that need no fixtures or oracle. The expected strings
//! were produced by transformers 5.24 (`render_jinja_template`, jinja2 3.1.6).

use serde_json::{json, Map, Value as Json};

use super::*;

const TEMPLATE: &str = "{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>\
{% if m.reasoning_content is defined %}<think>{{ m.reasoning_content | trim }}</think>{% endif %}\
{% if m.role == 'assistant' %}{% generation %}{{ m.content | default('') }}\
{% for c in m.tool_calls | default([]) %}<call>{{ c.function | tojson }}</call>{% endfor %}<|end|>{% endgeneration %}\
{% else %}{{ m.content }}<|end|>{% endif %}\n{% endfor %}\
{% if tools %}Tools: {{ tools | tojson(indent=2) }}\n{% endif %}\
{% if add_generation_prompt %}<|assistant|>{% endif %}";

fn special() -> Map<String, Json> {
    special_tokens_from_config(&json!({
        "bos_token": "<s>",
        "eos_token": {"__type": "AddedToken", "content": "</s>", "lstrip": false},
        "unk_token": null,
        "pad_token": null,
        "additional_special_tokens": ["<x>"],
    }))
}

fn messages() -> Json {
    json!([
        {"role": "system", "content": "Sys é 😀"},
        {"role": "user", "content": "What's 0.1+0.2? <b>&</b>"},
        {"role": "assistant", "content": null, "reasoning": " adding ",
         "tool_calls": [{"type": "function", "function": {"name": "add", "arguments": {"a": 0.1, "b": 2e-07, "n": null}}}]},
        {"role": "tool", "content": "0.30000000000000004"},
        {"role": "assistant", "content": "About 0.3"}
    ])
}

#[test]
fn special_tokens_follow_transformers_special_tokens_map() {
    let s = special();
    assert_eq!(Json::Object(s), json!({"bos_token": "<s>", "eos_token": "</s>"}));
}

#[test]
fn renders_like_transformers_with_spans() {
    let t = ChatTemplate::new(TEMPLATE, special()).unwrap();
    assert!(t.has_generation_blocks());
    let tools = json!([{"type": "function", "function": {"name": "add", "description": "Add 'a' and \"b\"",
        "parameters": {"type": "object", "properties": {"a": {"type": "number"}}}}}]);
    let req =
        ChatRequest { messages: messages(), tools: Some(tools), add_generation_prompt: true, ..Default::default() };
    let r = t.render(&req).unwrap();
    let want = "<s><|system|>Sys \u{e9} \u{1f600}<|end|><|user|>What's 0.1+0.2? <b>&</b><|end|><|assistant|><think>adding</think><call>{\"name\": \"add\", \"arguments\": {\"a\": 0.1, \"b\": 2e-07, \"n\": null}}</call><|end|><|tool|>0.30000000000000004<|end|><|assistant|>About 0.3<|end|>Tools: [\n  {\n    \"type\": \"function\",\n    \"function\": {\n      \"name\": \"add\",\n      \"description\": \"Add 'a' and \\\"b\\\"\",\n      \"parameters\": {\n        \"type\": \"object\",\n        \"properties\": {\n          \"a\": {\n            \"type\": \"number\"\n          }\n        }\n      }\n    }\n  }\n]\n<|assistant|>";
    assert_eq!(r.text, want);
    assert_eq!(r.generation_spans, vec![104..187, 234..250]);
    assert_eq!(&r.text[234..250], "About 0.3<|end|>");
    // tokens overlapping a span are masked
    assert_eq!(assistant_mask(&r.generation_spans, &[(0, 3), (100, 105), (187, 190), (240, 260)]), vec![0, 1, 0, 1]);
}

#[test]
fn continue_final_message_cuts_like_transformers() {
    let t = ChatTemplate::new(TEMPLATE, special()).unwrap();
    let req = ChatRequest {
        messages: json!([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Sure, here  "}]),
        continue_final_message: true,
        ..Default::default()
    };
    assert_eq!(t.render(&req).unwrap().text, "<s><|user|>Hi<|end|><|assistant|>Sure, here  ");
    let both = ChatRequest { add_generation_prompt: true, ..req };
    assert!(matches!(t.render(&both), Err(ChatTemplateError::InvalidArgument { .. })));
}

#[test]
fn kwargs_override_special_tokens_and_reserved_names_are_refused() {
    let t = ChatTemplate::new("{{ bos_token }}|{{ eos_token }}|{{ enable_thinking }}", special()).unwrap();
    let mut kwargs = Map::new();
    kwargs.insert("bos_token".into(), json!("<B>"));
    kwargs.insert("enable_thinking".into(), json!(false));
    let req = ChatRequest { messages: json!([{"role": "user", "content": "x"}]), kwargs, ..Default::default() };
    assert_eq!(t.render(&req).unwrap().text, "<B>|</s>|False");
    let mut bad = req.clone();
    bad.kwargs.insert("messages".into(), json!([]));
    assert!(matches!(t.render(&bad), Err(ChatTemplateError::InvalidArgument { .. })));
}

#[test]
fn inputs_are_validated_like_transformers() {
    let t = ChatTemplate::new("{{ messages }}", Map::new()).unwrap();
    let render = |messages: Json| t.render(&ChatRequest { messages, ..Default::default() });
    assert!(matches!(render(json!([])), Err(ChatTemplateError::InvalidArgument { .. })));
    assert!(matches!(render(json!(["hi"])), Err(ChatTemplateError::InvalidMessages { .. })));
    assert!(matches!(render(json!({"role": "user"})), Err(ChatTemplateError::InvalidMessages { .. })));
    assert_eq!(
        render(json!([{"role": "user", "content": null, "x": [1.5, null, true]}])).unwrap().text,
        "[{'role': 'user', 'x': [1.5, None, True]}]"
    );
}

#[test]
fn strftime_now_uses_the_injected_clock() {
    let now = chrono::NaiveDate::from_ymd_opt(2024, 7, 26).unwrap().and_hms_opt(9, 5, 3).unwrap();
    let options = ChatTemplateOptions { clock: fixed_clock(now), ..Default::default() };
    let t = ChatTemplate::with_options("{{ strftime_now('%d %b %Y, %H:%M') }}", Map::new(), options).unwrap();
    assert_eq!(t.render_context(&json!({})).unwrap().text, "26 Jul 2024, 09:05");
}

#[test]
fn raise_exception_is_reported_with_its_message() {
    let t = ChatTemplate::new(
        "{% if messages[0].role != 'system' %}{{ raise_exception('need a system prompt') }}{% endif %}",
        Map::new(),
    )
    .unwrap();
    let e = t
        .render(&ChatRequest { messages: json!([{"role": "user", "content": "x"}]), ..Default::default() })
        .unwrap_err();
    assert!(matches!(&e, ChatTemplateError::Raised { message } if message == "need a system prompt"), "{e:?}");
    assert_eq!(e.python_exception(), "TemplateError");
}

#[test]
fn template_source_is_normalised_like_jinja2() {
    let t = ChatTemplate::new("{% for m in messages %}\r\n{{ m.role }}\r{% endfor %}\r\n", Map::new()).unwrap();
    let r = t.render(&ChatRequest { messages: json!([{"role": "a"}, {"role": "b"}]), ..Default::default() }).unwrap();
    assert_eq!(r.text, "a\nb\n");
}
