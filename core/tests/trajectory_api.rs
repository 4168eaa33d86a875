//! `yieldtok::trajectory` API behaviour beyond ART parity (which `trajectory_art.rs` checks):
//! per-trajectory errors with locations, the rest of the batch kept, validation of sampled
//! tokens, bytes vs value parsing, single histories, packing arguments, thread safety.

use serde_json::{json, Value};
use yieldtok::trajectory::{
    self, History, PackOptions, TrajectoryErrorKind as K, TrajectoryOptions, TrajectoryTokenizer,
};

fn qwen3() -> TrajectoryTokenizer {
    let tok = yieldtok::Tokenizer::from_dir(yieldtok_testkit::fixtures::dir("qwen3").unwrap()).unwrap();
    TrajectoryTokenizer::new(&tok, None).unwrap()
}

/// A short trajectory: system, user, one sampled answer ("Sunny." + <|im_end|>).
fn trajectory(reward: f64, token: &str) -> Value {
    json!({
        "messages_and_choices": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Weather?"},
            {"finish_reason": "stop", "index": 0,
             "message": {"role": "assistant", "content": "Sunny."},
             "logprobs": {"content": [
                 {"token": token, "logprob": -0.5, "bytes": [83]},
                 {"token": "token_id:13", "logprob": -0.25},
                 {"token": "token_id:151645", "logprob": -0.125}]}}
        ],
        "reward": reward
    })
}

#[test]
fn errors_name_their_place_and_spare_the_rest() {
    let tt = qwen3();
    let mut missing_token = trajectory(0.0, "token_id:50");
    missing_token["messages_and_choices"][2]["logprobs"]["content"][1].as_object_mut().unwrap().remove("token");
    let groups = json!([
        [trajectory(1.0, "token_id:50"), trajectory(0.0, "token_id:50"), missing_token],
        [trajectory(1.0, "token_id:999999999"), trajectory(0.0, "token_id:50")],
        [{"messages_and_choices": [{"content": "no role"}, trajectory(1.0, "token_id:50")["messages_and_choices"][2]], "reward": 1.0},
         trajectory(0.0, "token_id:50")],
    ]);
    let parsed = trajectory::groups_from_value(&groups).unwrap();
    let from_bytes = trajectory::parse_groups(&serde_json::to_vec(&groups).unwrap()).unwrap();
    let opts = TrajectoryOptions { seed: Some(3), ..Default::default() };
    let out = tt.tokenize_trajectory_groups(&parsed, &opts);
    let out_b = tt.tokenize_trajectory_groups(&from_bytes, &opts);
    assert_eq!(out.len(), 3);
    for (a, b) in out.iter().zip(&out_b) {
        assert_eq!(a.errors, b.errors);
        assert_eq!(a.results.len(), b.results.len());
        for (x, y) in a.results.iter().zip(&b.results) {
            assert_eq!(x.token_ids, y.token_ids);
            assert_eq!(x.prompt_id, y.prompt_id);
        }
    }

    // group 0: the invalid trajectory is reported (item 2) and left out of the group
    let g0 = &out[0];
    assert_eq!(g0.errors.len(), 1);
    let e = &g0.errors[0];
    assert_eq!(
        (e.location.group, e.location.trajectory, e.location.history, e.location.item),
        (Some(0), Some(2), Some(0), Some(2))
    );
    assert!(matches!(e.kind, K::InvalidInput(_)), "{e}");
    assert!(e.to_string().contains("token"), "{e}");
    assert_eq!(g0.results.len(), 2, "rewards 1 and 0 of the two valid trajectories: both kept");
    let r = g0.results.iter().find(|r| r.trajectory_index == 0).unwrap();
    assert_eq!(r.assistant_mask.iter().filter(|&&m| m == 1).count(), 3);
    assert!((r.advantage - 0.5 / (0.5 + 1e-6)).abs() < 1e-9);
    assert!(r.chat.ends_with("Sunny.<|im_end|>\n"));

    // group 1: an out-of-vocabulary sampled id is an error by default (ART would splice it)
    let g1 = &out[1];
    assert_eq!(g1.errors.len(), 1);
    assert!(matches!(g1.errors[0].kind, K::TokenIdOutOfVocabulary { id: 999999999, .. }), "{}", g1.errors[0]);
    assert_eq!(g1.errors[0].location.item, Some(2));
    assert_eq!(g1.results.len(), 1);
    let lenient = tt.tokenize_trajectory_groups(
        &parsed,
        &TrajectoryOptions { seed: Some(3), ..TrajectoryOptions::art_compatible() },
    );
    assert!(lenient[1].errors.is_empty());
    assert!(lenient[1].results.iter().any(|r| r.token_ids.contains(&999999999)));

    // group 2: a message without `role` (ART: KeyError) fails its trajectory only
    let g2 = &out[2];
    assert_eq!(g2.errors.len(), 1);
    assert_eq!(g2.errors[0].kind, K::MissingRole);
    assert_eq!(g2.errors[0].kind.art_exception(), Some("KeyError"));
    assert_eq!(g2.errors[0].location.item, Some(0));
    assert_eq!(g2.results.len(), 1);

    // all-or-nothing, like ART
    assert!(trajectory::into_results(out).is_err());

    // errors come in input order (a tokenization error of trajectory 0 before a validation
    // error of trajectory 1), with stable names, and convert into the crate's error
    let mut missing_token = trajectory(0.0, "token_id:50");
    missing_token["messages_and_choices"][2]["logprobs"]["content"][0].as_object_mut().unwrap().remove("token");
    let groups = trajectory::groups_from_value(&json!([[
        trajectory(1.0, "token_id:999999999"),
        missing_token,
        trajectory(0.0, "token_id:50")
    ]]))
    .unwrap();
    let g = &tt.tokenize_trajectory_groups(&groups, &opts)[0];
    let order: Vec<_> = g.errors.iter().map(|e| (e.location.trajectory, e.kind.name())).collect();
    assert_eq!(order, [(Some(0), "token_id_out_of_vocabulary"), (Some(1), "invalid_input")]);
    let e = &g.errors[0];
    assert!(e.class() == yieldtok::ErrorClass::InvalidInput && e.is_invalid_input(), "{e}");
}

