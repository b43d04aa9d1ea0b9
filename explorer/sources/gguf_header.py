"""Streaming reader for the key-value section of a GGUF file.

Input: a byte stream positioned at the start of a GGUF file (a local file, an upload's
bytes, or HTTP range reads of a Hub file), which may be truncated anywhere. Output: a
frozen ``GGUFHeader`` with the version, counts, the small metadata values, and the
chat templates (``tokenizer.chat_template`` and ``tokenizer.chat_template.<name>``).

Only the fixed header and the key-value pairs are read; tensor infos and tensor data
are never touched, so the first few megabytes of a 20 GB model are enough. Every
length and count is checked against ``MAX_GGUF_HEADER_BYTES`` (and the bytes left to
it) *before* anything is read or allocated, so a corrupt header fails fast with a
``GGUFError`` instead of a huge allocation. The checks mirror llama.cpp's
``gguf_init_from_reader`` (magic, version, empty and duplicate keys, nested arrays,
unknown types) and add caps of our own.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Literal, Protocol

from gguf.constants import GGUF_MAGIC, GGUF_VERSION, GGUFValueType, Keys

from explorer.errors import GGUFError, Location

MAX_GGUF_HEADER_BYTES = 64 * 1024 * 1024
"""The most bytes read from a GGUF file before giving up (a real KV section is 1-15 MB)."""

MAX_KEY_BYTES = 64 * 1024
"""Longest key accepted (real keys are under 100 bytes)."""

MAX_TENSOR_COUNT = 1 << 24
"""More tensors than this is treated as a corrupt header (real models have < 100k)."""

MAX_KEPT_ARRAY_LENGTH = 64
"""Arrays up to this length are kept in ``metadata``; longer ones only as a summary."""

CHAT_TEMPLATE_KEY = Keys.Tokenizer.CHAT_TEMPLATE
CHAT_TEMPLATE_PREFIX = CHAT_TEMPLATE_KEY + "."
TOKENS_KEY = Keys.Tokenizer.LIST

# The smallest possible key-value pair: u64 key length, 1 key byte, u32 type, 1 value byte.
_MIN_KV_BYTES = 8 + 1 + 4 + 1

_SCALAR_FORMATS: dict[GGUFValueType, str] = {
    GGUFValueType.UINT8: "B",
    GGUFValueType.INT8: "b",
    GGUFValueType.UINT16: "H",
    GGUFValueType.INT16: "h",
    GGUFValueType.UINT32: "I",
    GGUFValueType.INT32: "i",
    GGUFValueType.FLOAT32: "f",
    GGUFValueType.BOOL: "?",
    GGUFValueType.UINT64: "Q",
    GGUFValueType.INT64: "q",
    GGUFValueType.FLOAT64: "d",
}
_VALID_TYPES = {int(t): t for t in GGUFValueType}
_U64 = struct.Struct("<Q")

StopReason = Literal["truncated", "cap"]


class ByteStream(Protocol):
    """Anything with ``read(n)`` that returns at most n bytes (fewer only at the end)."""

    def read(self, n: int, /) -> bytes: ...


@dataclass(frozen=True)
class ArraySummary:
    """A long array value, kept as its element type and length only."""

    element_type: str
    length: int


MetaValue = int | float | bool | str | tuple | ArraySummary


@dataclass(frozen=True)
class GGUFHeader:
    """What was read from a GGUF header, possibly cut short by truncation or the cap."""

    version: int
    tensor_count: int
    kv_count: int
    kv_read: int
    bytes_read: int
    metadata: Mapping[str, MetaValue] = field(repr=False)
    chat_templates: Mapping[str, str] = field(repr=False)
    bos_token: str | None = None
    eos_token: str | None = None
    stop_reason: StopReason | None = None
    stop_detail: str | None = None

    @property
    def complete(self) -> bool:
        """True when every key-value pair was read."""
        return self.stop_reason is None


class _Truncated(Exception):
    def __init__(self, offset: int, needed: int) -> None:
        self.offset = offset
        self.needed = needed
        super().__init__(offset, needed)


class _CapReached(Exception):
    def __init__(self, offset: int, needed: int) -> None:
        self.offset = offset
        self.needed = needed
        super().__init__(offset, needed)


class _Cursor:
    """Buffered little-endian reads over a stream, never past ``max_bytes`` in total.

    Refills grow geometrically (``first_chunk`` doubling up to ``max_chunk``) so a
    remote stream is asked for a few large ranges rather than many small ones.
    """

    def __init__(
        self,
        stream: ByteStream,
        max_bytes: int,
        first_chunk: int = 256 * 1024,
        max_chunk: int = 8 * 1024 * 1024,
    ) -> None:
        self._stream = stream
        self.max_bytes = max_bytes
        self._buf = b""
        self._pos = 0
        self._base = 0
        self._chunk = first_chunk
        self._max_chunk = max_chunk
        self._eof = False

    @property
    def offset(self) -> int:
        return self._base + self._pos

    def remaining_budget(self) -> int:
        return self.max_bytes - self.offset

    def _fill(self, n: int) -> None:
        available = len(self._buf) - self._pos
        if available >= n:
            return
        if self.offset + n > self.max_bytes:
            raise _CapReached(self.offset, n)
        if self._eof:
            raise _Truncated(self.offset, n)
        self._buf = self._buf[self._pos :]
        self._base += self._pos
        self._pos = 0
        need = n - available
        want = min(max(need, self._chunk), self.max_bytes - self._base - len(self._buf))
        self._chunk = min(self._chunk * 2, self._max_chunk)
        parts = [self._buf]
        got = 0
        while got < want:
            data = self._stream.read(want - got)
            if not data:
                self._eof = True
                break
            parts.append(data)
            got += len(data)
        self._buf = b"".join(parts)
        if len(self._buf) < n:
            raise _Truncated(self.offset, n)

    def take(self, n: int) -> bytes:
        self._fill(n)
        start = self._pos
        self._pos += n
        return self._buf[start : self._pos]

    def skip(self, n: int) -> None:
        while n > 0:
            step = min(n, self._max_chunk)
            self._fill(step)
            self._pos += step
            n -= step

    def strings_in_buffer(self, count: int, keep: list[bytes] | None) -> int:
        """Consume up to ``count`` length-prefixed strings lying wholly in the buffer
        (the fast path for vocabularies); returns how many were consumed."""
        buf, pos, end = self._buf, self._pos, len(self._buf)
        unpack_from = _U64.unpack_from
        done = 0
        while done < count and pos + 8 <= end:
            (n,) = unpack_from(buf, pos)
            stop = pos + 8 + n
            if stop > end:
                break
            if keep is not None:
                keep.append(buf[pos + 8 : stop])
            pos = stop
            done += 1
        self._pos = pos
        return done

    def unpack(self, fmt: str) -> int | float | bool:
        size = struct.calcsize("<" + fmt)
        self._fill(size)
        (value,) = struct.unpack_from("<" + fmt, self._buf, self._pos)
        self._pos += size
        return value

    def u32(self) -> int:
        return int(self.unpack("I"))

    def u64(self) -> int:
        return int(self.unpack("Q"))

    def i64(self) -> int:
        return int(self.unpack("q"))


def _error(message: str, offset: int) -> GGUFError:
    return GGUFError(message, Location(offset=offset))


def _mib(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):g} MiB"
    return f"{n / 1024:g} KiB"


def _check_size(cur: _Cursor, nbytes: int, message: str, at: int) -> None:
    """A value larger than the whole cap is corrupt; one that only overruns what is
    left of the cap ends the read like a truncation (``_CapReached``)."""
    if nbytes > cur.max_bytes:
        raise _error(f"{message}, more than the {_mib(cur.max_bytes)} header cap allows", at)
    if nbytes > cur.remaining_budget():
        raise _CapReached(at, nbytes)


def _string_bytes(cur: _Cursor, what: str, limit: int) -> bytes:
    """Read a u64-length-prefixed string, checking the length before reading it."""
    at = cur.offset
    length = cur.u64()
    if length > limit:
        raise _error(f"absurd GGUF string length {length} for {what} (at most {limit})", at)
    _check_size(cur, length, f"absurd GGUF string length {length} for {what}", at)
    return cur.take(length)


def _read_type(cur: _Cursor, key: str) -> GGUFValueType:
    at = cur.offset
    raw = cur.u32()
    vtype = _VALID_TYPES.get(raw)
    if vtype is None:
        raise _error(
            f"unknown GGUF value type {raw} for key '{key}' (expected 0..{len(_VALID_TYPES) - 1})",
            at,
        )
    return vtype


def _read_scalar(cur: _Cursor, vtype: GGUFValueType, key: str) -> MetaValue:
    if vtype == GGUFValueType.STRING:
        raw = _string_bytes(cur, f"the value of key '{key}'", cur.max_bytes)
        return _decode_value(raw, key, cur.offset - len(raw))
    return cur.unpack(_SCALAR_FORMATS[vtype])


def _decode_value(raw: bytes, key: str, at: int) -> str:
    if key == CHAT_TEMPLATE_KEY or key.startswith(CHAT_TEMPLATE_PREFIX):
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _error(
                f"chat template '{key}' is not valid UTF-8 (bad byte at position {exc.start})",
                at,
            ) from exc
    return raw.decode("utf-8", errors="replace")


def _read_array(cur: _Cursor, key: str, keep_all: bool) -> tuple | ArraySummary:
    etype = _read_type(cur, key)
    if etype == GGUFValueType.ARRAY:
        # llama.cpp rejects nested arrays as an invalid type.
        raise _error(f"key '{key}' is an array of arrays, which GGUF readers reject", cur.offset - 4)
    at = cur.offset
    length = cur.u64()
    min_size = 8 if etype == GGUFValueType.STRING else struct.calcsize(_SCALAR_FORMATS[etype])
    _check_size(
        cur,
        length * min_size,
        f"absurd GGUF array length {length} for key '{key}' ({etype.name} elements, at least "
        f"{length * min_size} bytes)",
        at,
    )
    keep = keep_all or length <= MAX_KEPT_ARRAY_LENGTH
    if etype != GGUFValueType.STRING:
        if not keep:
            cur.skip(length * min_size)
            return ArraySummary(etype.name, length)
        fmt = _SCALAR_FORMATS[etype]
        return tuple(cur.unpack(fmt) for _ in range(length))
    raw: list[bytes] | None = [] if keep else None
    i = 0
    while i < length:
        i += cur.strings_in_buffer(length - i, raw)
        if i < length:
            # The next string crosses the buffer's end: read it the checked, slow way.
            n = _string_length(cur, key, i)
            if raw is None:
                cur.skip(n)
            else:
                raw.append(cur.take(n))
            i += 1
    if raw is None:
        return ArraySummary(etype.name, length)
    return tuple(b.decode("utf-8", errors="replace") for b in raw)


def _string_length(cur: _Cursor, key: str, index: int) -> int:
    at = cur.offset
    length = cur.u64()
    _check_size(cur, length, f"absurd GGUF string length {length} in array '{key}' element {index}", at)
    return length


def _read_fixed_header(cur: _Cursor) -> tuple[int, int, int]:
    magic = cur.take(4)
    if struct.unpack("<I", magic)[0] != GGUF_MAGIC:
        raise _error(f"not a GGUF file: expected magic b'GGUF', found {magic!r}", 0)
    version = cur.u32()
    if version == 0:
        raise _error("bad GGUF version 0", 4)
    if version & 0xFFFF == 0:
        raise _error(
            f"GGUF version {version} is absurd: the file is big-endian, which llama.cpp "
            "does not load on a little-endian host",
            4,
        )
    if version == 1:
        raise _error("GGUF version 1 is no longer supported by llama.cpp (expected 2 or 3)", 4)
    if version > GGUF_VERSION:
        raise _error(f"GGUF version {version} is newer than supported (expected 2 or 3)", 4)
    tensor_count = cur.i64()
    if not 0 <= tensor_count <= MAX_TENSOR_COUNT:
        raise _error(
            f"absurd tensor count {tensor_count} (expected 0..{MAX_TENSOR_COUNT})", 8
        )
    kv_count = cur.i64()
    if kv_count < 0 or kv_count * _MIN_KV_BYTES > cur.max_bytes:
        raise _error(
            f"absurd key-value count {kv_count}: each pair takes at least {_MIN_KV_BYTES} "
            f"bytes and the header cap is {_mib(cur.max_bytes)}",
            16,
        )
    return version, tensor_count, kv_count


def read_gguf_header(
    stream: ByteStream,
    *,
    max_bytes: int = MAX_GGUF_HEADER_BYTES,
    first_chunk: int = 256 * 1024,
) -> GGUFHeader:
    """Read the fixed header and the key-value section of a GGUF stream.

    A stream that ends (or reaches ``max_bytes``) inside the key-value section gives
    a partial header with ``stop_reason`` set; one that ends inside the fixed header,
    or any corrupt field, raises ``GGUFError``.
    """
    cur = _Cursor(stream, max_bytes, first_chunk=first_chunk)
    try:
        version, tensor_count, kv_count = _read_fixed_header(cur)
    except (_Truncated, _CapReached) as exc:
        raise _error(
            f"GGUF file too short: it ends at byte {exc.offset} inside the 24-byte fixed header",
            exc.offset,
        ) from None
    metadata: dict[str, MetaValue] = {}
    tokens: tuple | None = None
    stop: StopReason | None = None
    detail: str | None = None
    kv_read = 0
    for index in range(kv_count):
        try:
            key, value = _read_kv(cur, index, kv_count, metadata)
        except _Truncated as exc:
            stop, detail = "truncated", _stop_detail("the data ends", exc, index, kv_count)
            break
        except _CapReached as exc:
            stop, detail = "cap", _stop_detail(
                f"the {_mib(max_bytes)} header read cap is reached", exc, index, kv_count
            )
            break
        if key == TOKENS_KEY and isinstance(value, tuple):
            tokens, value = value, ArraySummary(GGUFValueType.STRING.name, len(value))
        metadata[key] = value
        kv_read += 1
    templates = {
        _template_name(k): v
        for k, v in metadata.items()
        if isinstance(v, str) and k.startswith(CHAT_TEMPLATE_PREFIX)
    }
    default = metadata.get(CHAT_TEMPLATE_KEY)
    if isinstance(default, str):
        # The plain key is llama.cpp's default even if a '.default' key also exists.
        templates["default"] = default
    return GGUFHeader(
        version=version,
        tensor_count=tensor_count,
        kv_count=kv_count,
        kv_read=kv_read,
        bytes_read=cur.offset,
        metadata=MappingProxyType(metadata),
        chat_templates=MappingProxyType(templates),
        bos_token=_token_text(tokens, metadata.get(Keys.Tokenizer.BOS_ID)),
        eos_token=_token_text(tokens, metadata.get(Keys.Tokenizer.EOS_ID)),
        stop_reason=stop,
        stop_detail=detail,
    )


def _read_kv(
    cur: _Cursor, index: int, kv_count: int, seen: Mapping[str, MetaValue]
) -> tuple[str, MetaValue]:
    at = cur.offset
    key = _string_bytes(cur, f"key {index}", MAX_KEY_BYTES).decode("utf-8", errors="replace")
    if not key:
        raise _error(f"key-value pair {index} of {kv_count} has an empty key", at)
    if key in seen:
        raise _error(f"duplicate key '{key}' in key-value pair {index} of {kv_count}", at)
    vtype = _read_type(cur, key)
    if vtype == GGUFValueType.ARRAY:
        return key, _read_array(cur, key, keep_all=key == TOKENS_KEY)
    return key, _read_scalar(cur, vtype, key)


def _stop_detail(why: str, exc: _Truncated | _CapReached, index: int, kv_count: int) -> str:
    return (
        f"{why} at byte {exc.offset + exc.needed} inside key-value pair {index + 1} of "
        f"{kv_count} (read {exc.offset} bytes of header)"
    )


def _template_name(key: str) -> str:
    return "default" if key == CHAT_TEMPLATE_KEY else key[len(CHAT_TEMPLATE_PREFIX) :]


def _token_text(tokens: tuple | None, token_id: MetaValue | None) -> str | None:
    if tokens is None or not isinstance(token_id, int) or isinstance(token_id, bool):
        return None
    return tokens[token_id] if 0 <= token_id < len(tokens) else None


# --- convenience entry points ------------------------------------------------------


def read_gguf_header_from_bytes(data: bytes, **kwargs: int) -> GGUFHeader:
    """Read a header from bytes in memory (an upload, possibly just its first megabytes)."""
    return read_gguf_header(stream_from_bytes(data), **kwargs)


def stream_from_bytes(data: bytes | memoryview) -> ByteStream:
    """A ByteStream over bytes in memory that copies only the parts read (an upload of
    a whole model is never copied)."""
    return _ViewStream(memoryview(data))


class _ViewStream:
    def __init__(self, view: memoryview) -> None:
        self._view = view
        self._offset = 0

    def read(self, n: int, /) -> bytes:
        chunk = bytes(self._view[self._offset : self._offset + n])
        self._offset += len(chunk)
        return chunk


def read_gguf_header_from_file(path: str | Path, **kwargs: int) -> GGUFHeader:
    """Read a header from a local file without reading past the key-value section."""
    with open(path, "rb") as handle:
        return read_gguf_header(handle, **kwargs)


def stream_from_callable(read_range: Callable[[int, int], bytes]) -> ByteStream:
    """Adapt ``read_range(start, length) -> bytes`` (e.g. HTTP Range) into a ByteStream."""
    return _RangeStream(read_range)


class _RangeStream:
    def __init__(self, read_range: Callable[[int, int], bytes]) -> None:
        self._read_range = read_range
        self._offset = 0

    def read(self, n: int, /) -> bytes:
        data = self._read_range(self._offset, n)
        self._offset += len(data)
        return data
