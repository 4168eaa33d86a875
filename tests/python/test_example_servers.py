"""examples/python/asgi_server.py started for real (uvicorn on a free loopback port) in each
``--mode`` and answered over HTTP by a real client (``http.client``): every endpoint's answer
equals ``tokenizers`` called directly — /tokenize ids, /detokenize text, /chat ids (the
template rendered by yieldtok, encoded by ``tokenizers``), /stream's Server-Sent Events equal to
``tokenizers``' ``DecodeStream`` steps and together to the whole decode, for many streams at
once — and bad requests get a 400 while the server keeps serving."""

from __future__ import annotations

import http.client
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from tokenizers.decoders import DecodeStream as HfStream

from conftest import REPO, VARIED, example_server, fixture_dir, load_pair, long_text, real_text, shared_data

pytestmark = pytest.mark.serial  # timing-sensitive or machine-wide: run alone, after the others (pytest.ini)

SERVER = REPO / "examples" / "python" / "asgi_server.py"
MODES = ["yieldtok", "tokenizers", "to_thread", "async_encode"]


@pytest.fixture(scope="module", params=MODES)
def server(request):
    """The server in one mode; yields (port, mode)."""
    argv = [str(SERVER), "--tokenizer", str(fixture_dir("qwen3")), "--port", "0", "--mode", request.param]
    with example_server(argv, "listening on 127.0.0.1:") as (proc, _, port):
        yield port, request.param
    assert proc.returncode in (0, -15), proc.stderr.read()


