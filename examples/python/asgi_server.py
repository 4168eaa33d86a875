"""A tokenizer HTTP service: a plain ASGI app (no framework) on uvicorn, one event loop.

    python examples/python/asgi_server.py --tokenizer .cache/fixtures/qwen3 --port 8000
    curl -s localhost:8000/tokenize   -d '{"text": "Hello, world!"}'            # {"ids": [...]}
    curl -s localhost:8000/detokenize -d '{"ids": [9707, 11, 1879, 0]}'        # {"text": "..."}
    curl -s localhost:8000/chat       -d '{"messages": [{"role": "user", "content": "Hi"}]}'  # {"ids": [...]}
    curl -sN localhost:8000/stream    -d '{"ids": [9707, 11, 1879, 0]}'        # Server-Sent Events

Endpoints (POST, JSON body): ``/tokenize`` ``{"text", "add_special_tokens"?}`` → ``{"ids"}``;
``/detokenize`` ``{"ids", "skip_special_tokens"?}`` → ``{"text"}``; ``/chat`` ``{"messages",
"tools"?, "add_generation_prompt"?}`` → ``{"ids"}`` (the chat template rendered and encoded, as
transformers' ``apply_chat_template``; the generation prompt is on unless false); ``/stream`` ``{"ids", "skip_special_tokens"?}`` →
``text/event-stream``: the text of the ids as a generating model would stream it, one id per
step, each ``data: {"text": delta}`` as soon as a delta is complete text, then
``data: [DONE]``. The ids of *every* open stream are stepped by one
``DecodeStream.step_many`` call per step (as an inference server detokenizes all its requests
after each model step), not by one call per request. A bad request gets a 400 with
``{"error"}``.

``--mode`` picks what does the work, to compare on the same app:

* ``yieldtok`` (default): yieldtok's awaitables (``async_encode``, ``async_decode``,
  ``async_apply_chat_template``): the work runs in exact pieces on yieldtok's pool, so a
  160k-token prompt never stalls the loop and short requests are answered meanwhile.
* ``tokenizers``: Hugging Face ``tokenizers`` called on the loop (it stalls while it encodes).
* ``to_thread``: ``tokenizers`` in ``asyncio.to_thread``.
* ``async_encode``: ``tokenizers``' own awaitables (``async_encode``, ``async_decode_batch``;
  tokenizers 0.22 and newer).

``tokenizers`` has no chat templates: its modes render with yieldtok's (byte-identical to
transformers') on the loop and encode the text with the mode's encode. The first line printed is
``listening on HOST:PORT`` (``--port 0`` picks a free port); ``tests/python/test_examples.py``
starts the server in each mode and checks every endpoint against ``tokenizers``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket

import uvicorn

import yieldtok


class Yieldtok:
    """yieldtok's awaitables; the streams are yieldtok's DecodeStream."""

    def __init__(self, path: str) -> None:
        self.tok = yieldtok.Tokenizer.from_dir(path)

    async def encode(self, text: str, add_special_tokens: bool) -> list[int]:
        return (await self.tok.async_encode(text, add_special_tokens=add_special_tokens)).ids

    async def decode(self, ids: list[int], skip_special_tokens: bool) -> str:
        return await self.tok.async_decode(ids, skip_special_tokens=skip_special_tokens)

    async def chat(self, messages: list[dict], tools: list[dict] | None, add_generation_prompt: bool) -> list[int]:
        out = await self.tok.async_apply_chat_template(
            messages, tools=tools, add_generation_prompt=add_generation_prompt
        )
        return out["input_ids"]

    def new_stream(self, skip_special_tokens: bool) -> yieldtok.DecodeStream:
        return yieldtok.DecodeStream(skip_special_tokens=skip_special_tokens)

    async def step_many(self, streams: list, ids: list[int]) -> list[str | None]:
        # One call for every open stream, GIL released; microseconds per stream.
        return yieldtok.DecodeStream.step_many(self.tok, streams, ids)


class Tokenizers:
    """Hugging Face tokenizers, called on the loop (mode "tokenizers"), in a thread
    ("to_thread") or through its own awaitables ("async_encode")."""

    def __init__(self, path: str, mode: str) -> None:
        import tokenizers
        from tokenizers.decoders import DecodeStream

        self.hf = tokenizers.Tokenizer.from_file(f"{path}/tokenizer.json")
        self.render = yieldtok.Tokenizer.from_dir(path)  # tokenizers has no chat templates
        self.DecodeStream = DecodeStream
        self.mode = mode

    async def call(self, fn, *args, **kwargs):
        return await asyncio.to_thread(fn, *args, **kwargs) if self.mode == "to_thread" else fn(*args, **kwargs)

    async def encode(self, text: str, add_special_tokens: bool) -> list[int]:
        if self.mode == "async_encode":
            return (await self.hf.async_encode(text, add_special_tokens=add_special_tokens)).ids
        return (await self.call(self.hf.encode, text, add_special_tokens=add_special_tokens)).ids

    async def decode(self, ids: list[int], skip_special_tokens: bool) -> str:
        if self.mode == "async_encode":
            return (await self.hf.async_decode_batch([ids], skip_special_tokens=skip_special_tokens))[0]
        return await self.call(self.hf.decode, ids, skip_special_tokens=skip_special_tokens)

    async def chat(self, messages: list[dict], tools: list[dict] | None, add_generation_prompt: bool) -> list[int]:
        text = self.render.apply_chat_template(
            messages, tools=tools, tokenize=False, add_generation_prompt=add_generation_prompt
        )
        return await self.encode(text, False)

    def new_stream(self, skip_special_tokens: bool):
        return self.DecodeStream(skip_special_tokens=skip_special_tokens)

    async def step_many(self, streams: list, ids: list[int]) -> list[str | None]:
        step_all = lambda: [s.step(self.hf, i) for s, i in zip(streams, ids)]  # noqa: E731
        return await asyncio.to_thread(step_all) if self.mode == "to_thread" else step_all()


class Streams:
    """Every open /stream response, stepped together: each step takes the next id of every
    stream and detokenizes them all with one ``step_many`` call."""

    def __init__(self, backend) -> None:
        self.backend = backend
        self.open: dict = {}  # DecodeStream -> [remaining ids, queue of deltas]
        self.wake = asyncio.Event()
        self.task = None  # the stepping task, started by the first stream

    async def run(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            while self.open:
                streams = list(self.open)
                ids = [self.open[s][0].pop() for s in streams]
                try:
                    deltas = await self.backend.step_many(streams, ids)
                except Exception as e:  # noqa: BLE001 - a step that fails ends the streams of that call
                    deltas = [e] * len(streams)
                for s, d in zip(streams, deltas):
                    rest, queue = self.open[s]
                    queue.put_nowait(d or "")  # d is None when the id completed no text yet
                    if not rest or isinstance(d, Exception):
                        queue.put_nowait(None)  # end of this stream
                        del self.open[s]
                await asyncio.sleep(0)  # let the responses be written between steps

    def add(self, ids: list[int], skip_special_tokens: bool) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue()
        if not ids:
            queue.put_nowait(None)
        else:
            self.open[self.backend.new_stream(skip_special_tokens)] = [ids[::-1], queue]
            self.wake.set()
            if self.task is None:
                self.task = asyncio.ensure_future(self.run())
        return queue


def make_app(backend):
    streams = Streams(backend)

    async def app(scope, receive, send):
        assert scope["type"] == "http"  # uvicorn runs it with lifespan="off"
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        path = scope["path"]
        if scope["method"] != "POST" or path not in ("/tokenize", "/detokenize", "/chat", "/stream"):
            return await respond(send, 404, {"error": f"no {scope['method']} {path}"})
        try:
            req = json.loads(body)
            if path == "/tokenize":
                answer = {"ids": await backend.encode(req["text"], req.get("add_special_tokens", True))}
            elif path == "/detokenize":
                answer = {"text": await backend.decode(req["ids"], req.get("skip_special_tokens", True))}
            elif path == "/chat":
                answer = {
                    "ids": await backend.chat(req["messages"], req.get("tools"), req.get("add_generation_prompt", True))
                }
            else:
                ids = req["ids"]
                if not isinstance(ids, list) or not all(type(i) is int and 0 <= i < 2**32 for i in ids):
                    raise TypeError("ids must be a list of ints in 0..2**32")
                queue = streams.add(ids, req.get("skip_special_tokens", False))
        except Exception as e:  # noqa: BLE001 - a bad request: say what was wrong
            return await respond(send, 400, {"error": f"{type(e).__name__}: {e}"})
        if path == "/stream":
            return await event_stream(send, queue)
        await respond(send, 200, answer)

    return app


async def respond(send, status: int, answer: dict) -> None:
    body = json.dumps(answer).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def event_stream(send, queue: asyncio.Queue) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")],
        }
    )
    while (delta := await queue.get()) is not None:
        if isinstance(delta, Exception):
            event = {"error": f"{type(delta).__name__}: {delta}"}
        elif delta:
            event = {"text": delta}
        else:
            continue  # the id completed no text yet (e.g. half a character)
        await send({"type": "http.response.body", "body": f"data: {json.dumps(event)}\n\n".encode(), "more_body": True})
    await send({"type": "http.response.body", "body": b"data: [DONE]\n\n"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokenizer", required=True, help="a folder with tokenizer.json")
    parser.add_argument("--mode", default="yieldtok", choices=["yieldtok", "tokenizers", "to_thread", "async_encode"])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()

    backend = Yieldtok(args.tokenizer) if args.mode == "yieldtok" else Tokenizers(args.tokenizer, args.mode)
    sock = socket.create_server((args.host, args.port))
    host, port = sock.getsockname()[:2]
    print(f"listening on {host}:{port} (mode {args.mode})", flush=True)
    config = uvicorn.Config(make_app(backend), lifespan="off", log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
