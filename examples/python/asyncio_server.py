"""A tokenizing server on one asyncio loop, standard library only: newline-delimited JSON over
TCP. Each request line is ``{"text": "..."}`` (or ``{"ids": [...]}`` to decode); each answer
line is ``{"ids": [...]}`` (or ``{"text": "..."}``), in order, per connection.

    python examples/python/asyncio_server.py --tokenizer .cache/fixtures/qwen3 --port 8765
    printf '{"text": "Hello, world!"}\\n' | nc 127.0.0.1 8765

Every encode is awaited (``AsyncTokenizer``): yieldtok runs it in exact pieces on its own
pool, so a 160k-token prompt from one client does not stall the loop while other clients'
short requests arrive — they are answered meanwhile. asyncio does not cancel a handler when
its client disconnects: an encode in flight runs to its end and its answer is dropped. To stop
one, cancel the task awaiting it (e.g. ``asyncio.wait_for`` with a timeout): a cancelled
``AsyncTokenizer`` awaitable stops its remaining pieces.

The first line the server prints is ``listening on HOST:PORT`` (``--port 0`` picks a free
port). ``tests/python/test_examples.py`` starts it and talks to it.
"""

from __future__ import annotations

import argparse
import asyncio
import json

import yieldtok


async def serve(atok: yieldtok.AsyncTokenizer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while line := await reader.readline():
            try:
                request = json.loads(line)
                if "ids" in request:
                    answer = {"text": await atok.decode(request["ids"])}
                else:
                    enc = await atok.encode(request["text"], add_special_tokens=request.get("add_special_tokens", True))
                    answer = {"ids": enc.ids}
            except (ValueError, KeyError, TypeError, yieldtok.TokenizerError) as e:  # a bad request: say so, keep serving
                answer = {"error": f"{type(e).__name__}: {e}"}
            writer.write(json.dumps(answer).encode() + b"\n")
            await writer.drain()
    except ConnectionError:
        pass  # the client went away (noticed when writing the answer)
    finally:
        writer.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokenizer", required=True, help="a folder with tokenizer.json")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()

    atok = yieldtok.AsyncTokenizer(yieldtok.Tokenizer.from_dir(args.tokenizer))
    server = await asyncio.start_server(lambda r, w: serve(atok, r, w), args.host, args.port, limit=1 << 26)
    host, port = server.sockets[0].getsockname()[:2]
    print(f"listening on {host}:{port}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
