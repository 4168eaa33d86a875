"""Expected results of transformers' ``tokenizer(...)`` (PreTrainedTokenizerFast.__call__ of
transformers 5.24) over a grid of arguments on several fixtures, for tests/python/test_call.py.

usage: call_oracle.py OUT.json --fixtures DIR
Per case: {"fixture", "args": [text, text_pair], "kwargs", "result" | "error"}; a numpy array is
{"np": dtype, "shape": [...], "data": nested lists} (an object array: "data" is its rows)."""
import argparse
import itertools
import json
import os
import random
import warnings

warnings.filterwarnings("ignore")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
from transformers import PreTrainedTokenizerFast  # noqa: E402

from plain_json import plain  # noqa: E402  (this folder: the script's own)

FIXTURES = ["qwen3", "llama3_1", "gemma3", "minilm", "spm_unigram", "deepseek_v3", "gpt4o"]
SHORT = "Hello, world!"
MEDIUM = "Ünïcode café — 東京 🙂 and some plain words to make this one a little longer than the others."
LONG = " ".join(f"word{i} naïve {i * 7} <tag>" for i in range(40))
TEXTS = [
    ("single short", SHORT, None),
    ("single long", LONG, None),
    ("batch", [SHORT, LONG, MEDIUM, ""], None),
    ("pair", MEDIUM, LONG),
    ("pair batch", [SHORT, LONG], [LONG, MEDIUM]),
    ("empty pair", SHORT, ""),
]
GRID = dict(
    padding=[False, True, "longest", "max_length"],
    truncation=[None, False, True, "longest_first", "only_first", "only_second"],
    max_length=[None, 16, 40],
    stride=[0, 3],
    pad_to_multiple_of=[None, 8],
    return_tensors=[None, "np"],
    return_token_type_ids=[None, True, False],
    return_attention_mask=[None, False],
    return_overflowing_tokens=[False, True],
    return_special_tokens_mask=[False, True],
    return_offsets_mapping=[False, True],
    return_length=[False, True],
    add_special_tokens=[True, False],
)


def cases(seed=0, per_text=40):
    rnd = random.Random(seed)
    keys = list(GRID)
    out = []
    for name, text, pair in TEXTS:
        # every padding x truncation pair once (max_length 16), then random draws over the grid
        for padding, truncation in itertools.product(GRID["padding"], GRID["truncation"]):
            out.append((name, text, pair, {"padding": padding, "truncation": truncation, "max_length": 16}))
        for _ in range(per_text):
            kw = {k: rnd.choice(GRID[k]) for k in keys}
            out.append((name, text, pair, {k: v for k, v in kw.items() if v != GRID[k][0] or k == "padding"}))
    out.append(("single short", SHORT, None, {"padding": "max_length"}))  # max_length from model_max_length
    out.append(("batch", [SHORT, LONG], None, {"truncation": True}))
    out.append(("batch", [SHORT, LONG], None, {"max_length": 8}))  # truncation implied
    out.append(("single short", SHORT, None, {"padding_side": "left", "padding": "max_length", "max_length": 12}))
    out.append(("single short", SHORT, None, {"tokenizer_kwargs": {"max_length": 5, "truncation": True}}))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--fixtures", required=True)
    a = ap.parse_args()
    results = []
    for fx in FIXTURES:
        d = os.path.join(a.fixtures, fx)
        if not os.path.exists(os.path.join(d, "tokenizer_config.json")):
            continue
        t = PreTrainedTokenizerFast.from_pretrained(d)
        for name, text, pair, kw in cases():
            case = {"fixture": fx, "name": name, "args": [text, pair], "kwargs": kw}
            try:
                r = t(text, pair, **kw)
                case["result"] = {k: plain(v) for k, v in r.items()}
            except Exception as e:  # noqa: BLE001 - the error is the expected result
                case["error"] = f"{type(e).__name__}: {e}"
            results.append(case)
    with open(a.out, "w") as f:
        json.dump(results, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