#[test]
fn same_seed_same_draws_and_a_single_history() {
    let tt = qwen3();
    let groups = trajectory::groups_from_value(&json!([[
        trajectory(1.0, "token_id:50"),
        trajectory(0.0, "token_id:50"),
        trajectory(0.5, "token_id:50")
    ]]))
    .unwrap();
    let opts = TrajectoryOptions { seed: Some(7), ..Default::default() };
    let a = trajectory::into_results(tt.tokenize_trajectory_groups(&groups, &opts)).unwrap();
    let b = trajectory::into_results(tt.tokenize_trajectory_groups(&groups, &opts)).unwrap();
    assert_eq!(
        a.iter().map(|r| (r.prompt_id, r.trajectory_index)).collect::<Vec<_>>(),
        b.iter().map(|r| (r.prompt_id, r.trajectory_index)).collect::<Vec<_>>()
    );
    assert_eq!(a.len(), 2, "the zero-advantage trajectory (reward = mean) is dropped");
    // the group's shared prefix stops before the first sampled token
    let first_sampled = a[0].logprobs.iter().position(|x| !x.is_nan()).unwrap();
    assert_eq!(a[0].prompt_length, first_sampled - 1);

    let history: History =
        trajectory::history_from_value(&trajectory(1.0, "token_id:50")["messages_and_choices"]).unwrap();
    let one = tt.tokenize_trajectory(&history, 0.25, &opts).unwrap().unwrap();
    assert_eq!(one.token_ids, a[0].token_ids);
    assert_eq!((one.advantage, one.weight, one.prompt_id, one.prompt_length), (0.25, 0.0, 0, 0));
    let none = trajectory::history_from_value(&json!([{"role": "user", "content": "hi"}])).unwrap();
    assert!(tt.tokenize_trajectory(&none, 0.0, &opts).unwrap().is_none());

    let packed = trajectory::pack(&a, &PackOptions { seed: Some(1), ..PackOptions::new(64) }).unwrap();
    assert_eq!(packed.tokens.len(), packed.n_rows * 64);
    assert!(trajectory::pack(&a, &PackOptions::new(0)).is_err());
}

