"""Expected transformers-style attributes per fixture: transformers 5.24's
PreTrainedTokenizerFast.from_pretrained(folder) for every fixture with a tokenizer_config.json.

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
         "model_max_length", "padding_side", "truncation_side"]

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
    out[name] = {k: (str(v) if k == "model_max_length" else v) for k, v in ((k, getattr(t, k)) for k in ATTRS)}
with open(a.out, "w") as f:
    json.dump(out, f, ensure_ascii=False, indent=1)
