"""Tokenizer and AsyncTokenizer pickle everything they were loaded with (multiprocessing, Ray):
tokenizer.json with its added tokens, the truncation/padding in force, tokenizer_config.json
(special tokens, sides, model_max_length) and the chat templates."""

from __future__ import annotations

import asyncio
import copy
import json
import multiprocessing as mp
import pickle

import pytest

import yieldtok
from conftest import FIXTURES, REPO, VARIED, fixture_dir, load_pair


@pytest.mark.parametrize("name", FIXTURES)
def test_pickle_roundtrip(name):
    tok, hf = load_pair(name)
    for proto in (2, pickle.HIGHEST_PROTOCOL):
        tok2 = pickle.loads(pickle.dumps(tok, protocol=proto))
        assert isinstance(tok2, yieldtok.Tokenizer)
        for t in VARIED:
            assert tok2.encode(t).ids == tok.encode(t).ids
        assert tok2.get_vocab_size() == tok.get_vocab_size()
        assert tok2.chunking == tok.chunking
    assert copy.deepcopy(tok).encode("deep copy").ids == tok.encode("deep copy").ids


def test_async_tokenizer_pickles():
    tok = yieldtok.AsyncTokenizer(load_pair("qwen3")[0])
    tok2 = pickle.loads(pickle.dumps(tok))
    assert isinstance(tok2, yieldtok.AsyncTokenizer)
    assert tok2.sync.encode("x y").ids == tok.sync.encode("x y").ids


def _encode_in_child(tok_and_text):
    tok, text = tok_and_text
    return tok.encode(text).ids


def test_multiprocessing_spawn():
    tok = load_pair("llama3_1")[0]
    ctx = mp.get_context("spawn")
    with ctx.Pool(2) as pool:
        out = pool.map(_encode_in_child, [(tok, t) for t in VARIED[:6]])
    assert out == [tok.encode(t).ids for t in VARIED[:6]]


def test_to_str_roundtrip():
    tok = load_pair("gemma3")[0]
    again = yieldtok.Tokenizer.from_str(tok.to_str())
    assert again.encode("round trip ▁ text").ids == tok.encode("round trip ▁ text").ids
    assert yieldtok.Tokenizer.from_str(tok.to_str(pretty=True)).get_vocab_size() == tok.get_vocab_size()


CONVERSATION = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Pickle me — then render me in a spawned child. ✓"},
    {"role": "assistant", "content": "Done."},
]
ATTRS = ("bos_token", "eos_token", "pad_token", "unk_token", "bos_token_id", "eos_token_id", "pad_token_id",
         "unk_token_id", "model_max_length", "padding_side", "truncation_side", "truncation", "padding", "origin",
         "chunking")


def state(tok):
    """Everything a copy must keep, and what it computes from it."""
    out = {a: getattr(tok, a) for a in ATTRS}
    out["vocab"] = tok.get_vocab()
    out["added"] = {i: repr(t) for i, t in tok.get_added_tokens_decoder().items()}
    encs = tok.encode_batch(VARIED[:6])
    out["encodings"] = [(e.ids, e.tokens, e.offsets, e.attention_mask, e.type_ids, e.special_tokens_mask,
                         [o.ids for o in e.overflowing]) for e in encs]
    try:
        out["chat"] = tok.apply_chat_template(CONVERSATION, tokenize=False)
    except Exception as e:  # a tokenizer without a chat template: the copy must fail the same way
        out["chat"] = type(e).__name__
    return out


@pytest.mark.parametrize("name", FIXTURES)
def test_pickle_keeps_config_templates_and_settings(name):
    tok = yieldtok.Tokenizer.from_dir(fixture_dir(name))
    tok.enable_truncation(24, stride=3, direction="left")
    tok.enable_padding(direction="left", pad_id=1, pad_token="<padme>", pad_to_multiple_of=8)
    want = state(tok)
    assert want["truncation"]["max_length"] == 24 and want["padding"]["pad_to_multiple_of"] == 8
    for copied in (pickle.loads(pickle.dumps(tok)), copy.copy(tok), copy.deepcopy(tok)):
        assert state(copied) == want
    # settings are copied, not shared: changing the copy leaves the original alone
    other = pickle.loads(pickle.dumps(tok))
    other.no_truncation()
    assert tok.truncation["max_length"] == 24


def test_pickle_keeps_chat_template_and_special_tokens():
    tok = yieldtok.Tokenizer.from_dir(fixture_dir("qwen3"))
    again = pickle.loads(pickle.dumps(tok))
    assert again.eos_token == tok.eos_token == "<|im_end|>"
    assert again.apply_chat_template(CONVERSATION, tokenize=False) == tok.apply_chat_template(CONVERSATION, tokenize=False)
    # a tokenizer.json alone (no config) still pickles to one without a config
    bare = pickle.loads(pickle.dumps(yieldtok.Tokenizer.from_str(tok.to_str())))
    assert bare.eos_token is None


def test_old_pickles_still_load():
    tok = load_pair("gemma3")[0]
    from yieldtok._yieldtok import _tokenizer_from_json

    assert _tokenizer_from_json(tok.to_str()).encode("old pickle").ids == tok.encode("old pickle").ids


def _trajectory():
    case = json.loads((REPO / "tests/fixtures/trajectories-small.json").read_text(encoding="utf-8"))["cases"]
    case = {c["name"]: c for c in case}["qwen3-small-basic"]
    g = case["groups"][0]
    return g[0] if isinstance(g, list) else g["trajectories"][0]


def _chat_and_trajectory_in_child(args):
    tok, conv, traj = args
    out = {"text": tok.apply_chat_template(conv, tokenize=False), "ids": tok.apply_chat_template(conv)}
    r = tok.tokenize_trajectory(traj, 0.5)
    out["trajectory"] = (r.token_ids.tolist(), r.assistant_mask.tolist(), r.chat, r.prompt_length)
    out["async"] = asyncio.run(_async_in_child(yieldtok.AsyncTokenizer(tok), conv, traj))
    return out


async def _async_in_child(atok, conv, traj):
    r = await atok.tokenize_trajectory(traj, 0.5)
    return (await atok.apply_chat_template(conv, tokenize=False), r.token_ids.tolist())


def test_spawn_child_renders_chat_templates_and_trajectories():
    tok = yieldtok.Tokenizer.from_dir(fixture_dir("qwen3"))
    traj = _trajectory()
    r = tok.tokenize_trajectory(traj, 0.5)
    want_traj = (r.token_ids.tolist(), r.assistant_mask.tolist(), r.chat, r.prompt_length)
    assert sum(want_traj[1]) > 0
    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        out = pool.map(_chat_and_trajectory_in_child, [(tok, CONVERSATION, traj)])[0]
    assert out["text"] == tok.apply_chat_template(CONVERSATION, tokenize=False)
    assert out["ids"] == tok.apply_chat_template(CONVERSATION)
    assert out["trajectory"] == want_traj
    assert out["async"] == (out["text"], want_traj[0])