#[test]
fn is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<TrajectoryTokenizer>();
    check::<trajectory::TokenizedResult>();
    check::<trajectory::TrajectoryGroup>();
    check::<trajectory::Packed>();
}

#[test]
fn async_and_cancellable_tokenization() {
    let tt = qwen3();
    let raw = json!([
        [trajectory(1.0, "token_id:50"), trajectory(0.0, "token_id:50")],
        [trajectory(0.5, "token_id:50"), trajectory(0.0, "token_id:50")]
    ]);
    let groups = trajectory::groups_from_value(&raw).unwrap();
    let opts = TrajectoryOptions { seed: Some(5), ..Default::default() };
    // (results hold NaN logprobs, so compare what identifies them)
    let key = |gs: &[trajectory::GroupResult]| -> Vec<(Vec<u32>, i64, usize, u64)> {
        gs.iter()
            .flat_map(|g| &g.results)
            .map(|r| (r.token_ids.clone(), r.prompt_id, r.trajectory_index, r.advantage.to_bits()))
            .collect()
    };
    let plain = key(&tt.tokenize_trajectory_groups(&groups, &opts));
    let flag = yieldtok::CancelFlag::new();
    let live = tt.tokenize_trajectory_groups_cancellable(&groups, &opts, &flag).unwrap();
    assert_eq!(key(&live), plain);
    flag.cancel();
    assert!(matches!(
        tt.tokenize_trajectory_groups_cancellable(&groups, &opts, &flag),
        Err(yieldtok::Error::Cancelled)
    ));
    // The future: parsed and tokenized on the scheduler, same results.
    let tok = tt.tokenizer().clone();
    let fut = tok.tokenize_trajectory_groups_async(serde_json::to_vec(&raw).unwrap(), opts.clone());
    let out = yieldtok::block_on(fut).unwrap().unwrap();
    assert_eq!(key(&out), plain);
    // Cancelled before it ran: never runs.
    let fut = tok.tokenize_trajectory_groups_async(serde_json::to_vec(&raw).unwrap(), opts);
    fut.cancel_flag().cancel();
    assert!(matches!(yieldtok::block_on(fut), Err(yieldtok::Error::Cancelled)));
    // Malformed JSON is an error of the future, not a panic.
    let bad = tok.tokenize_trajectory_groups_async(b"[[{".to_vec(), TrajectoryOptions::default());
    assert!(yieldtok::block_on(bad).unwrap().unwrap_err().is_invalid_input());
}

#[test]
fn json_lines_parse_like_a_list() {
    let a = json!([trajectory(1.0, "token_id:50"), trajectory(0.0, "token_id:50")]);
    let b = json!([trajectory(0.5, "token_id:50")]);
    let jsonl = format!("{a}\n\n{b}\r\n");
    let from_lines = trajectory::parse_groups_jsonl(jsonl.as_bytes()).unwrap();
    let from_list = trajectory::parse_groups(&serde_json::to_vec(&json!([a, b])).unwrap()).unwrap();
    assert_eq!(from_lines.len(), 2);
    let n = |g: &[trajectory::TrajectoryGroup]| g.iter().map(|g| g.trajectories.len()).collect::<Vec<_>>();
    assert_eq!(n(&from_lines), n(&from_list));
    // a broken line is an invalid group naming its line; the others are kept
    let groups = trajectory::parse_groups_jsonl(format!("{a}\n\n[{{\n{b}\n").as_bytes()).unwrap();
    assert_eq!(n(&groups), [2, 0, 1]);
    let e = groups[1].invalid.as_ref().expect("the broken line's group is invalid");
    assert!(e.to_string().contains("line 3 column 1"), "{e}");
    let out = qwen3().tokenize_trajectory_groups(&groups, &TrajectoryOptions { seed: Some(1), ..Default::default() });
    assert_eq!(out[1].errors.len(), 1);
    assert_eq!((out[1].errors[0].location.group, out[1].errors[0].location.trajectory), (Some(1), None));
    assert_eq!(
        out[0].results.len() + out[2].results.len(),
        2,
        "line 1: rewards 1 and 0; line 4: one trajectory, advantage 0 dropped"
    );
}

