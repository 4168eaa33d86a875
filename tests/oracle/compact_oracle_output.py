#!/usr/bin/env python3
"""Compact art_oracle.py output for committing as a fixture: packed tensor rows lose their
trailing padding (each tensor's row is cut after its last value that differs from the tensor's
padding value, recorded as "pad"; readers re-pad to "shape"), and the JSON is written without
spaces. Lossless: tests/../core/tests/trajectory_art.rs re-pads.

Usage: python3 tests/oracle/compact_oracle_output.py IN.json OUT.json
"""

import json
import sys

PADS = {
    "group_ids": -1,
    "parent_ids": -1,
    "input_pos": 0,
    "assistant_mask": False,
    "logprobs": "NaN",
    "advantages": 0.0,
    "weights": 0.0,
}


def trim(rows, pad):
    out = []
    for row in rows:
        end = len(row)
        while end > 0 and row[end - 1] == pad and type(row[end - 1]) is type(pad):
            end -= 1
        out.append(row[:end])
    return out


def main() -> int:
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        doc = json.load(f)
    for case in doc.get("cases", [doc]):
        packed = case.get("packed")
        if not packed or not packed.get("ok"):
            continue
        pads = dict(PADS, tokens=case["pack_options"]["pad_token_id"])
        for key, pad in pads.items():
            t = packed[key]
            t["pad"] = pad
            t["data"] = trim(t["data"], pad)
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