def post(port: int, path: str, body) -> tuple[int, str, bytes]:
    """(status, content type, body) of one POST; a new connection each time."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request(
            "POST", path, body if isinstance(body, bytes) else json.dumps(body), {"content-type": "application/json"}
        )
        r = conn.getresponse()
        return r.status, r.getheader("content-type"), r.read()
    finally:
        conn.close()


def ask(port: int, path: str, body) -> dict:
    status, ctype, data = post(port, path, body)
    assert (status, ctype) == (200, "application/json"), (status, data[:300])
    return json.loads(data)


def events(port: int, body) -> list[str]:
    """The text deltas of one /stream response, checked for its framing and its [DONE]."""
    status, ctype, data = post(port, "/stream", body)
    assert (status, ctype) == (200, "text/event-stream"), (status, data[:300])
    chunks = data.decode().split("\n\n")
    assert chunks[-2:] == ["data: [DONE]", ""], chunks[-3:]
    out = []
    for c in chunks[:-2]:
        assert c.startswith("data: ") and "\n" not in c, c
        event = json.loads(c[len("data: ") :])
        assert set(event) == {"text"} and event["text"], event
        out.append(event["text"])
    return out


def hf_deltas(hf, ids: list[int], skip: bool) -> list[str]:
    s = HfStream(skip_special_tokens=skip)
    return [d for d in (s.step(hf, i) for i in ids) if d]


def test_tokenize(server):
    port, _ = server
    _, hf = load_pair("qwen3")
    texts = VARIED + [real_text(20_000) or VARIED[-1], long_text(300_000)]
    for t in texts:
        assert ask(port, "/tokenize", {"text": t}) == {"ids": hf.encode(t).ids}, t[:80]
        assert ask(port, "/tokenize", {"text": t, "add_special_tokens": False}) == {
            "ids": hf.encode(t, add_special_tokens=False).ids
        }, t[:80]


def test_tokenize_concurrently_and_shorts_first(server):
    """A long prompt and 16 short requests at once, each on its own connection: all answered
    right; in the yieldtok mode every short one before the long one (the loop stayed free)."""
    port, mode = server
    _, hf = load_pair("qwen3")
    # ~2M tokens (or ~75k: it blocks): long enough that, on an idle machine too, its encode
    # outlasts the 16 short requests sent while it runs
    long = long_text(8_000_000 if mode == "yieldtok" else 300_000)
    shorts = [t for t in VARIED if t][:16]
    done, lock = [], threading.Lock()

    def one(name, text):
        answer = ask(port, "/tokenize", {"text": text})
        with lock:
            done.append(name)
        return answer

    with ThreadPoolExecutor(len(shorts) + 1) as pool:
        futures = [pool.submit(one, "long", long)]
        time.sleep(0.1)  # the long request is in flight before the short ones are sent
        futures += [pool.submit(one, f"short {i}", s) for i, s in enumerate(shorts)]
        answers = [f.result() for f in futures]
    assert answers[0] == {"ids": hf.encode(long).ids}
    for s, a in zip(shorts, answers[1:]):
        assert a == {"ids": hf.encode(s).ids}, s
    if mode == "yieldtok":
        assert done[-1] == "long", done


def test_detokenize(server):
    port, _ = server
    _, hf = load_pair("qwen3")
    for t in VARIED + ["<|im_start|>user\nhi<|im_end|>", real_text(20_000) or ""]:
        ids = hf.encode(t).ids
        assert ask(port, "/detokenize", {"ids": ids}) == {"text": hf.decode(ids)}, t[:80]
        assert ask(port, "/detokenize", {"ids": ids, "skip_special_tokens": False}) == {
            "text": hf.decode(ids, skip_special_tokens=False)
        }, t[:80]


TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def conversations() -> list[list[dict]]:
    convs = [
        [{"role": "user", "content": "Hi"}],
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Ünïcode 東京 🙂?"},
            {"role": "assistant", "content": "Yes."},
            {"role": "user", "content": "More\n\nlines"},
        ],
    ]
    d = shared_data()
    if d is not None:
        with open(d / "tau-airline-conversations.jsonl", encoding="utf-8") as f:
            for line, _ in zip(f, range(4)):
                msgs = json.loads(line)["messages"]
                for m in msgs:  # tool-call arguments as objects, no null content, as a server passes them
                    if m.get("content") is None:
                        m["content"] = ""
                    for c in m.get("tool_calls") or []:
                        c["function"]["arguments"] = json.loads(c["function"]["arguments"])
                convs.append(msgs)
    return convs


def test_chat(server):
    port, _ = server
    yt, hf = load_pair("qwen3")
    d = shared_data()
    tools = json.loads((d / "tau-airline-tools.json").read_text()) if d else [TOOL]
    for msgs in conversations():
        for gen, tools_ in ((True, None), (False, None), (True, tools)):
            text = yt.apply_chat_template(msgs, tools=tools_, tokenize=False, add_generation_prompt=gen)
            assert text.startswith("<|im_start|>") and (tools_ is None) == ("<tools>" not in text)
            want = hf.encode(text, add_special_tokens=False).ids
            assert ask(port, "/chat", {"messages": msgs, "tools": tools_, "add_generation_prompt": gen}) == {
                "ids": want
            }
    assert (
        ask(port, "/chat", {"messages": [{"role": "user", "content": "Hi"}]})["ids"][-3:]
        == hf.encode("<|im_start|>assistant\n", add_special_tokens=False).ids
    )  # the generation prompt is on by default


def test_stream(server):
    """Many streams at once (so they share steps), each equal to tokenizers' DecodeStream and
    together to the whole decode: multi-byte characters split across ids, special tokens kept
    or skipped."""
    port, _ = server
    _, hf = load_pair("qwen3")
    texts = [t for t in VARIED if t] + ["<|im_start|>user\n東京 🙂<|im_end|>\n", real_text(30_000) or VARIED[-1]]
    cases = [(hf.encode(t).ids, skip) for t in texts for skip in (False, True)]
    with ThreadPoolExecutor(16) as pool:
        got = list(pool.map(lambda c: events(port, {"ids": c[0], "skip_special_tokens": c[1]}), cases))
    for (ids, skip), deltas in zip(cases, got):
        assert deltas == hf_deltas(hf, ids, skip), hf.decode(ids)[:80]
        assert "".join(deltas) == hf.decode(ids, skip_special_tokens=skip)
    assert events(port, {"ids": []}) == []
    assert events(port, {"ids": hf.encode("默认").ids}) == hf_deltas(hf, hf.encode("默认").ids, False)


def test_bad_requests_get_400_and_the_server_keeps_serving(server):
    port, _ = server
    _, hf = load_pair("qwen3")
    for path, body in [
        ("/tokenize", b"not json"),
        ("/tokenize", {"nothing": 1}),
        ("/tokenize", {"text": 5}),
        ("/detokenize", {"ids": [10**12]}),
        ("/chat", {"messages": []}),
        ("/stream", {"ids": [1, "a"]}),
        ("/stream", {"ids": [-1]}),
    ]:
        status, ctype, data = post(port, path, body)
        assert (status, ctype) == (400, "application/json"), (path, body, status, data)
        assert json.loads(data)["error"], data
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/tokenize")
    assert conn.getresponse().status == 404
    conn.close()
    assert post(port, "/nowhere", {})[0] == 404
    assert ask(port, "/tokenize", {"text": "still here"}) == {"ids": hf.encode("still here").ids}