/// One bad value fails only its own trajectory, named by place and line, in every input form;
/// `-Infinity` logprobs are kept as ART keeps them; a NaN reward is refused (ART would give
/// its whole group NaN advantages) unless validation is off.
#[test]
fn one_bad_value_spares_the_rest_of_the_batch() {
    let tt = qwen3();
    let opts = TrajectoryOptions { seed: Some(2), ..Default::default() };
    let good = |r: f64| serde_json::to_string(&trajectory(r, "token_id:50")).unwrap();
    let neg_inf = good(0.0).replace("\"logprob\":-0.25", "\"logprob\":-Infinity");
    assert_ne!(neg_inf, good(0.0));
    let nan_reward = good(1.0).replace("\"reward\":1.0", "\"reward\":NaN");
    let syntax = good(0.5).replace("\"reward\":0.5", "\"reward\":0.5.5");
    let bad_utf8 = good(0.25).replace("Weather?", "Weather~?");
    let lone_surrogate = good(0.75).replace("Weather?", "Weather\\ud800?");
    let doc = format!(
        "[[{},\n{},\n{},\n{}],\n[{}, {}, {}],\n5]",
        good(1.0),
        nan_reward,
        syntax,
        neg_inf,
        good(1.0),
        bad_utf8,
        lone_surrogate
    );
    let mut bytes = doc.into_bytes();
    let at = bytes.iter().position(|&b| b == b'~').unwrap();
    bytes[at] = 0xff; // invalid UTF-8 inside a string of group 1, trajectory 1
    let groups = trajectory::parse_groups(&bytes).unwrap();
    assert_eq!(groups.len(), 3);
    let out = tt.tokenize_trajectory_groups(&groups, &opts);
    let errors: Vec<(Option<usize>, Option<usize>, String)> =
        out.iter().flat_map(|g| &g.errors).map(|e| (e.location.group, e.location.trajectory, e.to_string())).collect();
    let places: Vec<_> = errors.iter().map(|(g, t, _)| (*g, *t)).collect();
    assert_eq!(
        places,
        [(Some(0), Some(1)), (Some(0), Some(2)), (Some(1), Some(1)), (Some(1), Some(2)), (Some(2), None)],
        "{errors:#?}"
    );
    assert!(errors[0].2.contains("reward: NaN is not a finite number"), "{}", errors[0].2);
    assert!(errors[1].2.contains("not valid JSON at line 3 column"), "{}", errors[1].2);
    assert!(errors[2].2.contains("not UTF-8 at line 5"), "{}", errors[2].2);
    assert!(errors[3].2.contains("surrogate"), "{}", errors[3].2);
    assert!(errors[4].2.contains("list of trajectories"), "{}", errors[4].2);
    // the valid ones: group 0's rewards 1.0 and 0.0 (the -Infinity one), group 1's single one
    let kept: Vec<(usize, usize)> =
        out.iter().flat_map(|g| &g.results).map(|r| (r.group_index, r.trajectory_index)).collect();
    assert_eq!(kept.len(), 2, "{kept:?} (group 1's lone valid trajectory has advantage 0 and is dropped)");
    let r = out[0].results.iter().find(|r| r.trajectory_index == 3).expect("the -Infinity trajectory is kept");
    assert!(r.logprobs.contains(&f64::NEG_INFINITY));

    // the same data as a value (the markers front ends write) gives the same errors' places
    let mut v: Value =
        json!([[trajectory(1.0, "token_id:50"), trajectory(1.0, "token_id:50"), trajectory(0.0, "token_id:50")]]);
    v[0][1]["reward"] = json!(trajectory::lenient::NAN_MARKER);
    v[0][2]["messages_and_choices"][2]["logprobs"]["content"][1]["logprob"] =
        json!(trajectory::lenient::NEG_INFINITY_MARKER);
    let from_value = tt.tokenize_trajectory_groups(&trajectory::groups_from_value(&v).unwrap(), &opts);
    let from_bytes =
        tt.tokenize_trajectory_groups(&trajectory::parse_groups(&serde_json::to_vec(&v).unwrap()).unwrap(), &opts);
    for out in [&from_value, &from_bytes] {
        assert_eq!(out[0].errors.len(), 1);
        assert_eq!(out[0].errors[0].location.trajectory, Some(1));
        assert_eq!(out[0].results.len(), 2);
        assert!(out[0].results.iter().any(|r| r.logprobs.contains(&f64::NEG_INFINITY)));
    }
    // a trajectory a front end could not write: its marker and reason
    let v = json!([[
        trajectory::lenient::invalid_marker("messages_and_choices[0].content", "lone surrogate"),
        trajectory(0.0, "token_id:50")
    ]]);
    let out = tt.tokenize_trajectory_groups(&trajectory::groups_from_value(&v).unwrap(), &opts);
    assert_eq!(out[0].errors.len(), 1);
    assert_eq!(
        out[0].errors[0].to_string(),
        "group 0, trajectory 0, messages_and_choices, item 0: invalid input: messages_and_choices[0].content: lone surrogate"
    );

    // ART's behaviour with validation off: the NaN reward is taken, the group's advantages are NaN
    let art = tt.tokenize_trajectory_groups(
        &groups,
        &TrajectoryOptions { seed: Some(2), ..TrajectoryOptions::art_compatible() },
    );
    assert!(art[0].errors.iter().all(|e| e.location.trajectory != Some(1)));
    assert!(art[0].results.iter().all(|r| r.advantage.is_nan()));

    // structure broken: the whole input, with its line and column
    let e = trajectory::parse_groups(format!("[[{}],\n[{}}}]", good(1.0), good(0.0)).as_bytes()).unwrap_err();
    assert!(e.to_string().contains("line 2 column"), "{e}");
}

/// Found by `fuzz/fuzz_targets/trajectory_parse.rs`: a data error whose message quotes a
/// string holding the word "surrogate" got the lone-surrogate explanation, and the parse of a
/// document differed from the parse of the same JSON as a value.
#[test]
fn a_quoted_word_is_no_lone_surrogate() {
    let doc = br#"[[{"messages_and_choices": [], "reward": "surrogate"}]]"#;
    let from_doc = trajectory::parse_groups(doc).unwrap();
    let value: serde_json::Value = serde_json::from_slice(doc).unwrap();
    let from_value = trajectory::groups_from_value(&value).unwrap();
    let why = from_doc[0].trajectories[0].invalid.as_ref().expect("a string reward is invalid").to_string();
    assert!(why.contains("invalid type: string \"surrogate\"") && !why.contains("lone surrogate"), "{why}");
    assert_eq!(format!("{from_doc:?}"), format!("{from_value:?}"));
    // valid JSON that is not a list reads the same from bytes and from a value
    let err = |r: Result<Vec<trajectory::TrajectoryGroup>, trajectory::TrajectoryError>| r.unwrap_err().to_string();
    assert_eq!(err(trajectory::parse_groups(b"2")), err(trajectory::groups_from_value(&json!(2))));
}
