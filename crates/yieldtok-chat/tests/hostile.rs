//! Untrusted templates end with a clear error, quickly, without crashing.

use std::time::{Duration, Instant};

use serde_json::json;
use yieldtok_chat::{ChatRequest, ChatTemplate, ChatTemplateError, ChatTemplateOptions};

/// Generous: a debug build on a loaded 2-core machine (release builds stop
/// every case below within about a second).
const BOUND: Duration = Duration::from_secs(if cfg!(debug_assertions) { 60 } else { 10 });

fn render(src: &str) -> Result<String, ChatTemplateError> {
    let t = ChatTemplate::new(src, Default::default())?;
    let req = ChatRequest { messages: json!([{"role": "user", "content": "hi"}]), ..Default::default() };
    t.render(&req).map(|r| r.text)
}

fn expect_err(src: &str, check: impl Fn(&ChatTemplateError) -> bool) {
    let t0 = Instant::now();
    let r = render(src);
    let took = t0.elapsed();
    match r {
        Ok(text) => panic!("{src:?} rendered {} bytes instead of failing", text.len()),
        Err(e) => {
            assert!(check(&e), "{src:?}: unexpected error {e:?}");
            assert!(took < BOUND, "{src:?}: took {took:?}");
            eprintln!("{:>10.1?}  {e}", took);
        }
    }
}

#[test]
fn infinite_recursion_hits_the_recursion_limit() {
    expect_err("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", |e| {
        matches!(e, ChatTemplateError::RecursionLimit { .. })
    });
    expect_err(
        "{% macro f(n) %}{% for i in [1] %}{% if true %}{% set x %}{{ f(n) }}{% endset %}{{ x }}{% endif %}{% endfor %}{% endmacro %}{{ f(0) }}",
        |e| matches!(e, ChatTemplateError::RecursionLimit { .. }),
    );
    expect_err("{% for x in [1] recursive %}{{ loop([1]) }}{% endfor %}", |e| {
        matches!(e, ChatTemplateError::RecursionLimit { .. })
    });
}

#[test]
fn endless_loops_run_out_of_fuel() {
    expect_err("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", |e| {
        matches!(e, ChatTemplateError::FuelExhausted { .. })
    });
    // exponential work through shared sub-values
    expect_err(
        "{% set ns = namespace(x=[1]) %}{% for i in range(64) %}{% set ns.x = [ns.x, ns.x] %}{% endfor %}{{ ns.x | length }}",
        |e| matches!(e, ChatTemplateError::FuelExhausted { .. }),
    );
}

#[test]
fn huge_output_and_huge_values_are_refused() {
    expect_err(
        "{% for i in range(100000) %}{% for j in range(100000) %}{{ 'x' * 1000 }}{% endfor %}{% endfor %}",
        |e| matches!(e, ChatTemplateError::OutputTooLarge { .. } | ChatTemplateError::FuelExhausted { .. }),
    );
    for src in [
        "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}",
        "{{ 'x' * 1000000000000 }}",
        "{{ 'abc' | center(1000000000000) }}",
        "{{ 'abc'.ljust(1000000000000) }}",
        "{{ messages | tojson(indent=100000000) }}",
        "{% set ns = namespace(l=['xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx']) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l | join(',') | length }}",
    ] {
        expect_err(src, |e| {
            matches!(e, ChatTemplateError::OutputTooLarge { .. } | ChatTemplateError::FuelExhausted { .. })
        });
    }
    // minijinja's own size checks
    expect_err("{{ range(1000000000) | list | length }}", |e| matches!(e, ChatTemplateError::Render { .. }));
    expect_err("{{ (range(100000) | list) * 100000 }}", |e| matches!(e, ChatTemplateError::Render { .. }));
}

