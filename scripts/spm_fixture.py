"""Train the SYNTHETIC `spm_unigram` fixture: a small SentencePiece Unigram model (T5's ids:
<pad>=0, </s>=1, <unk>=2) on the given text file, with SentencePiece's built-in nmt_nfkc
normalization rules, written as a tokenizer.json the way transformers' T5 converter writes one
(normalizer Precompiled + Strip(right) + Replace(" {2,}" -> "▁"), Metaspace pre-tokenizer).

    python spm_fixture.py <corpus.txt> <out-dir>       (needs the `sentencepiece` package)
"""

import base64
import io
import json
import sys

import sentencepiece as spm


def varint(b, i):
    v, shift = 0, 0
    while True:
        x = b[i]
        i += 1
        v |= (x & 0x7F) << shift
        shift += 7
        if not x & 0x80:
            return v, i


def fields(b):
    """(field number, wire type, value) of a serialized protobuf message."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i : i + 8], i + 8
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i : i + n], i + n
        elif wt == 5:
            v, i = b[i : i + 4], i + 4
        else:
            raise ValueError(f"wire type {wt}")
        yield num, wt, v


def charsmap(model: bytes) -> bytes:
    for num, _, v in fields(model):
        if num == 3:  # ModelProto.normalizer_spec
            for n2, _, v2 in fields(v):
                if n2 == 2:  # NormalizerSpec.precompiled_charsmap
                    return bytes(v2)
    raise ValueError("no precompiled_charsmap")


def main(corpus, out):
    lines = [line for line in open(corpus, encoding="utf-8").read().splitlines() if line.strip()]
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines * 4),
        model_writer=buf,
        vocab_size=1200,
        hard_vocab_limit=False,
        model_type="unigram",
        normalization_rule_name="nmt_nfkc",
        pad_id=0,
        eos_id=1,
        unk_id=2,
        bos_id=-1,
        num_threads=1,
        minloglevel=2,
    )
    model = buf.getvalue()
    sp = spm.SentencePieceProcessor(model_proto=model)
    vocab = [[sp.id_to_piece(i), float(sp.get_score(i))] for i in range(sp.get_piece_size())]
    added = [
        {"id": i, "content": sp.id_to_piece(i), "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True}
        for i in range(sp.get_piece_size()) if sp.is_control(i) or sp.is_unknown(i)
    ]
    eos = sp.id_to_piece(1)
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap(model)).decode()},
            {"type": "Strip", "strip_left": False, "strip_right": True},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "\u2581"},
        ]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": eos, "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": eos, "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": eos, "type_id": 0}}],
            "special_tokens": {eos: {"id": eos, "ids": [1], "tokens": [eos]}},
        },
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": 2, "vocab": vocab, "byte_fallback": False},
    }
    with open(f"{out}/tokenizer.json", "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False)
    with open(f"{out}/tokenizer_config.json", "w", encoding="utf-8") as f:
        json.dump({"tokenizer_class": "T5Tokenizer", "eos_token": eos, "unk_token": "<unk>", "pad_token": "<pad>",
                   "synthetic": "trained by scripts/spm_fixture.py; not a published model"}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
