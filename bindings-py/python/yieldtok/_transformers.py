"""transformers-style surface (``PreTrainedTokenizerFast``'s names): the values come from the
Rust ``Tokenizer`` (core reads ``tokenizer_config.json``); this module only forwards them."""

from __future__ import annotations

ATTRIBUTES = (
    "bos_token", "eos_token", "pad_token", "unk_token", "sep_token", "cls_token", "mask_token",
    "bos_token_id", "eos_token_id", "pad_token_id", "unk_token_id", "sep_token_id", "cls_token_id", "mask_token_id",
    "all_special_tokens", "all_special_ids", "extra_special_tokens", "extra_special_tokens_ids",
    "additional_special_tokens", "vocab_size", "chat_template",
    "model_max_length", "padding_side", "truncation_side", "model_input_names",
)

# Lookups (no tokenization work): plain methods on AsyncTokenizer too, like ``token_to_id``.
METHODS = ("convert_ids_to_tokens", "convert_tokens_to_ids", "convert_tokens_to_string", "get_added_vocab")


def add_attributes(cls: type) -> type:
    """Give a wrapper class (``AsyncTokenizer``) read-only properties, lookup methods and
    ``len()`` reading ``self.sync``."""
    for name in ATTRIBUTES:
        def get(self, _name=name):
            return getattr(self.sync, _name)
        setattr(cls, name, property(get, doc=f"``Tokenizer.{name}`` (as transformers')."))
    for name in METHODS:
        def call(self, *args, _name=name, **kwargs):
            return getattr(self.sync, _name)(*args, **kwargs)
        call.__name__ = name
        call.__doc__ = f"``Tokenizer.{name}`` (as transformers')."
        setattr(cls, name, call)
    cls.__len__ = lambda self: len(self.sync)
    return cls


# ---- __call__ (PreTrainedTokenizerFast.__call__) -------------------------------------------
# transformers maps its arguments onto the backend tokenizer's truncation and padding and runs
# one encode_batch; so does this, on a handle of the core tokenizer with those settings (the
# tokenizer's own settings are left alone). No truncation or padding logic lives here.

_LARGE_INTEGER = int(1e20)
_PADDING = ("longest", "max_length", "do_not_pad")
_TRUNCATION = ("only_first", "only_second", "longest_first", "do_not_truncate")


def _strategies(tok, padding, truncation, max_length, pad_to_multiple_of):
    """transformers' ``_get_padding_truncation_strategies``."""
    if max_length is not None and padding is False and truncation is None:
        truncation = "longest_first"
    if padding is not False:
        pad = "longest" if padding is True else padding
        if pad not in _PADDING:
            raise ValueError(f"{pad!r} is not a valid PaddingStrategy, please select one of {list(_PADDING)}")
    else:
        pad = "do_not_pad"
    if truncation is not False and truncation is not None:
        trunc = "longest_first" if truncation is True else truncation
        if trunc not in _TRUNCATION:
            raise ValueError(f"{trunc!r} is not a valid TruncationStrategy, please select one of {list(_TRUNCATION)}")
    else:
        trunc = "do_not_truncate"
    if max_length is None:
        if pad == "max_length":
            if tok.model_max_length > _LARGE_INTEGER:
                pad = "do_not_pad"
            else:
                max_length = tok.model_max_length
        if trunc != "do_not_truncate":
            if tok.model_max_length > _LARGE_INTEGER:
                trunc = "do_not_truncate"
            else:
                max_length = tok.model_max_length
    if pad != "do_not_pad" and (tok.pad_token is None or tok.pad_token_id is None or tok.pad_token_id < 0):
        raise ValueError(
            "Asking to pad but the tokenizer does not have a padding token. Please select a token to use as "
            "`pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` or add a new pad token via "
            "`tokenizer.add_special_tokens({'pad_token': '[PAD]'})`."
        )
    if (trunc != "do_not_truncate" and pad != "do_not_pad" and pad_to_multiple_of is not None
            and max_length is not None and max_length % pad_to_multiple_of != 0):
        raise ValueError(
            "Truncation and padding are both activated but "
            f"truncation length ({max_length}) is not a multiple of pad_to_multiple_of ({pad_to_multiple_of})."
        )
    return pad, trunc, max_length


def _valid_text(t) -> bool:
    if isinstance(t, str):
        return True
    if isinstance(t, (list, tuple)):
        return len(t) == 0 or isinstance(t[0], str)
    return False


_RENDERED = object()  # _Call's text when it is apply_chat_template's render (given by the core)