#[test]
fn deep_or_cyclic_values_are_refused_before_they_can_overflow_the_stack() {
    for src in [
        "{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% endfor %}done",
        "{% set ns = namespace(x={}) %}{% for i in range(100000) %}{% set ns.x = {'a': ns.x} %}{% endfor %}{{ ns.x == ns.x }}",
        "{% set ns = namespace(a=1) %}{% set ns.me = ns %}{{ ns ~ '' }}",
        "{% set ns = namespace(a=1) %}{% set ns.l = [ns] %}{{ ns | pprint }}",
        "{% set ns = namespace(a=1) %}{% set ns2 = namespace(x=ns) %}{% set ns.b = ns2 %}{{ ns ~ '' }}",
        // a linked list of namespaces, one link per iteration
        "{% set head = namespace(next=none) %}{% set h = namespace(tail=head) %}{% for i in range(100000) %}{% set t = h.tail %}{% set fresh = namespace(next=none) %}{% set t.next = fresh %}{% set h.tail = fresh %}{% endfor %}done",
        "{% set ns = namespace(a=1) %}{% for n in [ns] %}{% set n.me = [{'x': ns}] %}{% endfor %}{{ ns ~ '' }}",
    ] {
        expect_err(src, |e| {
            matches!(e, ChatTemplateError::Render { message, .. } if message.contains("nested more than") || message.contains("namespace cannot be stored"))
        });
    }
    let long_chain = format!("{{{{ [1]{} }}}}", "|batch(1)".repeat(100_000));
    expect_err(&long_chain, |e| matches!(e, ChatTemplateError::Syntax { .. }));
    let deep_parens = format!("{{{{ {}1{} }}}}", "(".repeat(100_000), ")".repeat(100_000));
    expect_err(&deep_parens, |e| matches!(e, ChatTemplateError::Syntax { .. }));
    let deep_list = format!("{{{{ {}1{} }}}}", "[".repeat(100_000), "]".repeat(100_000));
    expect_err(&deep_list, |e| matches!(e, ChatTemplateError::Syntax { .. }));
    let deep_ifs = format!("{}x{}", "{% if true %}".repeat(100_000), "{% endif %}".repeat(100_000));
    expect_err(&deep_ifs, |e| matches!(e, ChatTemplateError::Syntax { .. }));
}

#[test]
fn deep_input_is_refused() {
    // (json!'s interpolation would serialise `v` recursively: build it by hand)
    let mut v = serde_json::Value::String("x".into());
    for _ in 0..100_000 {
        v = serde_json::Value::Array(vec![v]);
    }
    let mut msg = serde_json::Map::new();
    msg.insert("role".into(), "user".into());
    msg.insert("content".into(), v);
    let t = ChatTemplate::new("{{ messages }}", Default::default()).unwrap();
    let req =
        ChatRequest { messages: serde_json::Value::Array(vec![serde_json::Value::Object(msg)]), ..Default::default() };
    let e = t.render(&req).unwrap_err();
    assert!(matches!(e, ChatTemplateError::InvalidMessages { .. }), "{e:?}");
    // serde_json's own Drop is recursive too: take the deep value apart iteratively
    let mut stack = vec![req.messages];
    while let Some(mut v) = stack.pop() {
        match &mut v {
            serde_json::Value::Array(a) => stack.append(a),
            serde_json::Value::Object(m) => stack.extend(std::mem::take(m).into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[test]
fn syntax_errors_and_raises_are_reported() {
    for src in [
        "{% for m in messages %}",
        "{{ x ",
        "{% if %}{% endif %}",
        "{% endfor %}",
        "{{ 1 + }}",
        "{% generation %}x",
        "{% set %}",
    ] {
        expect_err(src, |e| matches!(e, ChatTemplateError::Syntax { .. }));
    }
    expect_err(
        "{{ raise_exception('roles must alternate') }}",
        |e| matches!(e, ChatTemplateError::Raised { message } if message == "roles must alternate"),
    );
    expect_err(
        "{% macro m() %}{{ raise_exception('inside ' ~ 'macro') }}{% endmacro %}{{ m() }}",
        |e| matches!(e, ChatTemplateError::Raised { message } if message == "inside macro"),
    );
    expect_err("{{ undefined_var.attr }}", |e| matches!(e, ChatTemplateError::Render { .. }));
    expect_err("{% include 'other' %}", |e| matches!(e, ChatTemplateError::Render { .. }));
}

#[test]
fn limits_are_configurable() {
    let mut o = ChatTemplateOptions::default();
    o.limits.max_output_bytes = 10;
    let t = ChatTemplate::with_options("{{ 'x' * 11 }}", Default::default(), o).unwrap();
    let e = t.render_context(&json!({})).unwrap_err();
    assert!(matches!(e, ChatTemplateError::OutputTooLarge { limit: 10 }), "{e:?}");
    let mut o = ChatTemplateOptions::default();
    o.limits.fuel = Some(100);
    let t = ChatTemplate::with_options("{% for i in range(1000) %}{{ i }}{% endfor %}", Default::default(), o).unwrap();
    assert!(matches!(t.render_context(&json!({})).unwrap_err(), ChatTemplateError::FuelExhausted { fuel: 100 }));
}

#[test]
fn chat_template_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ChatTemplate>();
    let t = std::sync::Arc::new(
        ChatTemplate::new("{{ messages[0].content }}{{ strftime_now('%Y') | length }}", Default::default()).unwrap(),
    );
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let t = t.clone();
            std::thread::spawn(move || {
                let req = ChatRequest {
                    messages: json!([{"role": "user", "content": format!("m{i}")}]),
                    ..Default::default()
                };
                t.render(&req).unwrap().text
            })
        })
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        assert_eq!(h.join().unwrap(), format!("m{i}4"));
    }
}
