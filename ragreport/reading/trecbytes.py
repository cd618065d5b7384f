"""A bytes-level reader for well-formed TREC runs and qrels: numpy over the raw file, chunk by chunk.

No Python object is made per line or per field. Each chunk of whole lines is checked to have the
strict layout (exactly ``width`` fields per line, one space or tab between them, ``\\n`` or
``\\r\\n`` at the end, no ``#`` comment), then each wanted column is cut out as a fixed-width
matrix of bytes: ids stay bytes (``'S'`` arrays), numbers are parsed by digit arithmetic.

Comment and blank lines are dropped, as the line-by-line reader drops them. Whatever this reader
does not accept (runs of spaces, leading blanks, a score that is no number, anything malformed)
makes it return ``None``, and the line-by-line reader of :mod:`ragreport.reading.trec` reads the
file instead, naming the line at fault in every error: this module never decides an error.
"""

from __future__ import annotations

import functools
import gzip
import itertools
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.ids import THREADS, first_appearance, forbidden_from_del, forbidden_in_utf8
from .files import read_errors, special_kind

#: Bytes read at a time: bounds the working memory of the reader (about 20x this in all).
CHUNK_BYTES = 1 << 21

_POW10 = 10.0 ** np.arange(23)
_NUMBER_BYTES = np.frombuffer(b"0123456789.+-eE", dtype=np.uint8)
_ONE, _EIGHT, _BYTE_ONES, _TOP_BYTE = np.uint64(1), np.uint64(8), np.uint64(0x0101010101010101), np.uint64(56)


def _byte_sum(words: np.ndarray) -> np.ndarray:
    """The sum of the bytes of each 64-bit word whose bytes are each 0 or 1 (SWAR: one multiply)."""
    return ((words * _BYTE_ONES) >> _TOP_BYTE).view(np.int64)  # below 256: the same as signed


#: Readable bytes after each chunk, whatever they hold: 8-byte windows at any field start stay in
#: the buffer (a field is at most MAX_FIELD bytes).
_SPARE = 64 + 8


def byte_chunks(
    path: Path, chunk_bytes: int = CHUNK_BYTES, span: tuple[int, int] | None = None
) -> Iterator[memoryview]:
    """The file's bytes (gunzipped when gzip's magic starts it) in pieces that end at a newline;
    only bytes ``span[0]:span[1]`` of a plain file when ``span`` is given (a partition).

    Each piece is a view of the start of a buffer with at least :data:`_SPARE` more bytes after
    it (the start of the next piece's line, or NUL): the file is read straight into the buffer
    the scan looks at, with no copy to join a piece's first line or to pad it. The last piece has
    its trailing whitespace replaced by one newline, so a file that ends without one, or with
    blank lines, reads the same.
    """
    with path.open("rb") as probe:
        magic = probe.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    if span is not None and opener is gzip.open:
        raise ValueError("a gzip file cannot be read by byte ranges")
    with opener(path, "rb") as handle:
        previous: memoryview | None = None
        pending = b""  # the start of a line the next piece ends
        left = None if span is None else span[1] - span[0]
        if span is not None:
            handle.seek(span[0])
        if span is None or span[0] == 0:  # a byte-order mark at the file's start is no part of an id
            bom = handle.read(3 if left is None else min(3, left))
            pending = b"" if bom == b"\xef\xbb\xbf" else bom
            left = None if left is None else left - len(bom)
        while True:
            wanted = chunk_bytes if left is None else min(chunk_bytes, left)
            buffer = bytearray(len(pending) + wanted + _SPARE)
            buffer[: len(pending)] = pending
            with read_errors(path):  # a gzip file cut short or damaged past the head detection read
                got = (handle.readinto(memoryview(buffer)[len(pending) : len(pending) + wanted]) or 0) if wanted else 0
            if left is not None:
                left -= got
            if not got:
                break
            end = len(pending) + got
            cut = buffer.rfind(b"\n", 0, end) + 1
            if cut == 0:
                pending = bytes(buffer[:end])
                continue
            pending = bytes(buffer[cut:end])
            if previous is not None:
                yield previous  # held back one step, so the last piece can be trimmed
            previous = memoryview(buffer)[:cut]
        last = ((bytes(previous) if previous is not None else b"") + pending).rstrip()
        if last:
            yield memoryview(bytearray(last + b"\n" + bytes(_SPARE)))[: len(last) + 1]


