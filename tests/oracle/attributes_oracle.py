"""Expected transformers-style attributes and method results per fixture: transformers 5.24's
PreTrainedTokenizerFast.from_pretrained(folder) for every fixture with a tokenizer_config.json.
Per fixture: {"attrs": {name: value}, "calls": [[method, args, kwargs, result], ...]}.

usage: attributes_oracle.py OUT.json --fixtures DIR"""
import argparse
import json
import os
import warnings

warnings.filterwarnings("ignore")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
from transformers import PreTrainedTokenizerFast  # noqa: E402

ATTRS = ["bos_token", "eos_token", "pad_token", "unk_token",
         "bos_token_id", "eos_token_id", "pad_token_id", "unk_token_id",
         "model_max_length", "padding_side", "truncation_side",
         "sep_token", "cls_token", "mask_token", "sep_token_id", "cls_token_id", "mask_token_id",
         "all_special_tokens", "all_special_ids", "extra_special_tokens", "extra_special_tokens_ids",
         "vocab_size", "chat_template", "model_input_names"]

TEXT = "Hello, world! naïve café — 東京 🙂 <|im_end|> [SEP] </s>  tabs\tand\nnewlines 12345"


def calls(t):
    """[method, args, kwargs, result] for the methods, on ids/tokens that exercise their edges."""
    ids = t.encode(TEXT, add_special_tokens=True)
    special = [i for i in t.all_special_ids if i is not None]
    mixed = special[:3] + ids[:6] + special[-2:] + [len(t) + 5]   # specials, text ids, an unknown id
    tokens = t.convert_ids_to_tokens(ids)
    out = [["__len__", [], {}, len(t)], ["get_added_vocab", [], {}, t.get_added_vocab()]]
    for args, kw in [([mixed], {}), ([mixed], {"skip_special_tokens": True}), ([ids[0]], {}),
                     ([len(t) + 5], {}), ([special[0] if special else 0], {"skip_special_tokens": True})]:
        out.append(["convert_ids_to_tokens", args, kw, t.convert_ids_to_tokens(*args, **kw)])
    for arg in [tokens, tokens[0], "definitely-not-a-token-\u2603", [tokens[-1], "no-such-token-x"], []]:
        out.append(["convert_tokens_to_ids", [arg], {}, t.convert_tokens_to_ids(arg)])
    for arg in [tokens, [x for x in tokens if x not in t.all_special_tokens], tokens[1:4], []]:
        out.append(["convert_tokens_to_string", [arg], {}, t.convert_tokens_to_string(arg)])
    return out

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--fixtures", required=True)
a = ap.parse_args()
out = {}
for name in sorted(os.listdir(a.fixtures)):
    d = os.path.join(a.fixtures, name)
    if not os.path.exists(os.path.join(d, "tokenizer_config.json")):
        continue
    t = PreTrainedTokenizerFast.from_pretrained(d)
    # model_max_length can be int(1e30), beyond JSON's safe integers: kept as a string.
    attrs = {k: (str(v) if k == "model_max_length" else v) for k, v in ((k, getattr(t, k)) for k in ATTRS)}
    out[name] = {"attrs": attrs, "calls": calls(t)}
with open(a.out, "w") as f:
    json.dump(out, f, ensure_ascii=False, indent=1)