class _Call:
    """One ``__call__``: the settings handle and inputs, then the conversion of its encodings."""

    def __init__(self, tok, text, text_pair=None, add_special_tokens=True, padding=False, truncation=None,
                 max_length=None, stride=0, is_split_into_words=False, pad_to_multiple_of=None, padding_side=None,
                 return_tensors=None, return_token_type_ids=None, return_attention_mask=None,
                 return_overflowing_tokens=False, return_special_tokens_mask=False, return_offsets_mapping=False,
                 return_length=False, verbose=True, tokenizer_kwargs=None, **kwargs):
        if tokenizer_kwargs:
            merged = dict(add_special_tokens=add_special_tokens, padding=padding, truncation=truncation,
                          max_length=max_length, stride=stride, pad_to_multiple_of=pad_to_multiple_of,
                          padding_side=padding_side, return_tensors=return_tensors,
                          return_token_type_ids=return_token_type_ids, return_attention_mask=return_attention_mask,
                          return_overflowing_tokens=return_overflowing_tokens,
                          return_special_tokens_mask=return_special_tokens_mask,
                          return_offsets_mapping=return_offsets_mapping, return_length=return_length)
            merged.update(tokenizer_kwargs)
            merged.update(kwargs)
            self.__init__(tok, text, text_pair, is_split_into_words=is_split_into_words, **merged)
            return
        if kwargs:
            raise TypeError(f"unsupported keyword arguments: {sorted(kwargs)}")
        if text is None:
            raise ValueError("You need to specify either `text` or `text_target`.")
        if is_split_into_words:
            raise NotImplementedError("is_split_into_words=True (pre-tokenized input) is not supported")
        if return_tensors not in (None, "np", "pt"):
            raise ValueError(f"return_tensors={return_tensors!r}: use None, 'np' or 'pt'")
        pad, trunc, max_length = _strategies(tok, padding, truncation, max_length, pad_to_multiple_of)
        bad = ("text input must be of type `str` (single example), `list[str]` (batch or single pretokenized "
               "example) or `list[list[str]]` (batch of pretokenized examples) or `list[tuple[list[str], "
               "list[str]]]` (batch of pretokenized sequence pairs).")
        if text is _RENDERED:
            self.batched, self.inputs = False, None  # set from the core's render (apply_chat_template)
        elif not _valid_text(text) or (text_pair is not None and not _valid_text(text_pair)):
            raise ValueError(bad)
        else:
            self._inputs(text, text_pair)
        truncation_setting = None if trunc == "do_not_truncate" else (max_length, stride, trunc, tok.truncation_side)
        padding_setting = None
        if pad != "do_not_pad":
            length = max_length if pad == "max_length" else None
            padding_setting = (length, padding_side or tok.padding_side, tok.pad_token_id, 0, tok.pad_token,
                               pad_to_multiple_of)
        # Without overflowing parts wanted, right truncation stops encoding early (the core's
        # `with_overflowing(false)`): only the text the kept tokens come from is encoded.
        self.handle = tok._with_settings(truncation_setting, padding_setting, return_overflowing_tokens)
        self.add_special_tokens = add_special_tokens
        names = tok.model_input_names
        self.type_ids = "token_type_ids" in names if return_token_type_ids is None else return_token_type_ids
        self.attention = "attention_mask" in names if return_attention_mask is None else return_attention_mask
        self.overflowing, self.special, self.offsets, self.length = (
            return_overflowing_tokens, return_special_tokens_mask, return_offsets_mapping, return_length)
        self.tensors = return_tensors
        # Only ids and lengths wanted, nothing padded: the core may encode ids only (faster engine).
        self.ids_only = padding_setting is None and not (
            self.type_ids or self.special or self.offsets or self.overflowing)

    def _inputs(self, text, text_pair):
        self.batched = isinstance(text, (list, tuple))
        if self.batched:
            if isinstance(text_pair, str):
                raise TypeError("when tokenizing batches of text, `text_pair` must be a list or tuple with the same"
                                " length as `text`.")
            if text_pair is not None and len(text) != len(text_pair):
                raise ValueError(f"batch length of `text`: {len(text)} does not match batch length of `text_pair`:"
                                 f" {len(text_pair)}.")
            self.inputs = list(zip(text, text_pair)) if text_pair is not None else list(text)
        else:
            self.inputs = [(text, text_pair)] if text_pair else [text]

    def convert(self, batch) -> dict:
        """transformers' ``_convert_encoding`` over the batch, then its BatchEncoding shape."""
        keys = ["input_ids"] + [k for k, on in (("token_type_ids", self.type_ids), ("attention_mask", self.attention),
                                                ("special_tokens_mask", self.special),
                                                ("offset_mapping", self.offsets), ("length", self.length)) if on]
        out = {k: [] for k in keys}
        mapping = []
        for i, enc in enumerate(batch):
            encs = [enc] + list(enc.overflowing) if self.overflowing else [enc]
            for e in encs:
                ids = e.ids
                out["input_ids"].append(ids)
                if self.type_ids:
                    out["token_type_ids"].append(e.type_ids)
                if self.attention:
                    out["attention_mask"].append(e.attention_mask)
                if self.special:
                    out["special_tokens_mask"].append(e.special_tokens_mask)
                if self.offsets:
                    out["offset_mapping"].append(e.offsets)
                if self.length:
                    out["length"].append(len(ids))
                mapping.append(i)
        if self.overflowing:
            out["overflow_to_sample_mapping"] = mapping
        if self.tensors is not None:
            return {k: _tensor(v, self.tensors) for k, v in out.items()}
        if not self.batched and not self.overflowing:
            return {k: (v[0] if len(v) > 0 and isinstance(v[0], list) else v) for k, v in out.items()}
        return out


