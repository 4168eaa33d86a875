//! The public API beyond exactness: loading from every source and its errors, the local hub
//! cache, decode and batches, futures (cancellation, dropping, progress), scheduler ordering,
//! and the one-piece fallback for tokenizers without a proven cut rule.

mod common;

use std::time::{Duration, Instant};

use common::*;
use yieldtok::{EncodeOptions, Error, Family, Output, Scheduler, Tokenizer};

fn tmpdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("yieldtok-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn loading_errors_are_clear() {
    let e = Tokenizer::from_file("/nonexistent/tokenizer.json").unwrap_err();
    assert!(matches!(e, Error::Io { .. }) && e.to_string().contains("/nonexistent/tokenizer.json"), "{e}");
    let e = Tokenizer::from_str("{\"model\": 3}").unwrap_err();
    assert!(matches!(e, Error::InvalidTokenizer { .. }), "{e}");
    let e = Tokenizer::from_bytes(b"{\"a\": \"\xff\"}").unwrap_err();
    assert!(matches!(e, Error::NotUtf8 { offset: 7 }), "{e}");
    let d = tmpdir("emptydir");
    let e = Tokenizer::from_dir(&d).unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }) && e.to_string().contains("tokenizer.json"), "{e}");
    // A valid tokenizer.json with a broken tokenizer_config.json.
    std::fs::copy(yieldtok_testkit::fixtures::dir("llama2").unwrap().join("tokenizer.json"), d.join("tokenizer.json"))
        .unwrap();
    std::fs::write(d.join("tokenizer_config.json"), "{\"chat_template\": 5}").unwrap();
    let e = Tokenizer::from_dir(&d).unwrap_err();
    assert!(matches!(e, Error::InvalidConfig { .. }) && e.to_string().contains("chat_template"), "{e}");
    // chat_template.jinja beside it takes precedence over the config's template.
    std::fs::write(d.join("tokenizer_config.json"), "{\"chat_template\": \"A\", \"bos_token\": \"<s>\"}").unwrap();
    std::fs::write(d.join("chat_template.jinja"), "B").unwrap();
    let t = Tokenizer::from_dir(&d).unwrap();
    assert_eq!(t.config().unwrap().chat_template, Some(yieldtok::TemplateSource::Single("B".into())));
    assert_eq!(t.config().unwrap().special_token("bos_token"), Some("<s>"));
}

#[test]
fn hub_cache_is_resolved_without_network() {
    let root = tmpdir("hub");
    let repo = root.join("models--meta-llama--Llama-2-7b-hf");
    let snap = repo.join("snapshots").join("0123abcd");
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs").join("main"), "0123abcd\n").unwrap();
    let fx = yieldtok_testkit::fixtures::dir("llama2").unwrap();
    for f in ["tokenizer.json", "tokenizer_config.json"] {
        std::fs::copy(fx.join(f), snap.join(f)).unwrap();
    }
    let t = Tokenizer::from_pretrained("meta-llama/Llama-2-7b-hf", None, Some(&root)).unwrap();
    assert_eq!(t.encode("hi", false).unwrap().ids, fixture("llama2").encode("hi", false).unwrap().ids);
    assert!(Tokenizer::from_pretrained("meta-llama/Llama-2-7b-hf", Some("0123abcd"), Some(&root)).is_ok());
    let e = Tokenizer::from_pretrained("meta-llama/Llama-2-7b-hf", Some("v2"), Some(&root)).unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }) && e.to_string().contains("never downloads"), "{e}");
    let e = Tokenizer::from_pretrained("nobody/nothing", None, Some(&root)).unwrap_err();
    assert!(e.to_string().contains("nobody/nothing"), "{e}");
    assert!(matches!(Tokenizer::from_pretrained("../etc", None, Some(&root)), Err(Error::InvalidArgument(_))));
}

