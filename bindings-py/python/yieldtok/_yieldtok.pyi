"""Native part of yieldtok (PyO3). Import from ``yieldtok``, not from here."""

from __future__ import annotations

import os
from typing import Any, Awaitable, Dict, Iterable, Iterator, List, Literal, Mapping, Optional, Sequence, Tuple, Union, final, overload

import numpy as np
import numpy.typing as npt

__version__: str
__all__ = [
    "Tokenizer",
    "Encoding",
    "BatchEncoding",
    "DecodeStream",
    "TokenizedResult",
    "TrajectoryFailure",
    "TrajectoryError",
    "packed_tensors_from_tokenized_results",
    "async_packed_tensors_from_tokenized_results",
    "_ArrayView",
    "_tokenizer_from_json",
    "_tokenized_result_from_bytes",
    "scheduler_info",
    "wait_for_engine_loads",
    "TokenizerError",
    "TokenizerValueError",
    "TokenizerOSError",
    "TokenizerNotFoundError",
    "TokenizerInternalError",
    "__version__",
]

_PathLike = Union[str, "os.PathLike[str]"]
_Words = Union[List[str], Tuple[str, ...], "npt.NDArray[np.object_]"]
"""A pre-tokenized sequence (``tokenizers``' ``PreTokenizedInputSequence``): its words, as a
``list`` or ``tuple`` of ``str`` or a 1-D numpy array of ``str``."""
_EncodeInput = Union[str, Tuple[str, str], List[str], _Words, Tuple[_Words, _Words], List[_Words]]
"""A batch item: a text or a pair of texts; with ``is_pretokenized=True`` a pre-tokenized
sequence or a pair of them (``(words, words)`` or ``[words, words]``)."""
_TrajectoryInput = Any
"""Trajectory input: Python data in ART's shapes (lists, dicts), ART's pydantic objects
(duck-typed: ``TrajectoryGroup``, ``Trajectory``, ``History``, openai ``Choice``), JSON text as
``bytes``/``bytearray`` or a ``str`` starting with ``[`` or ``{``, or a path (``os.PathLike`` or
any other ``str``) to a JSON file or, when it ends in ``.jsonl``/``.ndjson``, a JSON Lines file
with one group per line."""

class TokenizerError(Exception):
    """Base class of every error yieldtok raises."""

class TokenizerValueError(TokenizerError, ValueError):
    """Bad input: a malformed tokenizer definition, an id the vocabulary lacks, a lone
    surrogate in a text, an unsupported argument."""

class TokenizerOSError(TokenizerError, OSError):
    """A file could not be read."""

class TokenizerNotFoundError(TokenizerOSError, FileNotFoundError):
    """A file, model folder or Hugging Face cache entry does not exist (yieldtok never downloads)."""

class TokenizerInternalError(TokenizerError, RuntimeError):
    """A bug: a panic inside the tokenization pipeline, caught before it reached the interpreter."""

class TrajectoryError(TokenizerValueError):
    """Some trajectories could not be tokenized (or the input is not trajectory groups at all).

    Raised instead of returning when any trajectory failed, but nothing else is lost:
    ``results`` holds every other result, in the order the call would have returned them (a
    failed trajectory yields no results; its reward still counts in its group's statistics,
    except when it failed validation, as a failed rollout in ART's ``TrajectoryGroup.exceptions``
    would not be in the group), and ``errors`` one ``TrajectoryFailure`` per failure, ordered by
    group, trajectory, history. ``str(e)`` names the first failure. Also a ``ValueError`` (what
    ART raises for its own errors; the type ART would raise for each failure is in
    ``TrajectoryFailure.art_exception``)."""

    results: List[TokenizedResult]
    """The results of everything that did not fail."""
    errors: List[TrajectoryFailure]
    """One record per failed trajectory (or history, or the whole input)."""
    def __init__(self, message: str, results: Iterable[TokenizedResult] = ..., errors: Iterable[TrajectoryFailure] = ...) -> None: ...

@final
class TrajectoryFailure:
    """One failed trajectory: where (indices are 0-based) and what."""

    @property
    def group(self) -> Optional[int]:
        """Index of the group in the input; ``None`` when the whole input is at fault (not JSON,
        not a list of groups)."""
    @property
    def trajectory(self) -> Optional[int]:
        """Index of the trajectory in its group."""
    @property
    def history(self) -> Optional[int]:
        """0: the trajectory's own ``messages_and_choices``; ``k > 0``: ``additional_histories[k - 1]``."""
    @property
    def item(self) -> Optional[int]:
        """Index in that history's ``messages_and_choices``, when one item is at fault."""
    @property
    def kind(self) -> str:
        """What kind of failure, a stable name: ``invalid_input``, ``missing_role``,
        ``chat_template``, ``sentinel_not_found``, ``dict_tool_calls``,
        ``dict_content_not_string``, ``invalid_bytes``, ``unrepresentable_token_id``,
        ``token_id_out_of_vocabulary``, ``token_not_in_vocabulary``, ``sentinel_collision``,
        ``extra_logprobs``, ``index``, ``tokenize``, ``setup``, ``invalid_argument``."""
    @property
    def message(self) -> str:
        """What went wrong (without the location)."""
    @property
    def art_exception(self) -> Optional[str]:
        """The exception type ART 0.5.18 raises in the same situation (``"ValueError"``,
        ``"KeyError"``, ``"AssertionError"``, ``"ValidationError"``, ``"TemplateError"``,
        ``"IndexError"``), or ``None`` where ART has no error (e.g. it splices an
        out-of-vocabulary id silently)."""
    @property
    def location(self) -> str:
        """Where, as text: ``"group 0, trajectory 2, messages_and_choices, item 3"``."""
    def __str__(self) -> str:
        """``"<location>: <message>"``."""