def _tensor(value, kind):
    """transformers' BatchEncoding.convert_to_tensors for numpy and torch."""
    import numpy as np

    if kind == "pt":
        try:
            import torch
        except ImportError:
            raise ImportError("Unable to convert output to PyTorch tensors format, PyTorch is not installed.") from None
        dtype = torch.int64 if _is_empty(value) else None
        try:
            return torch.tensor(value, dtype=dtype)
        except (ValueError, TypeError) as e:
            raise ValueError(_RAGGED) from e
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], (list, tuple, np.ndarray)):
        if len({len(v) for v in value}) > 1:
            arr = np.empty(len(value), dtype=object)
            for i, v in enumerate(value):
                arr[i] = np.asarray(v)
            return arr
    return np.asarray(value, dtype=np.int64 if _is_empty(value) else None)


def _is_empty(value) -> bool:
    return isinstance(value, (list, tuple)) and (len(value) == 0 or all(_is_empty(v) for v in value))


_RAGGED = ("Unable to create tensor, you should probably activate truncation and/or padding with 'padding=True' "
           "'truncation=True' to have batched tensors with the same length.")


def call(tok, *args, **kwargs) -> dict:
    """``Tokenizer.__call__``."""
    c = _Call(tok, *args, **kwargs)
    return c.convert(c.handle.encode_batch(c.inputs, add_special_tokens=c.add_special_tokens))


async def async_call(tok, *args, **kwargs) -> dict:
    """``AsyncTokenizer.__call__``: the encode runs on the core scheduler."""
    c = _Call(tok, *args, **kwargs)
    return c.convert(await c.handle.async_encode_batch(c.inputs, add_special_tokens=c.add_special_tokens))


# ---- apply_chat_template (transformers 5.24's) ---------------------------------------------
# transformers renders, then calls ``self(rendered, padding=..., truncation=..., max_length=...,
# add_special_tokens=False, return_tensors=..., **tokenizer_kwargs)``; so does this: the same
# ``_Call`` builds the settings handle and shapes the result, and the core renders and encodes
# on that handle in one call (``Tokenizer._chat``: argument rules, batch, assistant masks).

class _IdsOnly:
    """An ids-only encoding for ``_Call.convert`` (no padding, so every token is attended)."""

    __slots__ = ("ids",)

    def __init__(self, ids):
        self.ids = ids

    @property
    def attention_mask(self):
        return [1] * len(self.ids)


class _Chat:
    """One ``apply_chat_template``: the core's arguments, the ``_Call`` of its tokenization,
    then the shaping of the core's result."""

    def __init__(self, tok, conversation, tools=None, documents=None, chat_template=None,
                 add_generation_prompt=False, continue_final_message=False, tokenize=True,
                 sanitize_control_tokens=False, padding=False, truncation=False, max_length=None,
                 return_tensors=None, return_dict=True, return_assistant_tokens_mask=False, tokenizer_kwargs=None,
                 **kwargs):
        if sanitize_control_tokens:
            raise NotImplementedError("sanitize_control_tokens=True is not supported by yieldtok yet")
        self.tokenize = tokenize
        self.return_dict = tokenize and return_dict
        # The core's arguments (``tokenize`` / ``return_dict`` / the mask: its argument rules).
        self.args = [conversation, tools, documents, chat_template, add_generation_prompt, continue_final_message,
                     tokenize, return_assistant_tokens_mask, return_dict, kwargs]
        self.call, self.handle = None, tok
        if tokenize and not (return_assistant_tokens_mask and not return_dict):
            try:
                self.call = _Call(tok, _RENDERED, padding=padding, truncation=truncation, max_length=max_length,
                                  add_special_tokens=False, return_tensors=return_tensors, **(tokenizer_kwargs or {}))
            except Exception:
                # transformers renders before it tokenizes: a render error comes first
                tok._chat(*self.args[:6], False, False, False, kwargs, False)
                raise
            self.handle = self.call.handle
        ids_only = self.call is not None and self.call.ids_only and not return_assistant_tokens_mask
        self.args.append(ids_only)

    def finish(self, result):
        batched, texts, encodings, masks = result
        if not self.tokenize:
            return texts if batched else texts[0]
        c = self.call
        c.batched = batched
        if isinstance(encodings, list):  # ids only: lists of ids (else a BatchEncoding)
            encodings = [_IdsOnly(ids) for ids in encodings]
        out = c.convert(encodings)
        if masks is not None:
            out["assistant_masks"] = _tensor(masks, c.tensors) if c.tensors else (masks if batched else masks[0])
        return out if self.return_dict else out["input_ids"]


def apply_chat_template(tok, *args, **kwargs):
    """``Tokenizer.apply_chat_template``."""
    chat = _Chat(tok, *args, **kwargs)
    return chat.finish(chat.handle._chat(*chat.args))


async def async_apply_chat_template(tok, *args, **kwargs):
    """``Tokenizer.async_apply_chat_template``: rendered and encoded on the core scheduler."""
    chat = _Chat(tok, *args, **kwargs)
    return chat.finish(await chat.handle._async_chat(*chat.args))