def _lines(buf: np.ndarray, width: int) -> np.ndarray | None:
    """The positions of the separators, ``(lines, width)``: column ``width - 1`` is each line's
    newline. None unless every line has exactly ``width`` non-empty fields, each separated by one
    space or tab, and no line is a comment.

    When it passes, every byte below 33 of ``buf`` is one of those spaces, tabs and newlines: no
    other control byte is there (the bytes reader's id check leans on this)."""
    separator = buf <= 32
    if separator[0] or (separator[1:] & separator[:-1]).any():
        return None  # an empty field, a blank line or a run of blanks
    found = np.flatnonzero(separator)
    n = len(found) // width
    if n == 0 or len(found) != n * width:
        return None
    seps = found.reshape(n, width)  # one row per line: the separators that end its fields
    if not (buf[seps[:, -1]] == 10).all():
        return None
    # Every line ends in a newline; with exactly n newlines in all, none is inside a line, and the
    # separators inside lines are spaces and tabs when they are all the rest of the bytes below 33
    # (counts over the whole buffer: cheaper than gathering the separators' bytes).
    inner = n * (width - 1)
    if np.count_nonzero(buf == 10) != n:
        return None
    spaces = np.count_nonzero(buf == 32)
    if spaces != inner and spaces + np.count_nonzero(buf == 9) != inner:
        return None
    if buf[0] == 35 or ((buf == 35).any() and (buf[seps[:-1, -1] + 1] == 35).any()):
        return None  # '#': a comment line
    return seps