@final
class TokenizedResult:
    """One tokenized history: ART 0.5.18's ``TokenizedResult``, field for field. Per-token fields
    are zero-copy, read-only numpy views of Rust-owned memory (each access returns a new view of
    the same memory; the views keep it alive), or lists when numpy is not installed."""

    @property
    def token_ids(self) -> npt.NDArray[np.uint32]:
        """Token ids: the template's rendering with each trained message's sampled ids spliced in."""
    @property
    def assistant_mask(self) -> npt.NDArray[np.uint8]:
        """1 where the token is trained (sampled, or from a plain-dict assistant message with
        ``allow_training_without_logprobs``), else 0."""
    @property
    def logprobs(self) -> npt.NDArray[np.float64]:
        """The sampled tokens' logprobs, NaN elsewhere."""
    @property
    def input_pos(self) -> npt.NDArray[np.uint32]:
        """``0..len`` (ART's ``input_pos``)."""
    @property
    def choice_offsets(self) -> npt.NDArray[np.uint64]:
        """Start of each trained Choice's tokens in ``token_ids``."""
    @property
    def extra_logprobs(self) -> Dict[str, npt.NDArray[np.float64]]:
        """Per name (first-seen order), a value per token from the entries' ``extra_logprobs``,
        NaN elsewhere."""
    @property
    def advantage(self) -> float:
        """GRPO advantage of the trajectory."""
    @property
    def weight(self) -> float:
        """``1 / (trained tokens of the trajectory's results + 1e-6)`` (0.0 from ``tokenize_trajectory``)."""
    @property
    def prompt_id(self) -> int:
        """Random id shared by the results of a group (0 from ``tokenize_trajectory``)."""
    @property
    def prompt_length(self) -> int:
        """Length of the group's shared prompt (ART's rule; 0 from ``tokenize_trajectory``)."""
    @property
    def chat(self) -> str:
        """The rendered chat (``apply_chat_template(..., tokenize=False)``), final message included."""
    @property
    def group_index(self) -> int:
        """Provenance: index of the group in the input."""
    @property
    def trajectory_index(self) -> int:
        """Provenance: index of the trajectory in its group."""
    @property
    def history_index(self) -> int:
        """Provenance: 0 = the trajectory's ``messages_and_choices``, k = ``additional_histories[k-1]``."""
    @property
    def trainable_tokens(self) -> int:
        """``sum(assistant_mask)``."""
    def without_prompt(self) -> TokenizedResult:
        """ART's ``without_prompt()``: every per-token field from ``prompt_length`` on,
        ``prompt_length`` 0, ``choice_offsets`` unchanged (a copy)."""
    def __len__(self) -> int:
        """Number of tokens."""
    def __reduce__(self) -> Tuple[Any, Tuple[bytes]]:
        """Pickles as its byte form (deterministic, bit-exact: NaN logprobs included), so results
        cross Ray's object store, ``multiprocessing`` and ``datasets``' cache."""

def packed_tensors_from_tokenized_results(
    results: Sequence[Any],
    seq_len: int,
    pad_token_id: int = -100,
    truncate_long_results: bool = True,
    advantage_balance: float = 0.0,
    pack_results: bool = True,
    seed: Optional[int] = None,
    *,
    verbosity: int = 1,
) -> Dict[str, Any]:
    """ART 0.5.18's ``packed_tensors_from_tokenized_results``, same semantics and argument names
    (``verbosity`` is accepted and ignored), with the GIL released.

    ``results`` are ``TokenizedResult``s (shared, not copied) or objects with ART's fields
    (``token_ids``, ``assistant_mask``, ``logprobs``, ``input_pos``, ``advantage``, ``weight``,
    ``prompt_id``, ``prompt_length``). ``seed`` seeds the group-id draws and the row shuffle as
    ``random.seed(seed)`` before ART's call would (``None``: fresh entropy).

    Returns ART's dict: ``tokens``, ``group_ids``, ``parent_ids``, ``input_pos`` (int64),
    ``assistant_mask`` (bool), ``logprobs``, ``advantages``, ``weights`` (float32), each of shape
    ``(n_rows, seq_len)`` — zero-copy read-only numpy arrays over one Rust buffer (nested lists
    without numpy; ``torch.from_numpy(a.copy())`` or ``torch.tensor(a)`` for torch) — plus
    ``pixel_values`` and ``image_grid_thw`` (a ``None`` per row: no images). ``seq_len <= 0``
    raises ``TokenizerValueError``."""

def async_packed_tensors_from_tokenized_results(
    results: Sequence[Any],
    seq_len: int,
    pad_token_id: int = -100,
    truncate_long_results: bool = True,
    advantage_balance: float = 0.0,
    pack_results: bool = True,
    seed: Optional[int] = None,
    *,
    verbosity: int = 1,
) -> Awaitable[Dict[str, Any]]:
    """Awaitable ``packed_tensors_from_tokenized_results``, run on the core scheduler."""

def scheduler_info() -> Dict[str, int]:
    """The core scheduler's worker ``threads`` (``YIELDTOK_THREADS``, default one per core) and
    the number of ``queued`` jobs (for tests and metrics)."""