#[test]
fn decode_batches_and_bad_ids() {
    let tok = fixture("qwen3");
    let texts = ["Hello world", "", "日本語 text 👍🏽", "<|im_start|>user\nhi<|im_end|>"];
    let batch = tok.encode_batch(&texts, true).unwrap();
    for (t, e) in texts.iter().zip(&batch) {
        assert_eq!(e, &reference(&tok, t, true));
        assert_eq!(tok.decode(&e.ids, false).unwrap(), *t);
    }
    let ids: Vec<Vec<u32>> = batch.iter().map(|e| e.ids.clone()).collect();
    assert_eq!(tok.decode_batch(&ids, false).unwrap(), texts.to_vec());
    assert_eq!(tok.encode_batch_ids(&texts, true).unwrap(), ids);
    // Ids the vocabulary lacks are skipped, as `tokenizers` does.
    assert_eq!(tok.decode(&[9_999_999, u32::MAX], false).unwrap(), "");
    assert_eq!(tok.decode(&[ids[0][0], 9_999_999], false).unwrap(), tok.decode(&ids[0][..1], false).unwrap());
    // Still usable afterwards.
    assert_eq!(tok.decode(&ids[0], false).unwrap(), "Hello world");
    assert_eq!(tok.count("Hello world", false).unwrap(), 2);
    let enc = tok.encode("日本語 text", false).unwrap();
    assert_eq!(enc.char_offsets("日本語 text").last(), Some(&(3, 8))); // " text"
}

#[test]
fn cancelling_stops_the_remaining_pieces() {
    let tok = fixture("qwen3");
    let big = yieldtok_testkit::corpus::document(8 << 20);
    let fut = tok.encode_async(big.as_str(), EncodeOptions::default());
    let h = fut.handle();
    let runner = std::thread::spawn(move || block_on(fut));
    while h.progress().done_bytes == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    h.cancel();
    assert!(matches!(runner.join().unwrap(), Err(Error::Cancelled)));
    let at_cancel = h.progress().done_bytes;
    std::thread::sleep(Duration::from_millis(50));
    // At most the pieces that were already running finish after the cancel.
    let slack = Scheduler::global().threads() * 64 * 1024;
    assert!(h.progress().done_bytes <= at_cancel + slack, "work went on after cancel");
    assert!(at_cancel < big.len() / 2, "cancelled too late to tell: {at_cancel} of {}", big.len());
    // The pool is free: a short request completes promptly.
    let t = Instant::now();
    assert_eq!(block_on(tok.encode_async("short", EncodeOptions::default())).unwrap().ids().len(), 1);
    assert!(t.elapsed() < Duration::from_secs(2));
}

#[test]
fn dropping_a_future_cancels_it() {
    let tok = fixture("qwen3");
    let mut fut = tok.encode_async(yieldtok_testkit::corpus::document(4 << 20), EncodeOptions::default());
    fut.start();
    let h = fut.handle();
    drop(fut);
    assert!(h.is_cancelled());
    std::thread::sleep(Duration::from_millis(20));
    let p = h.progress();
    assert!(p.done_bytes < p.total_bytes, "a dropped 4 MB encode ran to the end");
}

#[test]
fn short_job_overtakes_long_job_on_one_worker() {
    // One worker: the long job runs piece by piece; a short job submitted later must finish
    // long before the long job does (least-attained-service order), without any timing bound.
    let tok = fixture("qwen3").with_scheduler(Scheduler::new(1));
    let long_text = yieldtok_testkit::corpus::document(2 << 20);
    let long = tok.encode_async(long_text.as_str(), EncodeOptions { output: Output::Ids, ..Default::default() });
    let lh = long.handle();
    let long_thread = std::thread::spawn(move || block_on(long));
    while lh.progress().done_bytes == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let short =
        block_on(tok.encode_async("a short request", EncodeOptions { output: Output::Ids, ..Default::default() }))
            .unwrap();
    let p = lh.progress();
    assert!(p.done_bytes < p.total_bytes, "the short job waited for the whole long job");
    assert_eq!(short.ids(), tok.encode_ids("a short request", true).unwrap());
    assert_eq!(long_thread.join().unwrap().unwrap().ids(), tok.encode_ids(&long_text, true).unwrap());
}

