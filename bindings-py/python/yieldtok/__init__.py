"""yieldtok: exact, chunked, yield-cooperative tokenization.

``Tokenizer`` has the sync API (the GIL is released while it works) and Hugging Face
``tokenizers``' awaitable names (``async_encode`` …); ``AsyncTokenizer`` wraps it so that
``await tok.encode(text)`` reads naturally. Async work runs on the core's bounded scheduler,
never on Python threads, and cancelling the awaiting task cancels the remaining work.

Trajectories for RL trainers, with OpenPipe ART 0.5.18's results and names:
``Tokenizer.tokenize_trajectory_groups`` / ``tokenize_trajectory`` (``TokenizedResult`` with
zero-copy numpy views; ``TrajectoryError`` when some trajectories fail, carrying the rest) and
``packed_tensors_from_tokenized_results`` (a dict of numpy arrays).
"""

from __future__ import annotations

import collections.abc as _abc
import os as _os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from ._yieldtok import (
    AddedToken,
    BatchEncoding,
    DecodeStream,
    Encoding,
    TokenizedResult,
    Tokenizer,
    TokenizerError,
    TokenizerInternalError,
    TokenizerNotFoundError,
    TokenizerOSError,
    TokenizerValueError,
    TrajectoryError,
    TrajectoryFailure,
    __version__,
    async_packed_tensors_from_tokenized_results,
    packed_tensors_from_tokenized_results,
    scheduler_info,
    wait_for_engine_loads,
)

_abc.Sequence.register(BatchEncoding)

__all__ = [
    "AddedToken",
    "AsyncTokenizer",
    "BatchEncoding",
    "DecodeStream",
    "Encoding",
    "TokenizedResult",
    "Tokenizer",
    "TokenizerError",
    "TokenizerInternalError",
    "TokenizerNotFoundError",
    "TokenizerOSError",
    "TokenizerValueError",
    "TrajectoryError",
    "TrajectoryFailure",
    "async_packed_tensors_from_tokenized_results",
    "packed_tensors_from_tokenized_results",
    "scheduler_info",
    "wait_for_engine_loads",
    "__version__",
]

from ._transformers import add_attributes as _add_transformers_attributes  # noqa: E402

_PathLike = Union[str, "_os.PathLike[str]"]


