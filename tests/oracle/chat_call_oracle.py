"""Expected results of transformers 5.24's ``apply_chat_template`` as a call (its defaults,
``return_dict``, ``return_tensors``, ``padding``, ``truncation``, ``max_length``,
``tokenizer_kwargs``, ``return_assistant_tokens_mask``, batches of conversations) on
``PreTrainedTokenizerFast.from_pretrained`` of real fixtures, for tests/python/test_chat_call.py.
The renders themselves are the chat-template oracle's business (chat_template_oracle.py); this
one checks what is done with them.

usage: chat_call_oracle.py OUT.json --fixtures DIR
Per case: {"fixture", "name", "args": [conversation], "kwargs", then "dict": {key: value} (a
mapping was returned), "value" (anything else), or "error" and "error_type" (the first builtin
exception class of the raised one's MRO, or null)}; values as plain_json.plain writes them."""
import argparse
import builtins
import copy
import json
import os
import sys
import warnings
from collections.abc import Mapping

warnings.filterwarnings("ignore")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
from transformers import PreTrainedTokenizerFast  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_chat_cases import GENERATION_TEMPLATES, self_made_conversations  # noqa: E402
from plain_json import plain  # noqa: E402  (this folder: the script's own)

# fixtures with their own chat template; then ones given GENERATION_TEMPLATES["gen_chatml"]
TEMPLATED = ["qwen3", "llama3_1", "gemma3", "deepseek_v3"]
GIVEN = ["gpt4o", "minilm"]
GEN = GENERATION_TEMPLATES["gen_chatml"]

SYSTEM = {"role": "system", "content": "You are a terse assistant. Answer in one line."}
SHORT = [SYSTEM, {"role": "user", "content": "Hi there 👋"}]
TURNS = [
    SYSTEM,
    {"role": "user", "content": "What is the capital of France?"},
    {"role": "assistant", "content": "Paris — the city of light."},
    {"role": "user", "content": "And of Japan? 東京?"},
]
LONG = [
    {"role": "user", "content": " ".join(f"word{i} naïve café {i * 7}" for i in range(60))},
    {"role": "assistant", "content": "Understood: " + " ".join(f"item{i}" for i in range(30))},
]
PREFILL = [{"role": "user", "content": "Write a haiku about tea."}, {"role": "assistant", "content": "Steam rises slowly"}]
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city.",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


def conversation_cases():
    """(name, conversation, kwargs) for one fixture: single conversations and batches."""
    batch = [SHORT, TURNS, LONG]
    out = [
        ("default", SHORT, {}),
        ("tokenize=False", SHORT, {"tokenize": False}),
        ("return_dict=False", SHORT, {"return_dict": False}),
        ("tokenize=False return_dict=True", SHORT, {"tokenize": False, "return_dict": True}),
        ("return_tensors np", TURNS, {"return_tensors": "np"}),
        ("return_tensors np return_dict=False", TURNS, {"return_tensors": "np", "return_dict": False}),
        ("add_generation_prompt", TURNS, {"add_generation_prompt": True}),
        ("add_generation_prompt tokenize=False", TURNS, {"add_generation_prompt": True, "tokenize": False}),
        ("continue_final_message", PREFILL, {"continue_final_message": True}),
        ("continue_final_message tokenize=False", PREFILL, {"continue_final_message": True, "tokenize": False}),
        ("continue + generation prompt", PREFILL, {"continue_final_message": True, "add_generation_prompt": True}),
        ("tools", TURNS, {"tools": TOOLS, "add_generation_prompt": True}),
        ("template kwargs", TURNS, {"add_generation_prompt": True, "enable_thinking": False}),
        ("truncation", LONG, {"truncation": True, "max_length": 16}),
        ("max_length without truncation", LONG, {"max_length": 16}),
        ("truncation without max_length", LONG, {"truncation": True}),
        ("padding max_length", SHORT, {"padding": "max_length", "max_length": 64}),
        ("padding max_length truncation", LONG, {"padding": "max_length", "truncation": True, "max_length": 24}),
        ("padding True single", SHORT, {"padding": True}),
        ("empty conversation", [], {}),
        ("batch", batch, {}),
        ("batch tokenize=False", batch, {"tokenize": False}),
        ("batch return_dict=False", batch, {"return_dict": False}),
        ("batch padding", batch, {"padding": True}),
        ("batch padding truncation", batch, {"padding": True, "truncation": True, "max_length": 24}),
        ("batch padding longest", batch, {"padding": "longest", "truncation": True, "max_length": 40}),
        ("batch padding max_length", batch, {"padding": "max_length", "truncation": True, "max_length": 48}),
        ("batch truncation", batch, {"truncation": True, "max_length": 20}),
        ("batch np padded", batch, {"padding": True, "return_tensors": "np"}),
        ("batch np ragged", batch, {"return_tensors": "np"}),
        ("batch np return_dict=False", batch, {"padding": True, "truncation": True, "max_length": 30,
                                              "return_tensors": "np", "return_dict": False}),
        ("batch generation prompt", [SHORT, TURNS], {"add_generation_prompt": True, "padding": True}),
        ("batch with an empty conversation", [SHORT, []], {}),
        ("tokenizer_kwargs padding_side left", batch, {"padding": True, "tokenizer_kwargs": {"padding_side": "left"}}),
        ("tokenizer_kwargs pad_to_multiple_of", batch, {"padding": True, "tokenizer_kwargs": {"pad_to_multiple_of": 8}}),
        ("tokenizer_kwargs offsets", TURNS, {"tokenizer_kwargs": {"return_offsets_mapping": True}}),
        ("tokenizer_kwargs offsets batch padded", batch, {"padding": True, "truncation": True, "max_length": 30,
                                                         "tokenizer_kwargs": {"return_offsets_mapping": True}}),
        ("tokenizer_kwargs no attention mask", TURNS, {"tokenizer_kwargs": {"return_attention_mask": False}}),
        ("tokenizer_kwargs length", batch, {"tokenizer_kwargs": {"return_length": True}}),
        ("tokenizer_kwargs token type ids", TURNS, {"tokenizer_kwargs": {"return_token_type_ids": True}}),
        ("tokenizer_kwargs special tokens mask", TURNS, {"tokenizer_kwargs": {"return_special_tokens_mask": True}}),
        ("tokenizer_kwargs overflowing", LONG, {"truncation": True, "max_length": 32,
                                              "tokenizer_kwargs": {"return_overflowing_tokens": True, "stride": 4}}),
        ("tokenizer_kwargs overflowing batch", batch, {"truncation": True, "max_length": 32,
                                                      "tokenizer_kwargs": {"return_overflowing_tokens": True}}),
        ("tokenizer_kwargs add_special_tokens", SHORT, {"tokenizer_kwargs": {"add_special_tokens": True}}),
        ("tokenizer_kwargs truncation", SHORT, {"tokenizer_kwargs": {"truncation": True}}),
        ("bad padding", SHORT, {"padding": "sideways"}),
        ("bad padding tokenize=False", SHORT, {"padding": "sideways", "tokenize": False}),
    ]
    for label, msgs, tools in self_made_conversations()[:6]:
        out.append((f"self-made {label}", msgs, {"tools": tools} if tools else {}))
    return out


