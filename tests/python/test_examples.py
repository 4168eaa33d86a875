"""The tiny programs of examples/ run as documented (examples/README.md): each is started as
a user would start it and checked on what it answers. (The Ray and `datasets` examples are run
by test_scale_out.py.)"""

from __future__ import annotations

import asyncio
import json

import pytest

from conftest import REPO, VARIED, example_server, fixture_dir, load_pair, long_text

pytestmark = pytest.mark.serial  # timing-sensitive or machine-wide: run alone, after the others (pytest.ini)

EXAMPLES = REPO / "examples" / "python"


@pytest.fixture(scope="module")
def server():
    """examples/python/asyncio_server.py on a free loopback port; yields (host, port)."""
    argv = [str(EXAMPLES / "asyncio_server.py"), "--tokenizer", str(fixture_dir("qwen3")), "--port", "0"]
    with example_server(argv, "listening on ") as (_, host, port):
        yield host, port


async def ask(host: str, port: int, requests: list[dict | bytes]) -> list[dict]:
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 26)
    answers = []
    for r in requests:
        writer.write(r if isinstance(r, bytes) else json.dumps(r).encode() + b"\n")
        await writer.drain()
        answers.append(json.loads(await reader.readline()))
    writer.close()
    await writer.wait_closed()
    return answers


def test_asyncio_server_answers_like_tokenizers(server):
    host, port = server
    _, hf = load_pair("qwen3")
    # ~2M tokens: long enough that, on a fast idle machine too, its encode outlasts the 20 short
    # clients sent while it runs (with 2 MB, CI's faster machine answered the long one first)
    long = long_text(8_000_000)
    shorts = VARIED[:20]
    done = []

    async def timed(name, lines):
        answers = await ask(host, port, lines)
        done.append(name)
        return answers

    async def clients():
        # one client with a long prompt (~2M tokens) and several with short ones, at the same time
        first = asyncio.ensure_future(timed("long", [{"text": long}]))
        await asyncio.sleep(0.05)  # the long request is in flight before the short ones are sent
        rest = [timed(f"short {i}", [{"text": s}, {"text": s, "add_special_tokens": False}])
                for i, s in enumerate(shorts)]
        return await asyncio.gather(first, *rest)

    long_answer, *short_answers = asyncio.run(clients())
    # The loop stayed free while the long prompt was encoded: every short client was answered first.
    assert done[-1] == "long", done
    assert long_answer == [{"ids": hf.encode(long).ids}]
    for s, answers in zip(shorts, short_answers):
        assert answers == [{"ids": hf.encode(s).ids}, {"ids": hf.encode(s, add_special_tokens=False).ids}], s


def test_asyncio_server_decodes_and_survives_bad_requests(server):
    host, port = server
    _, hf = load_pair("qwen3")
    ids = hf.encode("Ünïcode café — 東京 🙂").ids
    answers = asyncio.run(
        ask(host, port, [b"not json\n", {"ids": ids}, {"nothing": 1}, {"ids": [10**12]}, {"text": "still here"}])
    )
    assert answers[0]["error"].startswith("JSONDecodeError")
    assert answers[1] == {"text": hf.decode(ids)}
    assert answers[2]["error"].startswith("KeyError")
    assert "error" in answers[3]
    assert answers[4] == {"ids": hf.encode("still here").ids}
