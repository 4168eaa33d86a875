"""transformers-style surface (``PreTrainedTokenizerFast``'s names): the values come from the
Rust ``Tokenizer`` (core reads ``tokenizer_config.json``); this module only forwards them."""

from __future__ import annotations

ATTRIBUTES = (
    "bos_token", "eos_token", "pad_token", "unk_token",
    "bos_token_id", "eos_token_id", "pad_token_id", "unk_token_id",
    "model_max_length", "padding_side", "truncation_side",
)


def add_attributes(cls: type) -> type:
    """Give a wrapper class (``AsyncTokenizer``) read-only properties reading ``self.sync``."""
    for name in ATTRIBUTES:
        def get(self, _name=name):
            return getattr(self.sync, _name)
        setattr(cls, name, property(get, doc=f"``Tokenizer.{name}`` (as transformers')."))
    return cls
