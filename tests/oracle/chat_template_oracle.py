#!/usr/bin/env python3
"""Reference renders of chat templates with transformers (the oracle for yieldtok's chat-template engine).

Reads a JSON list of cases and writes {"meta": {"transformers": version, "jinja2": version}, "results": [...]}, one
result per case, in the same order:

    case = {
      "id": "...",                          # optional, echoed back
      "template_dir": "qwen3",              # tokenizer folder (tokenizer.json + tokenizer_config.json),
                                            # absolute or relative to --fixtures (default: the cases file's folder)
      "chat_template": "...",               # optional: explicit template source (else the folder's chat_template)
      "messages": [...], "tools": [...] | null, "documents": [...] | null,
      "add_generation_prompt": false,
      "continue_final_message": false,      # or a field name such as "reasoning_content"
      "kwargs": {...},                      # extra template variables (enable_thinking, ...)
      "return_assistant_tokens_mask": false # also report generation spans and the token mask
    }
    result = {"id": ..., "text": "..."} or {"id": ..., "error": "<exception class>: <message>"}
             plus, when return_assistant_tokens_mask is set and rendering succeeded:
             "generation_char_spans": [[start, end], ...]   (transformers' generation_indices, in characters)
             "generation_byte_spans": [[start, end], ...]   (the same spans in UTF-8 bytes)
             "assistant_masks": [0, 1, ...], "input_ids": [...]  (apply_chat_template(return_assistant_tokens_mask=True))
             "token_byte_offsets": [[start, end], ...]         (the tokens' offsets, in UTF-8 bytes)

Tokenizers are loaded as PreTrainedTokenizerFast(tokenizer_file=..., **named special tokens of tokenizer_config.json)
with the config's chat_template (AutoTokenizer is avoided: in transformers 5.x it mis-loads DeepSeek-V3 from these
folders). --fixed-now pins the clock behind strftime_now (ISO date-time) so renders are reproducible.

Usage: python chat_template_oracle.py CASES.json OUT.json [--fixtures DIR] [--fixed-now 2024-07-26T09:05:03]
"""

import argparse
import datetime as _dt
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

import transformers  # noqa: E402
from transformers import PreTrainedTokenizerFast  # noqa: E402
from transformers.utils import chat_template_utils  # noqa: E402

SPECIAL_TOKEN_NAMES = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"]


def token_string(value):
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    return None


def load_tokenizer(folder, cache):
    folder = os.path.abspath(folder)
    if folder in cache:
        return cache[folder]
    with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    special = {}
    for name in SPECIAL_TOKEN_NAMES:
        s = token_string(config.get(name))
        if s is not None:
            special[name] = s
    tok = PreTrainedTokenizerFast(tokenizer_file=os.path.join(folder, "tokenizer.json"), **special)
    template = config.get("chat_template")
    if isinstance(template, list):
        template = {t["name"]: t["template"] for t in template}
    jinja_file = os.path.join(folder, "chat_template.jinja")
    if template is None and os.path.exists(jinja_file):
        with open(jinja_file, encoding="utf-8") as f:
            template = f.read()
    tok.chat_template = template
    cache[folder] = tok
    return tok


def pin_clock(iso):
    fixed = _dt.datetime.fromisoformat(iso)

    class FixedDatetime(_dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return fixed

    # transformers' strftime_now calls the module-global `datetime.now()` at render time
    chat_template_utils.datetime = FixedDatetime


def char_to_byte_index(text):
    """byte_at[i] = UTF-8 byte offset of character i (and of the end, at len(text))."""
    out = [0] * (len(text) + 1)
    total = 0
    for i, ch in enumerate(text):
        out[i] = total
        total += len(ch.encode("utf-8"))
    out[len(text)] = total
    return out


def char_to_byte_spans(text, spans):
    out = []
    for start, end in spans:
        out.append([len(text[:start].encode("utf-8")), len(text[:end].encode("utf-8"))])
    return out


def generation_char_spans(tok, case, template_source):
    """transformers' generation_indices for one conversation (internal API, same code path as the mask)."""
    conversation = chat_template_utils._normalize_chat_messages(case["messages"])
    template_kwargs = {**tok.special_tokens_map, **(case.get("kwargs") or {})}
    _, indices = chat_template_utils.render_jinja_template(
        conversations=[conversation],
        tools=case.get("tools"),
        documents=case.get("documents"),
        chat_template=template_source,
        return_assistant_tokens_mask=True,
        add_generation_prompt=case.get("add_generation_prompt", False),
        **template_kwargs,
    )
    return [list(span) for span in indices[0]]


def run_case(case, fixtures, cache):
    folder = case["template_dir"]
    if not os.path.isabs(folder):
        folder = os.path.join(fixtures, folder)
    tok = load_tokenizer(folder, cache)
    kwargs = dict(case.get("kwargs") or {})
    common = dict(
        tools=case.get("tools"),
        documents=case.get("documents"),
        add_generation_prompt=case.get("add_generation_prompt", False),
        continue_final_message=case.get("continue_final_message", False),
    )
    if case.get("chat_template") is not None:
        common["chat_template"] = case["chat_template"]
    result = {}
    try:
        text = tok.apply_chat_template(case["messages"], tokenize=False, **common, **kwargs)
        result["text"] = text
    except Exception as e:  # noqa: BLE001 - every failure is a result
        result["error"] = f"{type(e).__name__}: {e}"
        return result
    if case.get("return_assistant_tokens_mask"):
        try:
            source = tok.get_chat_template(case.get("chat_template"), case.get("tools"))
            spans = generation_char_spans(tok, case, source)
            result["generation_char_spans"] = spans
            result["generation_byte_spans"] = char_to_byte_spans(text, spans)
            out = tok.apply_chat_template(
                case["messages"], tokenize=True, return_dict=True, return_assistant_tokens_mask=True, **common, **kwargs
            )
            result["input_ids"] = list(out["input_ids"])
            result["assistant_masks"] = list(out["assistant_masks"])
            byte_at = char_to_byte_index(text)
            result["token_byte_offsets"] = [[byte_at[a], byte_at[b]] for a, b in out.encodings[0].offsets]
        except Exception as e:  # noqa: BLE001
            result["mask_error"] = f"{type(e).__name__}: {e}"
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cases")
    ap.add_argument("out")
    ap.add_argument("--fixtures", help="folder that relative template_dir values are resolved against")
    ap.add_argument("--fixed-now", help="ISO date-time returned by datetime.now() inside strftime_now")
    args = ap.parse_args(argv)
    if args.fixed_now:
        pin_clock(args.fixed_now)
    fixtures = args.fixtures or os.path.dirname(os.path.abspath(args.cases))
    with open(args.cases, encoding="utf-8") as f:
        cases = json.load(f)
    cache = {}
    results = []
    for case in cases:
        r = run_case(case, fixtures, cache)
        if "id" in case:
            r = {"id": case["id"], **r}
        results.append(r)
    meta = {"transformers": transformers.__version__}
    try:
        import jinja2

        meta["jinja2"] = jinja2.__version__
    except ImportError:
        pass
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"meta": meta, "results": results}, f, ensure_ascii=False)
    errors = sum(1 for r in results if "error" in r)
    print(f"oracle: {len(results)} cases ({errors} raise) with transformers {transformers.__version__}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
