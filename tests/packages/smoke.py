"""Smoke test of an installed yieldtok wheel, run by scripts/test-packages.sh with `python -I`
from a folder outside the repository: the package must come from the venv, not the source tree.

    python -I smoke.py <model dir> <expected.json>

expected.json (written by `tokenizers` in the dev venv): {"texts": [...], "ids": [[...], ...]}.
"""

import asyncio
import json
import pathlib
import sys

import yieldtok

model, expected = sys.argv[1], json.loads(pathlib.Path(sys.argv[2]).read_text(encoding="utf-8"))
here = pathlib.Path(yieldtok.__file__).resolve()
assert "site-packages" in here.parts, f"yieldtok imported from {here}, not from the installed wheel"

tok = yieldtok.Tokenizer.from_dir(model)
for text, ids in zip(expected["texts"], expected["ids"]):
    assert tok.encode(text).ids == ids, text[:40]


async def main() -> None:
    encodings = await asyncio.gather(*(tok.async_encode(t) for t in expected["texts"]))
    assert [e.ids for e in encodings] == expected["ids"]


asyncio.run(main())
prompt = tok.apply_chat_template([{"role": "user", "content": "Hi there"}], tokenize=False, add_generation_prompt=True)
assert "Hi there" in prompt and prompt != "Hi there", prompt
print(f"python wheel OK: {here.parent} ({len(expected['texts'])} texts, chat prompt of {len(prompt)} chars)")