def mask_cases():
    """(name, conversation, kwargs) with a template that has {% generation %} blocks."""
    batch = [TURNS + [{"role": "assistant", "content": "Tokyo."}], LONG, [SYSTEM] + LONG]
    one = batch[0]
    m = {"chat_template": GEN, "return_assistant_tokens_mask": True}
    return [
        ("mask", one, m),
        ("mask np", one, {**m, "return_tensors": "np"}),
        ("mask generation prompt", one, {**m, "add_generation_prompt": True}),
        ("mask batch", batch, m),
        ("mask batch padding truncation", batch, {**m, "padding": True, "truncation": True, "max_length": 40}),
        ("mask batch padding left", batch, {**m, "padding": True, "tokenizer_kwargs": {"padding_side": "left"}}),
        ("mask batch padding max_length np", batch, {**m, "padding": "max_length", "truncation": True,
                                                     "max_length": 64, "return_tensors": "np"}),
        ("mask truncation", one, {**m, "truncation": True, "max_length": 12}),
        ("mask return_dict=False", one, {**m, "return_dict": False}),
        ("mask tokenize=False", one, {**m, "tokenize": False}),
        ("mask continue", PREFILL, {**m, "continue_final_message": True}),
        ("gen template default", batch, {"chat_template": GEN, "padding": True}),
    ]


def builtin_base(e):
    for cls in type(e).__mro__:
        if cls in (Exception, BaseException, object):
            return None
        if getattr(builtins, cls.__name__, None) is cls:
            return cls.__name__
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--fixtures", required=True)
    a = ap.parse_args()
    results = []
    for fx in TEMPLATED + GIVEN:
        d = os.path.join(a.fixtures, fx)
        if not os.path.exists(os.path.join(d, "tokenizer_config.json")):
            continue
        t = PreTrainedTokenizerFast.from_pretrained(d)
        cases = conversation_cases() if fx in TEMPLATED else []
        if fx in GIVEN:
            cases = [(n, c, {**kw, "chat_template": GEN}) for n, c, kw in conversation_cases()
                     if "tools" not in kw and not n.startswith("self-made")]
        if fx in ("qwen3", "gemma3") or fx in GIVEN:
            cases += mask_cases()
        for name, conversation, kw in cases:
            case = {"fixture": fx, "name": name, "args": [copy.deepcopy(conversation)], "kwargs": kw}
            try:
                r = t.apply_chat_template(copy.deepcopy(conversation), **copy.deepcopy(kw))
                if isinstance(r, Mapping):
                    case["dict"] = {k: plain(v) for k, v in r.items()}
                else:
                    case["value"] = plain(r)
            except Exception as e:  # noqa: BLE001 - the error is the expected result
                case["error"] = f"{type(e).__name__}: {e}"
                case["error_type"] = builtin_base(e)
            results.append(case)
    with open(a.out, "w") as f:
        json.dump(results, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
