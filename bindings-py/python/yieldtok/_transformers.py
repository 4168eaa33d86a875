"""transformers-style surface (``PreTrainedTokenizerFast``'s names): the values come from the
Rust ``Tokenizer`` (core reads ``tokenizer_config.json``); this module only forwards them."""

from __future__ import annotations

ATTRIBUTES = (
    "bos_token", "eos_token", "pad_token", "unk_token", "sep_token", "cls_token", "mask_token",
    "bos_token_id", "eos_token_id", "pad_token_id", "unk_token_id", "sep_token_id", "cls_token_id", "mask_token_id",
    "all_special_tokens", "all_special_ids", "extra_special_tokens", "extra_special_tokens_ids",
    "additional_special_tokens", "vocab_size", "chat_template",
    "model_max_length", "padding_side", "truncation_side",
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