@_add_transformers_attributes
class AsyncTokenizer:
    """A tokenizer whose ``encode``, ``encode_batch``, ``decode``, ``decode_batch``, ``count``
    and trajectory methods (``tokenize_trajectory_groups``, ``tokenize_trajectory``,
    ``packed_tensors_from_tokenized_results``) are coroutines. Same constructors as ``Tokenizer``; ``AsyncTokenizer(tok)`` wraps
    an existing ``Tokenizer`` (and ``.sync`` gives it back). Pickles like ``Tokenizer``."""

    __slots__ = ("sync",)

    sync: Tokenizer
    """The wrapped sync ``Tokenizer``."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        if not isinstance(tokenizer, Tokenizer):
            raise TypeError(f"AsyncTokenizer wraps a yieldtok.Tokenizer, not {type(tokenizer).__name__}")
        self.sync = tokenizer

    # -- constructors ------------------------------------------------------------------
    @classmethod
    def from_file(cls, path: _PathLike) -> "AsyncTokenizer":
        return cls(Tokenizer.from_file(path))

    @classmethod
    def from_str(cls, json: str) -> "AsyncTokenizer":
        return cls(Tokenizer.from_str(json))

    @classmethod
    def from_buffer(cls, buffer: bytes) -> "AsyncTokenizer":
        return cls(Tokenizer.from_buffer(buffer))

    @classmethod
    def from_dir(cls, path: _PathLike) -> "AsyncTokenizer":
        return cls(Tokenizer.from_dir(path))

    @classmethod
    def from_pretrained(
        cls, repo_id: str, revision: Optional[str] = None, cache_dir: Optional[_PathLike] = None
    ) -> "AsyncTokenizer":
        return cls(Tokenizer.from_pretrained(repo_id, revision, cache_dir))

    # -- coroutines --------------------------------------------------------------------
    async def encode(
        self, text: Any, add_special_tokens: bool = True, *, pair: Any = None, is_pretokenized: bool = False
    ) -> Encoding:
        """Encode one text (or, with ``pair``, a pair of texts; with ``is_pretokenized``, lists of
        words, as ``Tokenizer.encode``) on the core scheduler, with the tokenizer's truncation
        and padding; the event loop keeps running meanwhile."""
        return await self.sync.async_encode(text, pair, is_pretokenized, add_special_tokens)

    async def encode_batch(
        self, texts: Sequence[Any], add_special_tokens: bool = True, *, is_pretokenized: bool = False
    ) -> BatchEncoding:
        """Encode many texts and ``(str, str)`` pairs (one scheduler job each); with
        ``is_pretokenized``, lists of words and pairs of them, as ``Tokenizer.encode_batch``."""
        return await self.sync.async_encode_batch(texts, is_pretokenized, add_special_tokens)

    async def decode(self, ids: Union[Iterable[int], int], skip_special_tokens: bool = True) -> str:
        """Decode ids to text; unknown ids raise ``TokenizerValueError``."""
        return await self.sync.async_decode(ids, skip_special_tokens)

    async def decode_batch(self, sequences: Sequence[Iterable[int]], skip_special_tokens: bool = True) -> List[str]:
        """Decode many id sequences."""
        return await self.sync.async_decode_batch(sequences, skip_special_tokens)

    async def count(self, text: str, add_special_tokens: bool = True) -> int:
        """Number of tokens of ``text`` before truncation and padding (ids only)."""
        return await self.sync.async_count(text, add_special_tokens)

    # -- trajectories (ART 0.5.18's names) ------------------------------------------------
    async def tokenize_trajectory_groups(
        self,
        groups: Any,
        allow_training_without_logprobs: bool = False,
        scale_rewards: bool = True,
        shuffle_group_trajectories: bool = True,
        drop_zero_advantage_trajectories: bool = True,
        chat_template_kwargs: Optional[Dict[str, Any]] = None,
        seed: Optional[int] = None,
        **kwargs: Any,
    ) -> List[TokenizedResult]:
        """``Tokenizer.tokenize_trajectory_groups`` on the core scheduler (Python objects are
        serialised on the calling thread first; JSON bytes and paths are not touched there)."""
        return await self.sync.async_tokenize_trajectory_groups(
            groups,
            allow_training_without_logprobs,
            scale_rewards,
            shuffle_group_trajectories,
            drop_zero_advantage_trajectories,
            chat_template_kwargs,
            seed,
            **kwargs,
        )

    async def tokenize_trajectory(
        self,
        history: Any,
        advantage: float = 0.0,
        allow_training_without_logprobs: bool = False,
        chat_template_kwargs: Optional[Dict[str, Any]] = None,
        **kwargs: Any,
    ) -> Optional[TokenizedResult]:
        """``Tokenizer.tokenize_trajectory`` on the core scheduler."""
        return await self.sync.async_tokenize_trajectory(
            history, advantage, allow_training_without_logprobs, chat_template_kwargs, **kwargs
        )

    async def packed_tensors_from_tokenized_results(
        self,
        results: Sequence[TokenizedResult],
        seq_len: int,
        pad_token_id: int = -100,
        truncate_long_results: bool = True,
        advantage_balance: float = 0.0,
        pack_results: bool = True,
        seed: Optional[int] = None,
        **kwargs: Any,
    ) -> Dict[str, Any]:
        """``yieldtok.packed_tensors_from_tokenized_results`` on the core scheduler."""
        return await async_packed_tensors_from_tokenized_results(
            results, seq_len, pad_token_id, truncate_long_results, advantage_balance, pack_results, seed, **kwargs
        )

    # -- cheap sync lookups ---------------------------------------------------------------
    async def apply_chat_template(self, conversation: Any, *args: Any, **kwargs: Any) -> Any:
        """Awaitable ``Tokenizer.apply_chat_template``, rendered and tokenized on the core
        scheduler (not on a Python thread)."""
        return await self.sync.async_apply_chat_template(conversation, *args, **kwargs)

    def token_to_id(self, token: str) -> Optional[int]:
        return self.sync.token_to_id(token)

    def id_to_token(self, id: int) -> Optional[str]:
        return self.sync.id_to_token(id)

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        return self.sync.get_vocab_size(with_added_tokens)

    def get_vocab(self, with_added_tokens: bool = True) -> Dict[str, int]:
        return self.sync.get_vocab(with_added_tokens)

    def get_added_tokens_decoder(self) -> Dict[int, AddedToken]:
        return self.sync.get_added_tokens_decoder()

    def add_tokens(self, tokens: List[Union[str, AddedToken]]) -> int:
        """``Tokenizer.add_tokens`` (changes the wrapped tokenizer)."""
        return self.sync.add_tokens(tokens)

    def add_special_tokens(self, tokens: List[Union[str, AddedToken]]) -> int:
        """``Tokenizer.add_special_tokens`` (changes the wrapped tokenizer)."""
        return self.sync.add_special_tokens(tokens)

    @property
    def encode_special_tokens(self) -> bool:
        """``Tokenizer.encode_special_tokens`` of the wrapped tokenizer."""
        return self.sync.encode_special_tokens

    @encode_special_tokens.setter
    def encode_special_tokens(self, value: bool) -> None:
        self.sync.encode_special_tokens = value

    async def __call__(self, text: Any = None, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        """Awaitable ``Tokenizer.__call__`` (transformers' ``tokenizer(text, ...)``): same
        arguments and result; the encode runs on the core scheduler."""
        from ._transformers import async_call

        return await async_call(self.sync, text, *args, **kwargs)

    def __reduce__(self) -> Any:
        return (AsyncTokenizer, (self.sync,))

    def __repr__(self) -> str:
        return f"Async{self.sync!r}"