def wait_for_engine_loads() -> None:
    """Block (without the GIL) until no fast-engine build is queued or running in this process.
    Builds start in the background on a tokenizer's first ids-only use; tests and benchmarks
    that measure CPU call this first."""

@final
class Encoding:
    """The result of encoding one text or a pair of texts. Nothing becomes per-token Python objects until asked
    for: ``ids`` builds a list, ``ids_array`` is a zero-copy numpy view."""

    @property
    def ids(self) -> List[int]:
        """Token ids (a new list on each access; prefer ``ids_array`` for long texts)."""
    @property
    def type_ids(self) -> List[int]:
        """Segment ids, as the post-processor's (pair) template sets them; ``pad_type_id`` for
        padding."""
    @property
    def attention_mask(self) -> List[int]:
        """1 for every token, 0 for padding."""
    @property
    def special_tokens_mask(self) -> List[int]:
        """1 for tokens added by the post-processor (e.g. BOS) and for padding, like ``tokenizers``."""
    @property
    def offsets(self) -> List[Tuple[int, int]]:
        """``(start, end)`` character offsets into ``text`` (for tokens of a pair's second text:
        into that text), like Hugging Face's Python ``tokenizers``; ``(0, 0)`` for tokens added
        by the post-processor and padding. Computed on first access (GIL released for long
        texts) and cached."""
    @property
    def overflowing(self) -> List["Encoding"]:
        """What truncation cut off, as ``tokenizers``: each part post-processed and padded like
        this one; with a stride, each repeats the previous part's last ``stride`` tokens.

        ``Tokenizer.encode`` of one text under right truncation stops early (it encodes only the
        text the kept tokens come from); then the first read of this attribute encodes the
        whole text, GIL released, and keeps the parts."""
    @property
    def sequence_ids(self) -> List[Optional[int]]:
        """The sequence of each token: 0 (the text, or a pair's first text), 1 (a pair's second
        text), ``None`` for special tokens added by the post-processor and padding."""
    @property
    def n_sequences(self) -> int:
        """1 for a text, 2 for a pair."""
    def token_to_sequence(self, token_index: int) -> Optional[int]:
        """The sequence token ``token_index`` belongs to, as ``tokenizers``."""
    @property
    def word_ids(self) -> List[Optional[int]]:
        """The word (pre-tokenizer split; an added token in the text is a word) each token came
        from, counted per sequence from 0 over the whole text, also when a long text was encoded
        in pieces; ``None`` for special tokens added by the post-processor and for padding."""
    @property
    def words(self) -> List[Optional[int]]:
        """``word_ids``, deprecated as in ``tokenizers`` (emits its ``DeprecationWarning``)."""
    def word_to_tokens(self, word_index: int, sequence_index: int = 0) -> Optional[Tuple[int, int]]:
        """The tokens ``(start, end)`` of word ``word_index`` of sequence ``sequence_index``
        (``None`` when no token has that word), as ``tokenizers``."""
    def word_to_chars(self, word_index: int, sequence_index: int = 0) -> Optional[Tuple[int, int]]:
        """The character span ``(start, end)`` of word ``word_index`` of sequence
        ``sequence_index``: from its first token's start to its last token's end."""
    def token_to_chars(self, token_index: int) -> Optional[Tuple[int, int]]:
        """The character offsets of token ``token_index`` (in its own sequence's text)."""
    def token_to_word(self, token_index: int) -> Optional[int]:
        """The word of token ``token_index`` within its sequence (``None`` for special tokens
        added by the post-processor, padding, or an index out of range)."""
    def char_to_token(self, char_pos: int, sequence_index: int = 0) -> Optional[int]:
        """The first token of sequence ``sequence_index`` whose character span holds
        ``char_pos``."""
    def char_to_word(self, char_pos: int, sequence_index: int = 0) -> Optional[int]:
        """The word of that token (``char_to_token``, then ``token_to_word``)."""
    @property
    def byte_offsets(self) -> List[Tuple[int, int]]:
        """The same offsets in UTF-8 bytes (what the core and the Rust ``tokenizers`` report); for a
        pair's encoding the char offsets (converted per text before post-processing)."""
    @property
    def tokens(self) -> List[str]:
        """The string of each token, as ``tokenizers``: the vocabulary's; ``pad_token`` for
        padding; the text matched for an ``lstrip``/``rstrip``/``normalized`` added token and
        the normalized text of a Unigram unknown piece."""
    @property
    def text(self) -> str:
        """The text that was encoded (a pair's first text; for pre-tokenized input its words
        joined by single spaces, while offsets are into each word, as ``tokenizers``')."""
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
class DecodeStream:
    """Incremental decoding of ids as they are generated, yielding text as soon as it is
    complete: ``tokenizers.decoders.DecodeStream`` with the same constructor, state, results and
    errors (a step whose window no longer decodes to text starting with what was returned
    raises ``TokenizerValueError`` "Invalid prefix …", as ``tokenizers`` raises its exception).

    ``ids`` seeds the stream's window; as in ``tokenizers``, the first step then returns the text
    of the seed and the new ids together. A stream is not tied to one tokenizer: each step names
    the tokenizer to use.
    """

    def __init__(self, ids: Optional[Sequence[int]] = None, skip_special_tokens: bool = False) -> None: ...
    def step(self, tokenizer: Tokenizer, id: Union[int, Sequence[int]]) -> Optional[str]:
        """Add the next id (or a list of ids); the text they complete, or ``None`` when more
        ids are needed (e.g. a character whose bytes are split across tokens)."""
    @staticmethod
    def step_many(
        tokenizer: Tokenizer, streams: Sequence[DecodeStream], ids: Sequence[Union[int, Sequence[int]]]
    ) -> List[Optional[str]]:
        """Step many streams in one call: ``streams[i]`` gets ``ids[i]``; returns what each
        ``step`` would. The GIL is released and large batches run on the pool — one call per
        generated token of every request instead of one per request. Raises ``ValueError`` for
        lengths that differ or a stream listed twice, and the first stream's error if a step
        fails (every stream was stepped)."""
    def __copy__(self) -> DecodeStream: ...
    def __deepcopy__(self, memo: Any) -> DecodeStream: ...

