"""Native part of yieldtok (PyO3). Import from ``yieldtok``, not from here."""

from __future__ import annotations

import os
from typing import Any, Awaitable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union, final, overload

import numpy as np
import numpy.typing as npt

__version__: str
__all__ = [
    "Tokenizer",
    "Encoding",
    "BatchEncoding",
    "_ArrayView",
    "_tokenizer_from_json",
    "scheduler_info",
    "TokenizerError",
    "TokenizerValueError",
    "TokenizerOSError",
    "TokenizerNotFoundError",
    "TokenizerInternalError",
    "__version__",
]

_PathLike = Union[str, "os.PathLike[str]"]

class TokenizerError(Exception):
    """Base class of every error yieldtok raises."""

class TokenizerValueError(TokenizerError, ValueError):
    """Bad input: a malformed tokenizer definition, an id the vocabulary lacks, a lone
    surrogate in a text, an unsupported argument (pairs, pre-tokenized input)."""

class TokenizerOSError(TokenizerError, OSError):
    """A file could not be read."""

class TokenizerNotFoundError(TokenizerOSError, FileNotFoundError):
    """A file, model folder or Hugging Face cache entry does not exist (yieldtok never downloads)."""

class TokenizerInternalError(TokenizerError, RuntimeError):
    """A bug: a panic inside the tokenization pipeline, caught before it reached the interpreter."""

def scheduler_info() -> Dict[str, int]:
    """The core scheduler's worker ``threads`` (``YIELDTOK_THREADS``, default one per core) and
    the number of ``queued`` jobs (for tests and metrics)."""

@final
class Encoding:
    """The result of encoding one text. Nothing becomes per-token Python objects until asked
    for: ``ids`` builds a list, ``ids_array`` is a zero-copy numpy view."""

    @property
    def ids(self) -> List[int]:
        """Token ids (a new list on each access; prefer ``ids_array`` for long texts)."""
    @property
    def type_ids(self) -> List[int]:
        """Segment ids (all 0: pairs are not supported)."""
    @property
    def attention_mask(self) -> List[int]:
        """1 for every token."""
    @property
    def special_tokens_mask(self) -> List[int]:
        """1 for tokens added by the post-processor (e.g. BOS), like ``tokenizers``."""
    @property
    def offsets(self) -> List[Tuple[int, int]]:
        """``(start, end)`` character offsets into ``text``, like Hugging Face's Python
        ``tokenizers``; ``(0, 0)`` for tokens added by the post-processor. Computed on first
        access (GIL released for long texts) and cached."""
    @property
    def byte_offsets(self) -> List[Tuple[int, int]]:
        """The same offsets in UTF-8 bytes (what the core and the Rust ``tokenizers`` report)."""
    @property
    def tokens(self) -> List[str]:
        """The vocabulary string of each token."""
    @property
    def text(self) -> str:
        """The text that was encoded."""
    @property
    def ids_array(self) -> npt.NDArray[np.uint32]:
        """Zero-copy, read-only numpy view of the ids (``uint32``, shape ``(n,)``). The array
        keeps the underlying Rust buffer alive. Needs numpy (``ImportError`` otherwise)."""
    @property
    def attention_mask_array(self) -> npt.NDArray[np.uint32]:
        """Zero-copy, read-only numpy view of the attention mask (``uint32``, shape ``(n,)``)."""
    @property
    def offsets_array(self) -> npt.NDArray[np.int64]:
        """Read-only numpy view of the character offsets (``int64``, shape ``(n, 2)``)."""
    def __len__(self) -> int:
        """Number of tokens."""

@final
class BatchEncoding(Sequence[Encoding]):
    """The results of a batch: a read-only sequence of ``Encoding`` (index, slice, iterate)
    plus padded 2-D numpy views. Returned where ``tokenizers`` returns ``list[Encoding]``."""

    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, key: int, /) -> Encoding: ...
    @overload
    def __getitem__(self, key: slice, /) -> List[Encoding]: ...
    def __iter__(self) -> Iterator[Encoding]: ...
    @property
    def lengths(self) -> List[int]:
        """Number of tokens of each encoding."""
    @property
    def ids(self) -> List[List[int]]:
        """The ids of each encoding, as lists."""
    @property
    def pad_id(self) -> int:
        """The id ``ids_array`` pads with: the tokenizer's padding id if it declares one, else 0."""
    @property
    def ids_array(self) -> npt.NDArray[np.uint32]:
        """Ids right-padded with ``pad_id`` to the longest encoding: read-only numpy array
        (``uint32``, shape ``(len(batch), max_len)``), built once (GIL released) and shared."""
    @property
    def attention_mask_array(self) -> npt.NDArray[np.uint32]:
        """Mask matching ``ids_array``: 1 for tokens, 0 for padding."""

