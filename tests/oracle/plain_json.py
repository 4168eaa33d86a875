"""One JSON form of a tokenizer call's values, written by tests/oracle/call_oracle.py (on
transformers' results) and compared by tests/python/test_call.py (on yieldtok's): one
definition, so both sides convert alike. A numpy array is {"np": dtype, "shape": [...],
"data": nested lists} (an object array: "data" is its rows converted the same way)."""
import numpy as np


def plain(v):
    if isinstance(v, np.ndarray):
        if v.dtype == object:
            return {"np": "object", "shape": list(v.shape), "data": [plain(x) for x in v]}
        return {"np": str(v.dtype), "shape": list(v.shape), "data": v.tolist()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v