#[test]
fn unknown_structure_falls_back_to_one_exact_piece() {
    // qwen3 with a regex the reviewed list does not know: no cut rule, still exact.
    let dir = yieldtok_testkit::fixtures::dir("qwen3").unwrap();
    let json = std::fs::read_to_string(dir.join("tokenizer.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = serde_json::json!("\\s+|\\S+");
    let tok = Tokenizer::from_str(&v.to_string()).unwrap();
    assert!(matches!(tok.family(), Family::Unchunked(_)), "{}", tok.cut_rules().describe());
    let text = mixed(&tok, 3, 200_000);
    // The only cuts left are exact added-token edges.
    let specials = added_tokens(&tok, 64);
    for (r, _) in tok.plan(&text, 1000).iter().filter(|(r, _)| r.end < text.len()) {
        let b = r.end;
        assert!(
            specials.iter().any(|s| text[..b].ends_with(s.as_str()) || text[b..].starts_with(s.as_str())),
            "cut at {b} is not an added-token edge"
        );
    }
    assert_eq!(tok.encode(&text, true).unwrap(), reference(&tok, &text, true));
    let job = tok.job(text.as_str(), EncodeOptions { piece_bytes: Some(64), ..Default::default() });
    job.run_parallel();
    assert_eq!(job.finish().unwrap().into_encoding().unwrap(), reference(&tok, &text, true));
}

#[test]
fn ids_only_matches_full_with_post_processor_specials() {
    for name in ["llama3_1", "gemma3", "llama2", "qwen3"] {
        let tok = fixture(name);
        for text in ["", "x", "Hello world\n", "<bos>hi </s>"] {
            for add in [false, true] {
                assert_eq!(tok.encode_ids(text, add).unwrap(), reference(&tok, text, add).ids, "{name} {text:?} {add}");
            }
        }
    }
}

#[test]
fn batch_futures_keep_order_and_fail_as_a_whole() {
    let tok = fixture("qwen3");
    let texts = ["Hello world", "", "日本語 text 👍🏽", "<|im_start|>user\nhi<|im_end|>"];
    let outs = block_on(tok.encode_batch_async(texts, EncodeOptions::default())).unwrap();
    for (t, o) in texts.iter().zip(outs) {
        assert_eq!(o.into_encoding().unwrap(), reference(&tok, t, true));
    }
    assert!(block_on(tok.encode_batch_async(Vec::<String>::new(), EncodeOptions::default())).unwrap().is_empty());
    // Many small jobs completing in any order come back in input order.
    let many: Vec<String> = (0..3000).map(|i| format!("text number {i}")).collect();
    let outs =
        block_on(tok.encode_batch_async(many.clone(), EncodeOptions { output: Output::Ids, ..Default::default() }))
            .unwrap();
    assert_eq!(outs.into_iter().map(|o| o.into_ids()).collect::<Vec<_>>(), tok.encode_batch_ids(&many, true).unwrap());
    // Cancelling the batch's handle fails the whole batch with Cancelled.
    let big = yieldtok_testkit::corpus::document(4 << 20);
    let mut fut = tok.encode_batch_async([big.clone(), big], EncodeOptions::default());
    fut.start();
    let h = fut.handle();
    assert_eq!(h.jobs().len(), 2);
    h.cancel();
    assert!(matches!(block_on(fut), Err(Error::Cancelled)));
    // A small batch is one task: same results, and its handle cancels it too.
    let small = tok.encode_batch_async(["one", "two"], EncodeOptions::default());
    assert!(small.handle().jobs().is_empty() && small.len() == 2);
    let outs = block_on(small).unwrap();
    assert_eq!(
        outs.into_iter().map(|o| o.into_ids()).collect::<Vec<_>>(),
        tok.encode_batch_ids(&["one", "two"], true).unwrap()
    );
    // (on one worker kept busy by a long encode, so the cancel lands before the task starts)
    let one = tok.with_scheduler(Scheduler::new(1));
    let mut long = one.encode_async(yieldtok_testkit::corpus::document(4 << 20), EncodeOptions::default());
    long.start();
    std::thread::sleep(Duration::from_millis(5));
    let small = one.encode_batch_async(["one", "two"], EncodeOptions::default());
    small.handle().cancel();
    assert!(matches!(block_on(small), Err(Error::Cancelled)));
    drop(long);
    // Dropping it cancels every job.
    let mut fut = tok.encode_batch_async([yieldtok_testkit::corpus::document(4 << 20)], EncodeOptions::default());
    fut.start();
    let h = fut.handle();
    drop(fut);
    assert!(h.is_cancelled());
}

#[test]
fn task_futures_decode_and_surface_panics() {
    let tok = fixture("qwen3");
    let ids = tok.encode_ids("Hello world", false).unwrap();
    assert_eq!(block_on(tok.decode_async(ids.clone(), false)).unwrap(), "Hello world");
    assert_eq!(block_on(tok.decode_batch_async(vec![ids.clone(), vec![]], false)).unwrap(), ["Hello world", ""]);
    assert_eq!(block_on(tok.decode_async(vec![9_999_999], false)).unwrap(), "");
    let e = block_on(tok.spawn(|_| -> yieldtok::Result<()> { panic!("boom in a task") })).unwrap_err();
    assert!(matches!(&e, Error::Panic(m) if m.contains("boom in a task")), "{e}");
    // The pool survived the panic.
    assert_eq!(block_on(yieldtok::spawn(|| Ok(7))).unwrap(), 7);
}

#[test]
fn time_budgeted_steps_size_their_pieces() {
    let tok = fixture("qwen3");
    let doc = yieldtok_testkit::corpus::document(256 << 10);
    // A job's first time-budgeted piece is small (its cost is not known yet); a zero budget
    // then stops after that one piece.
    let job = tok.job(doc.as_str(), EncodeOptions::default());
    assert!(!job.step(yieldtok::Budget::time(Duration::ZERO)));
    let first = job.progress().done_bytes;
    assert!(
        (yieldtok::job::MIN_SLICE_PIECE_BYTES..2 * yieldtok::job::MIN_SLICE_PIECE_BYTES).contains(&first),
        "first piece {first} bytes"
    );
    // A byte budget keeps the job's piece size.
    let job2 = tok.job(doc.as_str(), EncodeOptions::default());
    assert!(!job2.step(yieldtok::Budget::bytes(1)));
    assert!(job2.progress().done_bytes >= 2048);
    // Whatever the slicing, the result is the whole-text encode.
    while !job.step(yieldtok::Budget::time(Duration::from_micros(300))) {}
    assert_eq!(job.finish().unwrap().into_encoding().unwrap(), reference(&tok, &doc, true));
}

#[test]
fn long_async_results_are_assembled_off_the_workers_and_exact() {
    let tok = fixture("qwen3");
    let text = yieldtok_testkit::corpus::document(3 * yieldtok::job::POOL_ASSEMBLY_MIN_BYTES);
    // Several at once, so assembly entries interleave with pieces of the other jobs.
    let futs: Vec<_> = (0..3).map(|_| tok.encode_async(text.as_str(), EncodeOptions::default())).collect();
    let short = tok.encode_async("a short one", EncodeOptions::default());
    assert_eq!(block_on(short).unwrap().into_encoding().unwrap(), reference(&tok, "a short one", true));
    for f in futs {
        assert_eq!(block_on(f).unwrap().into_encoding().unwrap(), reference(&tok, &text, true));
    }
    let ids =
        block_on(tok.encode_async(text.as_str(), EncodeOptions { output: Output::Ids, ..Default::default() })).unwrap();
    assert_eq!(ids.into_ids(), reference(&tok, &text, true).ids);
}

#[test]
fn tasks_do_not_wait_for_long_jobs() {
    // One worker busy with a long encode: a decode task queued after it runs as a new request
    // (after about one piece), not after the whole job.
    let tok = fixture("qwen3").with_scheduler(Scheduler::new(1));
    let mut long = tok.encode_async(yieldtok_testkit::corpus::document(8 << 20), EncodeOptions::default());
    long.start();
    let h = long.handle();
    while h.progress().done_bytes == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let ids = tok.encode_ids("Hello world", false).unwrap();
    assert_eq!(block_on(tok.decode_async(ids, false)).unwrap(), "Hello world");
    let p = h.progress();
    assert!(
        p.done_bytes < p.total_bytes / 2,
        "the task waited for {} of {} bytes of the long job",
        p.done_bytes,
        p.total_bytes
    );
    drop(long);
}

/// The only worker of a new scheduler, held by a task until the returned sender is used.
fn hold_the_only_worker(tok: &Tokenizer) -> (std::sync::mpsc::Sender<()>, yieldtok::TaskFuture<()>) {
    let (release, held) = std::sync::mpsc::channel::<()>();
    let (started_tx, started) = std::sync::mpsc::channel::<()>();
    let blocker = tok.spawn(move |_| {
        started_tx.send(()).unwrap();
        held.recv_timeout(Duration::from_secs(30)).map_err(|_| Error::Cancelled)
    });
    started.recv_timeout(Duration::from_secs(10)).expect("the worker did not start the blocking task");
    (release, blocker)
}

#[test]
fn short_requests_run_while_every_worker_is_busy() {
    // The only worker is held until the short encode has finished: without the short lane the
    // encode would wait for it (and time out below). ~3 KB: two pieces, both on the lane.
    let tok = fixture("qwen3").with_scheduler(Scheduler::new(1));
    let (release, blocker) = hold_the_only_worker(&tok);
    let text = "A short request, while the only worker is busy. 🙂 ".repeat(60);
    assert!(text.len() > 2048 && text.len() <= yieldtok::SHORT_LANE_MAX_BYTES);
    let (tx, rx) = std::sync::mpsc::channel();
    let fut = tok.encode_async(text.as_str(), EncodeOptions::default());
    std::thread::spawn(move || {
        let _ = tx.send(block_on(fut));
    });
    let out = rx.recv_timeout(Duration::from_secs(10)).expect("the short request waited for the busy worker");
    assert_eq!(out.unwrap().into_encoding().unwrap().ids, reference(&tok, &text, true).ids);
    release.send(()).unwrap();
    block_on(blocker).unwrap();
}

#[test]
fn batch_members_do_not_run_on_the_short_lane() {
    // A batch is throughput work: with the only worker held, its short texts wait for it.
    let tok = fixture("qwen3").with_scheduler(Scheduler::new(1));
    let (release, blocker) = hold_the_only_worker(&tok);
    let texts: Vec<String> = (0..4).map(|i| format!("batch text {i} ").repeat(200)).collect();
    assert!(texts.iter().map(String::len).sum::<usize>() > yieldtok::batch::SMALL_BATCH_BYTES);
    let (tx, rx) = std::sync::mpsc::channel();
    let fut = tok.encode_batch_async(texts.clone(), EncodeOptions::default());
    std::thread::spawn(move || tx.send(block_on(fut)));
    assert!(rx.recv_timeout(Duration::from_millis(300)).is_err(), "a batch member ran on the short lane");
    release.send(()).unwrap();
    let out = rx.recv_timeout(Duration::from_secs(30)).expect("the batch did not finish").unwrap();
    for (o, t) in out.into_iter().zip(&texts) {
        assert_eq!(o.into_encoding().unwrap().ids, reference(&tok, t, true).ids);
    }
    block_on(blocker).unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn workers_run_below_the_host() {
    if std::env::var_os("YIELDTOK_WORKER_NICE").is_some() {
        return; // configured otherwise for this run
    }
    // SAFETY: plain syscalls on the calling thread.
    let nice = || unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::syscall(libc::SYS_gettid) as libc::id_t) };
    let host = nice();
    let tok = fixture("qwen3").with_scheduler(Scheduler::new(1));
    let worker = block_on(tok.spawn(move |_| Ok(nice()))).unwrap();
    assert_eq!(worker, (host + yieldtok::DEFAULT_WORKER_NICE).min(19));
}