#: Longest field the reader cuts out (bytes); a longer one sends the file to the text reader.
MAX_FIELD = _SPARE - 8
_BYTE_MASKS = np.array([(1 << (8 * i)) - 1 for i in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def _field_words(windows: np.ndarray, seps: np.ndarray, column: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Column ``column`` as a ``(lines, words)`` matrix of 64-bit words holding its bytes in file
    order, NUL-padded; and each field's length. One gather of the 8-byte ``windows`` (read as
    little-endian words) per 8 bytes of width, not per byte."""
    starts = seps[:, column - 1] + 1 if column else np.concatenate(([0], seps[:-1, -1] + 1))
    lengths = seps[:, column] - starts
    width = int(lengths.max())
    if width > MAX_FIELD:
        return None
    if width <= 8:  # one word (the usual id and score): no clipping of lengths
        return (windows[starts].view("<u8") & _BYTE_MASKS[lengths])[:, None], lengths
    words = np.empty((len(starts), -(-width // 8)), dtype=np.uint64)
    for j in range(words.shape[1]):
        kept = np.clip(lengths - 8 * j, 0, 8)
        words[:, j] = windows[starts + 8 * j].view("<u8") & _BYTE_MASKS[kept]
    return words, lengths


def _as_bytes(words: np.ndarray) -> np.ndarray:
    return words.view(f"S{8 * words.shape[1]}").reshape(-1)


def parse_decimals(words: np.ndarray, lengths: np.ndarray, integers: bool = False) -> np.ndarray | None:
    """Numbers written ``[+-]digits[.digits]`` (``[+-]digits`` when ``integers``), row by row,
    from the words :func:`_field_words` cut out; scores in another form of the number grammar
    (an exponent, more than 15 digits) too.

    With at most 15 digits the mantissa ``m`` and the count ``f`` of digits after the point are
    exact, and ``m / 10**f`` is one correctly rounded division of two exact doubles: the same
    double ``strtod`` gives. Other scores made of the grammar's characters go through numpy's own
    conversion; None when any row is not a finite number, or, when ``integers``, not an integer
    of at most 15 digits (the line reader reads the others exactly, within 64 bits).
    """
    matrix = words.view(np.uint8).reshape(len(words), -1)
    width = int(lengths.max())
    first = matrix[:, 0]
    negative = first == 45
    start = negative | (first == 43)
    # Byte by byte, as masks over the whole (rows x bytes) matrix: the bytes past a field's end
    # are NUL, which is neither a digit nor a point, and a sign is neither.
    is_digit = (matrix - np.uint8(48)) < 10
    is_dot = matrix == 46
    # Counts per row of 8-byte words by one multiplication: the byte sum of a word of 0/1 bytes.
    digit_words = is_digit.view(np.uint64)
    dot_words = is_dot.view(np.uint64)
    digits = _byte_sum(digit_words[:, 0])
    dots = _byte_sum(dot_words[:, 0])
    # the digits after a point: ~((point << 8) - 1) keeps the bytes above the point's
    after = _byte_sum(digit_words[:, 0] & ~((dot_words[:, 0] << _EIGHT) - _ONE))
    if digit_words.shape[1] > 1:  # a field of more than 8 bytes
        dot_before = dot_words[:, 0] != 0  # a point in an earlier word
        for j in range(1, digit_words.shape[1]):
            digit_word, dot_word = digit_words[:, j], dot_words[:, j]
            counted = _byte_sum(digit_word)
            digits += counted
            dots += _byte_sum(dot_word)
            after += np.where(dot_before, counted, _byte_sum(digit_word & ~((dot_word << _EIGHT) - _ONE)))
            dot_before |= dot_word != 0
    # Every byte of the field after its sign is a digit or the one point (none for integers).
    simple = (digits + dots == lengths - start) & (dots <= (0 if integers else 1)) & (digits >= 1) & (digits <= 15)
    after[~simple] = 0
    # Horner's rule over the digits, exact below 2**53 (15 digits): m * 10 + digit at a digit,
    # m * 1 + 0 elsewhere, in place.
    step = np.where(is_digit, np.uint8(10), np.uint8(1))
    digit = (matrix - np.uint8(48)) * is_digit
    mantissa = np.zeros(len(matrix), dtype=np.float64)
    for j in range(width):
        mantissa *= step[:, j]
        mantissa += digit[:, j]
    values = mantissa / _POW10[after]
    values[negative] *= -1
    if not simple.all():
        if integers:
            return None  # a grade of more than 15 digits, or in another form: read exactly by the line reader
        other = np.flatnonzero(~simple)
        # The number grammar's characters only (docs/conventions.md section 17): numpy's own
        # conversion would also take '1_0', 'nan', 'inf' and blanks.
        allowed = np.isin(matrix[other], _NUMBER_BYTES)
        if not (allowed | (np.arange(matrix.shape[1])[None, :] >= lengths[other][:, None])).all():
            return None
        text = _as_bytes(words[other])
        try:
            converted = text.astype(np.float64)
        except ValueError:
            return None
        values[other] = converted
    if not np.isfinite(values).all():
        return None
    return values


@dataclass
class Columns:
    """What a pass over a file (or one chunk of it) gave: query groups (runs of lines with the same
    query id), and the wanted columns, in file order."""

    group_ids: np.ndarray  # 'S' array, one per group
    group_lengths: np.ndarray
    ids: np.ndarray  # 'S' array, one per line
    numbers: np.ndarray


def _scan(data: bytes | memoryview, width: int, id_column: int, number_column: int, integers: bool) -> Columns | None:
    whole = data.obj if isinstance(data, memoryview) else None
    if isinstance(whole, bytearray) and len(data) + _SPARE <= len(whole):  # a piece of byte_chunks
        padded = np.frombuffer(whole, dtype=np.uint8)
    else:
        padded = np.frombuffer(bytes(data) + bytes(_SPARE), dtype=np.uint8)
    buf = padded[: len(data)]
    seps = _lines(buf, width)
    if seps is None:
        if forbidden_in_utf8(buf):
            return None  # a character no id may hold, or a CR alone: the line reader names the line
        # CRLF read as LF, comment and blank lines dropped as the line reader drops them: only a
        # chunk that failed the strict check pays for this split into lines.
        raw = bytes(data)
        tidy = raw.replace(b"\r\n", b"\n") if b"\r" in raw else raw
        kept = [line for line in tidy.split(b"\n") if line.strip() and not line.strip().startswith(b"#")]
        tidy = b"\n".join(kept) + b"\n" if kept else b""
        if tidy == raw:
            return None  # nothing to tidy: not strict
        if not tidy:  # nothing but comments and blank lines
            return Columns(np.zeros(0, dtype="S8"), np.zeros(0, dtype=np.int64), np.zeros(0, dtype="S8"), np.zeros(0))
        return _scan(tidy, width, id_column, number_column, integers)
    # Strict: every byte below 33 is a separator (_lines), so no control byte below 32 is left;
    # the largest byte says whether DEL or any multi-byte character is there to look at.
    top = int(buf.max())
    if forbidden_from_del(buf, top):
        return None  # a character no id may hold: the line reader names the line
    if top >= 128:
        try:
            str(data, "utf-8")
        except UnicodeDecodeError:
            return None
    # Every 8-byte window, ``windows[i]`` holding bytes ``i..i+7``, as ``'S8'``: a gather of ``'S8'``
    # items copies 8 bytes each, of unaligned 64-bit words it takes a slower path.
    windows = np.ndarray(shape=(len(padded) - 7,), dtype="S8", buffer=padded, offset=0, strides=(1,))
    query_words = _field_words(windows, seps, 0)
    id_words = _field_words(windows, seps, id_column)
    number_words = _field_words(windows, seps, number_column)
    if query_words is None or id_words is None or number_words is None:
        return None
    numbers = parse_decimals(*number_words, integers)
    if numbers is None:
        return None
    queries = query_words[0]
    starts = np.flatnonzero(np.concatenate(([True], (queries[1:] != queries[:-1]).any(axis=1))))
    lengths = np.diff(np.append(starts, len(queries)))
    return Columns(_as_bytes(queries[starts]), lengths, _as_bytes(id_words[0]), numbers)


def scan_chunks(
    path: Path,
    scan: Callable[[memoryview], Columns | None],
    chunk_bytes: int = CHUNK_BYTES,
    threads: int = THREADS,
    span: tuple[int, int] | None = None,
) -> Iterator[tuple[Columns | None, int]]:
    """The file's chunks, scanned in order, each with its size in bytes; a ``None`` means the file
    is not strict (stop there).

    Chunks are scanned on ``threads`` threads while the next is read: numpy lets go of the GIL
    in its array loops, so two cores share the work. At most ``threads + 1`` chunks are in memory.
    """
    chunks = byte_chunks(path, chunk_bytes, span)
    head = list(itertools.islice(chunks, 2))
    if len(head) < 2 or threads <= 1:  # one chunk (or one thread): no pool to start
        for data in itertools.chain(head, chunks):
            yield scan(data), len(data)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=threads) as pool:
        submitted = ((pool.submit(scan, data), len(data)) for data in itertools.chain(head, chunks))
        waiting = deque(itertools.islice(submitted, threads + 1))
        while waiting:
            future, size = waiting.popleft()
            waiting.extend(itertools.islice(submitted, 1))
            yield future.result(), size


class _Column:
    """A column filled chunk by chunk into one preallocated array (grown when the estimate falls
    short or a wider id arrives). Writing straight into one large block, rather than keeping
    per-chunk pieces, keeps the reader's memory at one copy of the column: small long-lived pieces
    would pin the heap the chunk buffers are recycled through."""

    def __init__(self) -> None:
        self.array: np.ndarray | None = None
        self.size = 0

    def append(self, part: np.ndarray, expected: int) -> None:
        end = self.size + len(part)
        if self.array is None or end > len(self.array) or part.dtype.itemsize > self.array.dtype.itemsize:
            kind = part.dtype if self.array is None else np.result_type(self.array.dtype, part.dtype)
            grown = np.empty(max(expected, int(end * 1.25)), dtype=kind)
            if self.array is not None:
                grown[: self.size] = self.array[: self.size]
            self.array = grown
        self.array[self.size : end] = part
        self.size = end

    def result(self) -> np.ndarray:
        """The column as filled, its block cut to its size in place (a view of the block would keep
        the estimate's spare lines, up to a quarter more, resident for as long as the ids live)."""
        assert self.array is not None
        if len(self.array) > self.size:
            self.array.resize(self.size, refcheck=False)  # realloc: no copy, the tail handed back
        return self.array


def read_columns(
    path: Path,
    width: int,
    id_column: int,
    number_column: int,
    integers: bool,
    chunk_bytes: int = CHUNK_BYTES,
    span: tuple[int, int] | None = None,
) -> Columns | None:
    """Column 0 (query ids, kept as groups), ``id_column`` and ``number_column`` of a strict
    file (of bytes ``span`` of it); None when it is not strict, or not a regular file (the line
    reader refuses a device or a FIFO before opening it)."""
    if special_kind(path) is not None:
        return None
    file_bytes = path.stat().st_size if span is None else span[1] - span[0]
    group_ids: list[np.ndarray] = []
    group_lengths: list[np.ndarray] = []
    ids, numbers = _Column(), _Column()
    seen_bytes = 0
    scan = functools.partial(_scan, width=width, id_column=id_column, number_column=number_column, integers=integers)
    for piece, size in scan_chunks(path, scan, chunk_bytes, span=span):
        if piece is None:
            return None
        seen_bytes += size
        # Lines still to come, from the bytes per line so far (a gzip file is larger unpacked:
        # the estimate then falls short and the column grows).
        expected = int((ids.size + len(piece.ids)) * max(file_bytes / seen_bytes, 1.0) * 1.02) + 1
        group_ids.append(piece.group_ids)
        group_lengths.append(piece.group_lengths)
        ids.append(piece.ids, expected)
        numbers.append(piece.numbers, expected)
    if ids.array is None or ids.size == 0:
        return None  # no data line: the line reader says so, naming the file
    gids, glens = np.concatenate(group_ids), np.concatenate(group_lengths)
    fresh = np.concatenate(([True], gids[1:] != gids[:-1]))  # a chunk boundary can split a query's group
    if not fresh.all():
        gids, glens = gids[fresh], np.add.reduceat(glens, np.flatnonzero(fresh))
    return Columns(gids, glens, ids.result(), numbers.result())


def query_index(columns: Columns) -> tuple[list[str], np.ndarray | None, np.ndarray]:
    """Query ids in order of first appearance, each line's query index (None when the lines are
    already grouped by query, so the index is just each group repeated), and each query's count."""
    texts = [b.decode("utf-8") for b in columns.group_ids.tolist()]
    firsts, group_query = first_appearance(columns.group_ids)
    if len(firsts) == len(texts):
        return texts, None, columns.group_lengths
    line_query = np.repeat(group_query, columns.group_lengths)
    return [texts[i] for i in firsts.tolist()], line_query, np.bincount(line_query, minlength=len(firsts))