@final
class AddedToken:
    """An added token of a tokenizer's vocabulary (``Tokenizer.get_added_tokens_decoder``, and
    what ``Tokenizer.add_tokens`` / ``add_special_tokens`` take), with the fields, defaults
    (``normalized`` is ``not special`` unless given), ``repr``, ``str`` and equality of
    ``tokenizers.AddedToken``. ``add_special_tokens`` sets ``special`` on a token passed to
    it, as ``tokenizers`` does."""

    def __init__(
        self,
        content: str = "",
        single_word: bool = False,
        lstrip: bool = False,
        rstrip: bool = False,
        normalized: Optional[bool] = None,
        special: bool = False,
    ) -> None: ...
    @property
    def content(self) -> str: ...
    @property
    def single_word(self) -> bool: ...
    @property
    def lstrip(self) -> bool: ...
    @property
    def rstrip(self) -> bool: ...
    @property
    def normalized(self) -> bool: ...
    @property
    def special(self) -> bool: ...

@final
class Tokenizer:
    """A tokenizer: thread-safe, share one instance across threads and tasks; picklable (by its
    ``tokenizer.json``). Sync methods release the GIL while they work; long texts are encoded
    in exact parallel pieces (same ids and offsets as a whole-text encode). Sync calls that wait
    for the core's pool (texts of 64 KB or more, batches, trajectories) are interruptible:
    Ctrl-C raises ``KeyboardInterrupt`` at once and stops the work. Fork-safe: after
    ``os.fork()`` every method works in the child (which starts its own pool on first use).

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
        """The ``tokenizer.json`` text of this tokenizer (same text as ``tokenizers``' ``to_str``)."""
    def save(self, path: _PathLike, pretty: bool = True) -> None:
        """Write the ``tokenizer.json`` text to ``path`` (same bytes as ``tokenizers``' ``save``);
        raises ``TokenizerOSError`` when the file cannot be written."""
    @property
    def bos_token(self) -> Optional[str]:
        """``bos_token`` of ``tokenizer_config.json`` (None when absent), as transformers'."""
    @property
    def bos_token_id(self) -> Optional[int]:
        """The id of :attr:`bos_token` (None when there is none)."""
    @property
    def eos_token(self) -> Optional[str]:
        """``eos_token`` of ``tokenizer_config.json`` (None when absent), as transformers'."""
    @property
    def eos_token_id(self) -> Optional[int]:
        """The id of :attr:`eos_token` (None when there is none)."""
    @property
    def pad_token(self) -> Optional[str]:
        """``pad_token`` of ``tokenizer_config.json`` (None when absent), as transformers'."""
    @property
    def pad_token_id(self) -> Optional[int]:
        """The id of :attr:`pad_token` (None when there is none)."""
    @property
    def unk_token(self) -> Optional[str]:
        """``unk_token`` of ``tokenizer_config.json`` (None when absent), as transformers'."""
    @property
    def unk_token_id(self) -> Optional[int]:
        """The id of :attr:`unk_token` (None when there is none)."""
    @property
    def model_max_length(self) -> int:
        """``model_max_length`` of ``tokenizer_config.json``; ``int(1e30)`` when absent, as transformers."""
    @property
    def padding_side(self) -> str:
        """``padding_side`` of ``tokenizer_config.json``: ``"left"`` or ``"right"`` (default)."""
    @property
    def truncation_side(self) -> str:
        """``truncation_side`` of ``tokenizer_config.json``: ``"left"`` or ``"right"`` (default)."""
    @property
    def sep_token(self) -> Optional[str]:
        """``sep_token`` of ``tokenizer_config.json`` (None when absent), as transformers'."""
    @property
    def sep_token_id(self) -> Optional[int]: ...
    @property
    def cls_token(self) -> Optional[str]:
        """``cls_token`` of ``tokenizer_config.json`` (None when absent), as transformers'."""
    @property
    def cls_token_id(self) -> Optional[int]: ...
    @property
    def mask_token(self) -> Optional[str]:
        """``mask_token`` of ``tokenizer_config.json`` (None when absent), as transformers'."""
    @property
    def mask_token_id(self) -> Optional[int]: ...
    @property
    def all_special_tokens(self) -> List[str]:
        """transformers 5's ``all_special_tokens``: the named special tokens (bos, eos, unk, sep,
        pad, cls, mask, then model-specific ones such as gemma3's ``boi_token``), then
        :attr:`extra_special_tokens`, each once; ``[]`` without a ``tokenizer_config.json``."""
    @property
    def all_special_ids(self) -> List[Optional[int]]:
        """``convert_tokens_to_ids(all_special_tokens)``, as transformers'."""
    @property
    def extra_special_tokens(self) -> List[str]:
        """transformers 5's ``extra_special_tokens``: the config's ``extra_special_tokens`` list, or
        (older configs) its ``additional_special_tokens``."""
    @property
    def extra_special_tokens_ids(self) -> List[Optional[int]]: ...
    @property
    def additional_special_tokens(self) -> List[str]:
        """transformers 4's name of :attr:`extra_special_tokens` (transformers 5 has no such attribute)."""
    @property
    def vocab_size(self) -> int:
        """The model vocabulary's size without added tokens (transformers' ``vocab_size``)."""
    def __len__(self) -> int:
        """The vocabulary's size with added tokens (transformers' ``len(tokenizer)``)."""
    @property
    def chat_template(self) -> Optional[Union[str, Dict[str, str]]]:
        """The chat template in force: a ``str``, ``{name: template}`` when there are several, or None."""
    @overload
    def convert_ids_to_tokens(self, ids: int, skip_special_tokens: bool = False) -> Optional[str]: ...
    @overload
    def convert_ids_to_tokens(self, ids: Iterable[int], skip_special_tokens: bool = False) -> List[Optional[str]]:
        """transformers' ``convert_ids_to_tokens``: None for an id the vocabulary lacks; with
        ``skip_special_tokens`` a list leaves out :attr:`all_special_ids` (an int is never skipped)."""
    @overload
    def convert_tokens_to_ids(self, tokens: str) -> Optional[int]: ...
    @overload
    def convert_tokens_to_ids(self, tokens: Iterable[str]) -> List[Optional[int]]:
        """transformers' ``convert_tokens_to_ids``: :attr:`unk_token_id` (None without one) for a
        token the vocabulary lacks."""
    def convert_tokens_to_string(self, tokens: Sequence[str]) -> str:
        """The tokenizer's decoder over ``tokens`` (space-joined without a decoder), as transformers'."""
    def get_added_vocab(self) -> Dict[str, int]:
        """Added token -> id, in id order (transformers' ``get_added_vocab``)."""
    @property
    def model_input_names(self) -> List[str]:
        """The config's ``model_input_names``, else ``["input_ids", "attention_mask"]`` (transformers 5.24)."""
    def __call__(
        self,
        text: Union[str, Sequence[str]],
        text_pair: Optional[Union[str, Sequence[str]]] = None,
        add_special_tokens: bool = True,
        padding: Union[bool, str] = False,
        truncation: Optional[Union[bool, str]] = None,
        max_length: Optional[int] = None,
        stride: int = 0,
        is_split_into_words: bool = False,
        pad_to_multiple_of: Optional[int] = None,
        padding_side: Optional[str] = None,
        return_tensors: Optional[str] = None,
        return_token_type_ids: Optional[bool] = None,
        return_attention_mask: Optional[bool] = None,
        return_overflowing_tokens: bool = False,
        return_special_tokens_mask: bool = False,
        return_offsets_mapping: bool = False,
        return_length: bool = False,
        verbose: bool = True,
        tokenizer_kwargs: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        """transformers' ``tokenizer(text, ...)`` (``PreTrainedTokenizerFast.__call__`` of 5.24): a dict
        equal to its ``BatchEncoding`` (``input_ids``, ``attention_mask``, … lists, or numpy arrays /
        torch tensors with ``return_tensors="np"``/``"pt"``). ``padding`` True/"longest"/"max_length",
        ``truncation`` True/"longest_first"/"only_first"/"only_second" (implied by ``max_length``),
        ``max_length`` defaulting to ``model_max_length``, ``padding_side``/``truncation_side`` from the
        config: mapped onto the core's truncation and padding for this call only (the tokenizer's own
        ``enable_truncation``/``enable_padding`` settings are ignored, as transformers does).
        ``is_split_into_words=True`` raises ``NotImplementedError``."""
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
        """The token string of ``id``, or None (also for negative, out-of-range or huge ids such
        as ``2**70``, where ``tokenizers`` raises ``OverflowError``)."""
    def get_vocab(self, with_added_tokens: bool = True) -> Dict[str, int]:
        """``token -> id``, as ``tokenizers``' ``get_vocab``."""
    def get_added_tokens_decoder(self) -> Dict[int, AddedToken]:
        """``id -> AddedToken`` for every added token (ordered by id), as ``tokenizers``."""
    def add_tokens(self, tokens: List[Union[str, AddedToken]]) -> int:
        """Add ``tokens`` (a ``list`` of ``str`` or ``AddedToken``; a ``str`` is a non-special
        token) to the vocabulary and return how many were new, exactly as ``tokenizers``'
        ``add_tokens`` (it is ``tokenizers``' own addition; the tokenizer is then rebuilt
        from the result, ~the cost of a load, GIL released). This tokenizer changes, for
        every handle on it; encodes already running finish with the vocabulary they started
        with. ``TypeError`` for anything but a list of ``str``/``AddedToken``."""
    def add_special_tokens(self, tokens: List[Union[str, AddedToken]]) -> int:
        """As ``add_tokens``, as special tokens (skipped by ``decode(..., skip_special_tokens=True)``),
        as ``tokenizers``' ``add_special_tokens``; an ``AddedToken`` passed is marked special."""
    @property
    def encode_special_tokens(self) -> bool:
        """``tokenizers``' ``encode_special_tokens``: when ``True``, special tokens in the input
        text are encoded as text (``"<|im_end|>"`` becomes the tokens of its characters); the
        post-processor's special tokens are still added. Such encodes run on the reference
        engine (``tokenizers``), chunked where the cut rules allow. Not kept by pickling or
        ``to_str``, as in ``tokenizers``."""
    @encode_special_tokens.setter
    def encode_special_tokens(self, value: bool) -> None: ...

    # -- sync -------------------------------------------------------------------------------
    def encode(
        self,
        sequence: Union[str, _Words],
        pair: Optional[Union[str, _Words]] = None,
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
    ) -> Encoding:
        """Encode one text, or a pair (``pair``: the second text), exactly as ``tokenizers``'
        ``encode``: the post-processor's pair template (type ids, sequence ids, special tokens),
        then the tokenizer's truncation (``overflowing`` included) and padding. A ``pair``
        that is not a ``str`` raises ``TypeError`` (pass ``add_special_tokens`` by keyword).

        ``is_pretokenized=True``: ``sequence`` (and ``pair``) are lists of words, encoded as
        ``tokenizers`` does: each word on its own (normalizer, added tokens, pre-tokenizer,
        model), every token of word ``i`` with ``word_ids`` ``i``, offsets in chars **of its own
        word**; an empty word has no tokens. Anything but a list/tuple/numpy array of ``str``
        raises ``TypeError``, as there."""
    def count(self, text: str, add_special_tokens: bool = True) -> int:
        """Number of tokens of ``text`` (ids only; faster), **before** truncation and padding:
        the length ``encode`` gives with them off."""
    def encode_batch(
        self, input: Sequence[_EncodeInput], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> BatchEncoding:
        """Encode many texts and pairs (``(str, str)`` items) in parallel on the core's pool, as
        ``tokenizers``' ``encode_batch``: each truncated and padded, then padded over the batch
        (to its longest item when padding has no ``length``). With ``is_pretokenized=True``
        each item is a list of words or a pair of them, as in ``encode`` (an item is read as
        words first: ``["a", "b"]`` is two words, ``[["a"], ["b"]]`` a pair)."""
    def encode_batch_fast(
        self, input: Sequence[_EncodeInput], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> BatchEncoding:
        """Same as ``encode_batch`` (offsets cost little here); kept for ``tokenizers`` compatibility."""

    # -- truncation and padding (``tokenizers``' names and semantics) -----------------------------
    def enable_truncation(
        self,
        max_length: int,
        stride: int = 0,
        strategy: Literal["longest_first", "only_first", "only_second"] = "longest_first",
        direction: Literal["right", "left"] = "right",
    ) -> None:
        """Truncate every ``encode``/``encode_batch`` to ``max_length`` tokens (special tokens
        included), as ``tokenizers``. ``ValueError`` for an unknown strategy or direction, or a
        ``stride`` not below the effective max length. ``count``, chat templates and
        trajectories never truncate. Settings loaded from ``tokenizer.json`` apply too."""
    def no_truncation(self) -> None:
        """Turn truncation off."""
    @property
    def truncation(self) -> Optional[Dict[str, Any]]:
        """``{"max_length", "stride", "strategy", "direction"}`` as ``tokenizers``, or ``None``."""
    def enable_padding(
        self,
        *,
        direction: Literal["right", "left"] = "right",
        pad_id: int = 0,
        pad_type_id: int = 0,
        pad_token: str = "[PAD]",
        length: Optional[int] = None,
        pad_to_multiple_of: Optional[int] = None,
    ) -> None:
        """Pad every encode, as ``tokenizers``: to ``length`` tokens, or (``length=None``) a
        batch to its longest item; then up to a multiple of ``pad_to_multiple_of``."""
    def no_padding(self) -> None:
        """Turn padding off."""
    @property
    def padding(self) -> Optional[Dict[str, Any]]:
        """``{"length", "pad_to_multiple_of", "pad_id", "pad_token", "pad_type_id",
        "direction"}`` as ``tokenizers``, or ``None``."""
    @property
    def engine(self) -> Literal["fastokens", "yieldtok", "tokenizers"]:
        """The engine serving ids-only work now: ``"fastokens"`` on byte-level BPE models once the
        fast engine has loaded and passed its check against the reference, else ``"yieldtok"`` (the own engine, when
        it serves this tokenizer), else ``"tokenizers"``. Ids are identical either way."""
        ...
    @property
    def encoding_engine(self) -> Literal["yieldtok", "tokenizers"]:
        """The engine serving full encodings (ids, offsets, masks): ``"yieldtok"`` (the own
        engine, checked against ``tokenizers`` at load) or ``"tokenizers"`` (when the own engine
        refused this tokenizer; see :attr:`encoding_engine_unavailable_reason`)."""
        ...
    @property
    def encoding_engine_unavailable_reason(self) -> Optional[str]:
        """Why the own engine does not serve this tokenizer (``None`` when it does)."""
        ...
    def wait_for_engine(self) -> str:
        """Wait until the fast engine has loaded (or been ruled out); returns :attr:`engine`."""
        ...
    def apply_chat_template(
        self,
        conversation: Union[Sequence[Mapping[str, Any]], Sequence[Sequence[Mapping[str, Any]]]],
        tools: Optional[Sequence[Mapping[str, Any]]] = None,
        documents: Optional[Sequence[Mapping[str, Any]]] = None,
        chat_template: Optional[str] = None,
        add_generation_prompt: bool = False,
        continue_final_message: Union[bool, str] = False,
        tokenize: bool = True,
        sanitize_control_tokens: bool = False,
        padding: Union[bool, str] = False,
        truncation: Union[bool, str] = False,
        max_length: Optional[int] = None,
        return_tensors: Optional[Literal["np", "pt"]] = None,
        return_dict: bool = True,
        return_assistant_tokens_mask: bool = False,
        tokenizer_kwargs: Optional[Mapping[str, Any]] = None,
        **kwargs: Any,
    ) -> Union[str, List[str], List[int], List[List[int]], Any, Dict[str, Any]]:
        """transformers 5.24's ``apply_chat_template`` (``PreTrainedTokenizerFast``'s signature,
        defaults and results). Renders ``conversation`` — or each conversation of a list of
        them (a batch) — byte-identical to transformers; ``chat_template`` is a template name
        or source; extra keyword arguments are template variables (``enable_thinking=False``).

        Returns the text (list of texts for a batch) with ``tokenize=False``; otherwise what
        ``tok(render, add_special_tokens=False, padding=padding, truncation=truncation,
        max_length=max_length, return_tensors=return_tensors, **tokenizer_kwargs)`` returns
        (:meth:`__call__`: ``input_ids``, ``attention_mask``, …; numpy arrays / torch tensors
        with ``return_tensors``), plus ``assistant_masks`` (1 for tokens overlapping a
        ``{% generation %}`` block, after truncation and padding) with
        ``return_assistant_tokens_mask=True``; only its ``input_ids`` with
        ``return_dict=False``. ``padding``/``truncation``/``max_length``/``return_tensors`` and
        ``tokenizer_kwargs`` apply to the encoding and never reach the template.
        ``ValueError`` (a ``TokenizerValueError`` from the core) where transformers raises one:
        an empty conversation, ``continue_final_message`` with ``add_generation_prompt`` or the
        mask, the mask without ``return_dict``/``tokenize``, padding without a pad token.
        ``TokenizerError`` when the template raises or fails. ``sanitize_control_tokens=True``
        raises ``NotImplementedError``. Rendered and encoded with the GIL released."""
        ...
    def async_apply_chat_template(
        self,
        conversation: Union[Sequence[Mapping[str, Any]], Sequence[Sequence[Mapping[str, Any]]]],
        tools: Optional[Sequence[Mapping[str, Any]]] = None,
        documents: Optional[Sequence[Mapping[str, Any]]] = None,
        chat_template: Optional[str] = None,
        add_generation_prompt: bool = False,
        continue_final_message: Union[bool, str] = False,
        tokenize: bool = True,
        sanitize_control_tokens: bool = False,
        padding: Union[bool, str] = False,
        truncation: Union[bool, str] = False,
        max_length: Optional[int] = None,
        return_tensors: Optional[Literal["np", "pt"]] = None,
        return_dict: bool = True,
        return_assistant_tokens_mask: bool = False,
        tokenizer_kwargs: Optional[Mapping[str, Any]] = None,
        **kwargs: Any,
    ) -> Awaitable[Any]:
        """Awaitable ``apply_chat_template`` (same arguments and results), rendered and
        encoded on the core scheduler."""
        ...
    def decode(self, ids: Union[Iterable[int], int], skip_special_tokens: bool = True) -> str:
        """Decode ids (a sequence or numpy array of ints, or one int) to text, exactly as
        ``tokenizers``: ids the vocabulary lacks are skipped. Ids outside ``0..2**32`` raise
        ``TokenizerValueError``."""
    def decode_batch(self, sequences: Sequence[Iterable[int]], skip_special_tokens: bool = True) -> List[str]:
        """Decode many id sequences in parallel."""

    # -- awaitables (Hugging Face names) -------------------------------------------------------
    def async_encode(
        self,
        sequence: Union[str, _Words],
        pair: Optional[Union[str, _Words]] = None,
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
    ) -> Awaitable[Encoding]:
        """Awaitable ``encode`` (same arguments and result, char offsets included), run in
        pieces on the core scheduler so the event loop never waits."""
    def async_encode_batch(
        self, input: Sequence[_EncodeInput], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> Awaitable[BatchEncoding]:
        """Awaitable ``encode_batch`` (same arguments and results): one job per text, all queued
        on the scheduler at once (a batch with pairs or pre-tokenized input runs as one task)."""
    def async_encode_batch_fast(
        self, input: Sequence[_EncodeInput], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> Awaitable[BatchEncoding]:
        """Same as ``async_encode_batch``; kept for ``tokenizers`` compatibility."""
    def async_count(self, text: str, add_special_tokens: bool = True) -> Awaitable[int]:
        """Awaitable ``count``."""
    def async_decode(self, ids: Union[Iterable[int], int], skip_special_tokens: bool = True) -> Awaitable[str]:
        """Awaitable ``decode``."""
    def async_decode_batch(self, sequences: Sequence[Iterable[int]], skip_special_tokens: bool = True) -> Awaitable[List[str]]:
        """Awaitable ``decode_batch``."""

    # -- trajectories (OpenPipe ART 0.5.18's names and results) ----------------------------------
    def tokenize_trajectory_groups(
        self,
        groups: _TrajectoryInput,
        allow_training_without_logprobs: bool = False,
        scale_rewards: bool = True,
        shuffle_group_trajectories: bool = True,
        drop_zero_advantage_trajectories: bool = True,
        chat_template_kwargs: Optional[Mapping[str, Any]] = None,
        seed: Optional[int] = None,
        *,
        chat_template_tool_schema_format: str = "default",
        validate_sampled_tokens: bool = True,
        chat_template: Optional[str] = None,
    ) -> List[TokenizedResult]:
        """ART 0.5.18's ``tokenize_trajectory_groups(tokenizer, groups, ...)``: the same results
        (ids, masks, logprobs, advantages, weights, prompt ids and lengths, order), with this
        tokenizer's chat template rendered like transformers 5.2. Every history is tokenized in
        parallel on the core's pool with the GIL released.

        ``groups``: a list of groups (a group is a list of trajectories or
        ``{"trajectories": [...]}``) in any input form (see ``_TrajectoryInput``): Python data,
        ART's pydantic objects, JSON ``bytes``/``str``, or a JSON / JSON Lines path. Python
        objects are written to JSON by the binding (the only part holding the GIL); bytes and
        paths are parsed without it.

        ``seed`` seeds the prompt-id draws and per-group shuffles exactly as
        ``random.seed(seed)`` right before ART's call would (``None``: fresh entropy).
        ``chat_template_tool_schema_format`` is ART's (``"default"`` or ``"vllm_openai"``).
        ``validate_sampled_tokens`` (yieldtok's addition, default on): a sampled id outside the
        vocabulary, a token string that is not in it, a sentinel collision, or a NaN or infinite
        ``reward`` fails the trajectory (ART splices the ids silently and gives the whole group
        NaN advantages); ``False`` gives ART's output. ``-inf`` (and NaN) logprobs are kept as
        ART keeps them. One bad value fails only its own trajectory, in every input form: a lone
        surrogate in a ``str`` (named by its field, e.g. ``messages_and_choices[1].content``), a
        value that cannot be converted, or in JSON input a syntax error or invalid UTF-8 (named
        by line and column; a broken JSONL line fails its group only).
        ``chat_template``: a template source to use instead of the tokenizer's.

        Raises ``TrajectoryError`` if any trajectory fails (missing fields, an out-of-vocabulary
        id, ART's own errors such as a final Choice without logprobs): the error carries the
        results of everything else (``e.results``) and where and why each one failed
        (``e.errors``). ``TokenizerValueError`` if the tokenizer has no chat template."""
    def tokenize_trajectory(
        self,
        history: _TrajectoryInput,
        advantage: float = 0.0,
        allow_training_without_logprobs: bool = False,
        chat_template_kwargs: Optional[Mapping[str, Any]] = None,
        *,
        chat_template_tool_schema_format: str = "default",
        validate_sampled_tokens: bool = True,
        chat_template: Optional[str] = None,
    ) -> Optional[TokenizedResult]:
        """ART's ``tokenize_trajectory`` for one history: a ``History``/``Trajectory`` (its own
        ``messages_and_choices`` and ``tools``; additional histories are ignored) or a bare
        ``messages_and_choices`` list, in any input form. ``weight``, ``prompt_id`` and
        ``prompt_length`` stay 0, as ART leaves them. Returns ``None`` when the history has no
        trainable message; raises ``TrajectoryError`` (with no results) when it fails."""
    def async_tokenize_trajectory_groups(
        self,
        groups: _TrajectoryInput,
        allow_training_without_logprobs: bool = False,
        scale_rewards: bool = True,
        shuffle_group_trajectories: bool = True,
        drop_zero_advantage_trajectories: bool = True,
        chat_template_kwargs: Optional[Mapping[str, Any]] = None,
        seed: Optional[int] = None,
        *,
        chat_template_tool_schema_format: str = "default",
        validate_sampled_tokens: bool = True,
        chat_template: Optional[str] = None,
    ) -> Awaitable[List[TokenizedResult]]:
        """Awaitable ``tokenize_trajectory_groups``: runs on the core scheduler, so the event loop
        keeps running. Python objects are written to JSON on the calling thread first (that step
        needs the GIL); pass JSON bytes or a path to keep the loop entirely free. Cancelling the
        awaiting task skips the histories not yet started."""
    def async_tokenize_trajectory(
        self,
        history: _TrajectoryInput,
        advantage: float = 0.0,
        allow_training_without_logprobs: bool = False,
        chat_template_kwargs: Optional[Mapping[str, Any]] = None,
        *,
        chat_template_tool_schema_format: str = "default",
        validate_sampled_tokens: bool = True,
        chat_template: Optional[str] = None,
    ) -> Awaitable[Optional[TokenizedResult]]:
        """Awaitable ``tokenize_trajectory``, run on the core scheduler."""
    def __reduce__(self) -> Tuple[Any, Tuple[str]]:
        """Pickles (and ``copy``/``deepcopy``) everything it was loaded with: ``tokenizer.json``
        with added tokens and the truncation/padding in force, ``tokenizer_config.json`` and the
        chat templates (one JSON bundle, core ``Tokenizer::to_bundle``)."""

@final
class _ArrayView:
    """Read-only description of Rust-owned memory for ``numpy.asarray``."""

    @property
    def __array_interface__(self) -> Dict[str, Any]: ...

def _tokenized_result_from_bytes(bytes: bytes) -> TokenizedResult:
    """Unpickling entry point of ``TokenizedResult``."""

def _tokenizer_from_json(json: str) -> Tokenizer:
    """Unpickling entry point."""