@final
class Tokenizer:
    """A tokenizer: thread-safe, share one instance across threads and tasks; picklable (by its
    ``tokenizer.json``). Sync methods release the GIL while they work; long texts are encoded
    in exact parallel pieces (same ids and offsets as a whole-text encode).

    The ``async_*`` methods return awaitables (``asyncio.Future``, like ``tokenizers``; wrap
    with ``asyncio.ensure_future`` to get a task) that run on the core's bounded scheduler and
    must be called with a running event loop (asyncio or uvloop). Cancelling the awaiting task
    cancels the remaining work within about a millisecond."""

    @staticmethod
    def from_file(path: _PathLike) -> Tokenizer:
        """Load a ``tokenizer.json`` file."""
    @staticmethod
    def from_str(json: str) -> Tokenizer:
        """Load from the text of a ``tokenizer.json``."""
    @staticmethod
    def from_buffer(buffer: bytes) -> Tokenizer:
        """Load from the bytes of a ``tokenizer.json``."""
    @staticmethod
    def from_dir(path: _PathLike) -> Tokenizer:
        """Load a model folder: ``tokenizer.json`` plus, when present, ``tokenizer_config.json``
        and ``chat_template.jinja``."""
    @staticmethod
    def from_pretrained(repo_id: str, revision: Optional[str] = None, cache_dir: Optional[_PathLike] = None) -> Tokenizer:
        """Load ``repo_id`` (e.g. ``"Qwen/Qwen3-0.6B"``) from the local Hugging Face cache
        (``cache_dir``, else ``$HF_HUB_CACHE``, ``$HF_HOME/hub``, ``~/.cache/huggingface/hub``)
        at ``revision`` (branch, tag or commit; default ``main``). Never downloads: raises
        ``TokenizerNotFoundError`` when the snapshot is not there."""
    def to_str(self, pretty: bool = False) -> str:
        """The ``tokenizer.json`` text of this tokenizer."""
    @property
    def origin(self) -> Optional[str]:
        """Where the tokenizer was loaded from, if known."""
    @property
    def chunking(self) -> str:
        """How long texts are cut into exact pieces for this tokenizer (or why they are not)."""
    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        """Size of the vocabulary, with or without added tokens."""
    def token_to_id(self, token: str) -> Optional[int]:
        """The id of ``token``, or None."""
    def id_to_token(self, id: int) -> Optional[str]:
        """The token string of ``id``, or None (also for negative or out-of-range ids)."""

    # -- sync -------------------------------------------------------------------------------
    def encode(self, text: str, add_special_tokens: bool = True) -> Encoding:
        """Encode one text; same ids, offsets and masks as ``tokenizers``' ``encode``."""
    def count(self, text: str, add_special_tokens: bool = True) -> int:
        """Number of tokens ``encode(text, add_special_tokens)`` gives (ids only; faster)."""
    def encode_batch(self, texts: Sequence[str], add_special_tokens: bool = True) -> BatchEncoding:
        """Encode many texts in parallel on the core's pool."""
    def encode_batch_fast(self, texts: Sequence[str], add_special_tokens: bool = True) -> BatchEncoding:
        """Same as ``encode_batch`` (offsets cost little here); kept for ``tokenizers`` compatibility."""
    @property
    def engine(self) -> str:
        """The engine serving ids-only work now: ``"fastokens"`` once the fast engine has loaded
        and passed its check against the reference, else ``"tokenizers"``."""
        ...
    def wait_for_engine(self) -> str:
        """Wait until the fast engine has loaded (or been ruled out); returns :attr:`engine`."""
        ...
    def apply_chat_template(
        self,
        conversation: Sequence[Mapping[str, Any]],
        tools: Optional[Sequence[Mapping[str, Any]]] = None,
        documents: Optional[Sequence[Mapping[str, Any]]] = None,
        chat_template: Optional[str] = None,
        add_generation_prompt: bool = False,
        continue_final_message: Union[bool, str, None] = None,
        tokenize: bool = True,
        return_assistant_tokens_mask: bool = False,
        return_dict: bool = False,
        **kwargs: Any,
    ) -> Any:
        """Render a conversation with the tokenizer's chat template, byte-identical to
        transformers' ``apply_chat_template`` (same signature). ``chat_template`` is a template
        name or source; extra keyword arguments become template variables. Returns the text
        (``tokenize=False``), the ids, or with ``return_dict=True`` a dict with ``input_ids``,
        ``attention_mask`` and (when asked) ``assistant_masks``. Raises ``TokenizerError`` when
        the template raises or fails. GIL released."""
        ...
    def decode(self, ids: Iterable[int], skip_special_tokens: bool = True) -> str:
        """Decode ids to text. Ids the vocabulary lacks raise ``TokenizerValueError`` (``tokenizers``
        silently drops them)."""
    def decode_batch(self, sequences: Sequence[Iterable[int]], skip_special_tokens: bool = True) -> List[str]:
        """Decode many id sequences in parallel."""

    # -- awaitables (Hugging Face names) -------------------------------------------------------
    def async_encode(
        self, sequence: str, pair: None = None, is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> Awaitable[Encoding]:
        """Awaitable ``encode``, run in pieces on the core scheduler so the event loop never
        waits. ``pair`` and ``is_pretokenized=True`` are not supported (``TokenizerValueError``)."""
    def async_encode_batch(
        self, input: Sequence[str], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> Awaitable[BatchEncoding]:
        """Awaitable ``encode_batch``: one job per text, all queued on the scheduler at once."""
    def async_encode_batch_fast(
        self, input: Sequence[str], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> Awaitable[BatchEncoding]:
        """Same as ``async_encode_batch``; kept for ``tokenizers`` compatibility."""
    def async_count(self, text: str, add_special_tokens: bool = True) -> Awaitable[int]:
        """Awaitable ``count``."""
    def async_decode(self, ids: Iterable[int], skip_special_tokens: bool = True) -> Awaitable[str]:
        """Awaitable ``decode``."""
    def async_decode_batch(self, sequences: Sequence[Iterable[int]], skip_special_tokens: bool = True) -> Awaitable[List[str]]:
        """Awaitable ``decode_batch``."""
    def __reduce__(self) -> Tuple[Any, Tuple[str]]: ...

@final
class _ArrayView:
    """Read-only description of Rust-owned memory for ``numpy.asarray``."""

    @property
    def __array_interface__(self) -> Dict[str, Any]: ...

def _tokenizer_from_json(json: str) -> Tokenizer:
    """Unpickling entry point."""
