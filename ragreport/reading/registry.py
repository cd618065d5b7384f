"""The input formats, detection among them, and loading: runs and qrels read in the format found.

:data:`READERS` is the one list of formats: ``--input-format``'s choices (:data:`FORMATS`, in this
order), the names detection may return, and the readers loading calls. A new format is a module
declaring a :class:`~ragreport.reading.reader.Reader` and one line here. What a reader returns
must have come through the gate (:mod:`ragreport.reading.gate`): it is refused otherwise.

Detection (:func:`detect_format`): a name ending (``.gz`` aside) decides first; else the file's
first data line and, when it must, its whole text: each reader's ``sniff`` is asked in this
order and the first to claim the file wins; a file none claims is in the catch-all format (TREC).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..core.errors import Argument, ArgumentError, InputError, UsageError, os_text, warn
from ..core.model import Judgments, Order, Run
from . import delimited, irds, jsonl, jsonmap, presets, trec
from .columns import ID_FROM, ColumnMap, parse_columns
from .files import HEAD, bare_name, first_data_line, head_text, raw_bytes, read_text
from .gate import require
from .memory import SINGLE_NAME, is_in_memory, judgments_from_object, named_inputs, run_from_object
from .meta import check_meta_count, check_unique_names, load_meta, meta_for, run_name
from .reader import Reader
from .table import read_table, table_rows

#: Every format, in the order ``--input-format`` lists them and detection asks them. JSONL comes
#: before JSON: a file of one JSON object is JSONL when that object is a query's line. The
#: functions below read this tuple when called, never a copy made at import.
READERS: tuple[Reader, ...] = (
    jsonl.READER,
    trec.READER,
    jsonmap.READER,
    delimited.READER,
    delimited.MSMARCO,
    *presets.PRESETS,
)
#: The formats' names: ``--input-format``'s choices.
FORMATS = tuple(reader.name for reader in READERS)

#: ``--labels``: whose labels score a run that carries its own (RAG JSONL ``relevant``) when
#: ``--qrels`` is given too: the qrels' (the run's own set aside, with one note) or the run's own.
LABELS = ("qrels", "own")

#: What qrels may be, in the error that refuses a format holding none.
_QRELS = "qrels as TREC lines, BEIR TSV or a JSON object"


def check_input_format(input_format: str | None) -> None:
    """``--input-format`` names a format of the registry (or is not given)."""
    names = [reader.name for reader in READERS]
    if input_format is not None and input_format not in names:
        raise ArgumentError(Argument("input_format"), f" must be one of {', '.join(names)}, got {input_format!r}")


def reader_for(input_format: str) -> Reader:
    """The reader of a format named by :data:`FORMATS`."""
    check_input_format(input_format)
    return next(reader for reader in READERS if reader.name == input_format)


def catch_all() -> Reader:
    """The format of a file no reader's sniff claims (TREC)."""
    return next(reader for reader in READERS if reader.sniff is None)


def _by_extension(path: Path) -> Reader | None:
    name = bare_name(path).lower()
    return next((reader for reader in READERS if name.endswith(reader.extensions)), None)


def _by_content(path: Path, text: str, what: str, complete: bool) -> Reader | None:
    """The reader whose sniff claims ``text`` first, else the catch-all; None when ``text`` is a
    head (not ``complete``) and a sniff needs the whole text to tell."""
    first = first_data_line(text)
    if first is None:
        raise InputError(path, None, f"at least one {what}", "an empty file")
    for reader in READERS:
        if reader.sniff is not None:
            claimed = reader.sniff(first[1], text, complete)
            if claimed is None and not complete:
                return None
            if claimed:
                return reader
    return catch_all()


def detect_format(path: str | Path, text: str, what: str = "run line") -> str:
    """The format of a file whose whole text is ``text``: from its name (``.gz`` aside), else from
    its content (see the module). ``what`` names a line of the file in the error an empty file gets."""
    path = Path(path)
    reader = _by_extension(path) or _by_content(path, text, what, complete=True)
    assert reader is not None  # a complete text always decides
    return reader.name


def detect_file_format(path: str | Path, what: str = "run line") -> tuple[str, str | None]:
    """The file's format (see :func:`detect_format`) from its head, and its whole text when that
    had to be read to decide (a JSON file) or the head is the whole file; else None."""
    path = Path(path)
    head = raw_bytes(path, HEAD + 1)
    if len(head) > HEAD:
        found = _by_extension(path) or _by_content(path, head_text(head), what, complete=False)
        if found is not None:
            return found.name, None
    text = read_text(path)
    return detect_format(path, text, what), text


def load_qrels(path: str | Path, input_format: str | None = None, flag: str = "--qrels") -> Judgments:
    """Judgments from qrels in any format that holds them (TREC qrels, BEIR TSV, a JSON
    ``{qid: {docid: grade}}`` object), detected unless ``input_format`` names it; ``irds:ID``, a
    dataset's through ir_datasets (:mod:`ragreport.reading.irds`), its errors naming ``flag``."""
    dataset = irds.dataset_id(path)
    if dataset is not None:
        return irds.read_qrels(dataset, flag)
    path = Path(path)
    text: str | None = None
    if input_format is None:
        input_format, text = detect_file_format(path, "judgment line")
    reader = reader_for(input_format)
    if reader.read_qrels is None:
        raise InputError(path, None, _QRELS, reader.label)
    judgments = reader.read_qrels(path, text)
    if judgments is None:  # not this format after all: the catch-all's (TREC qrels in a .tsv file)
        reader = catch_all()
        assert reader.read_qrels is not None  # the catch-all reads qrels
        judgments = reader.read_qrels(path, text)
    assert judgments is not None
    require(judgments, reader.name, "judgments")
    return judgments


@dataclass(frozen=True)
class LoadedRun:
    """A run with the judgments it is to be scored against."""

    run: Run
    judgments: Judgments


def sample_path() -> Path:
    """The preloaded sample's JSONL file, inside the installed package."""
    # Imported only here: it costs a noticeable share of a small run's time.
    from importlib import resources

    return Path(str(resources.files("ragreport") / "sample" / "sample.jsonl"))


def load_runs(
    inputs: Sequence[str | Path],
    *,
    qrels: str | Path | None = None,
    metas: Sequence[str | Path] = (),
    input_format: str | None = None,
    order: Order = Order.SCORE,
    labels: str = "qrels",
    columns: str | Mapping[str, str] | ColumnMap | None = None,
    id_from: str = "query",
) -> list[LoadedRun]:
    """Load every input run with its judgments and metadata; the preloaded sample when ``inputs`` is empty.

    Parameters
    ----------
    inputs : sequence of paths
        The run files (TREC runs, RAG JSONL, JSON, CSV, optionally gzipped).
    qrels : path, optional
        The judgments for every run; without them each run's own (RAG JSONL).
    metas : sequence of paths, default ()
        One metadata file per input, in order; default ``RUN.meta.toml`` / ``RUN.meta.json``
        beside each run.
    input_format : str, optional
        A name of :data:`FORMATS`, instead of detecting each file's format.
    order : Order, default Order.SCORE
        How each query's ids are ordered.
    labels : {"qrels", "own"}, default "qrels"
        With ``qrels``, whose labels score a run that carries its own (:func:`load_inputs`).
    columns : str, mapping or ColumnMap, optional
        Read each run as a table of these columns (:mod:`ragreport.reading.table`).
    id_from : {"query", "row"}, default "query"
        The id of a table row without one (:mod:`ragreport.reading.columns`).

    Returns
    -------
    list of LoadedRun
        Each run with its judgments, in order. A run is named by its metadata ``name``, else its
        file stem; names must be unique.

    Raises
    ------
    ragreport.core.errors.InputError
        A file that cannot be read as what it was given as.
    ragreport.core.errors.UsageError
        Two runs of one name, or a count of ``metas`` that is not one per run.

    Examples
    --------
    >>> [(loaded.run.name, len(loaded.judgments.query_ids)) for loaded in load_runs([])]
    [('sample', 10)]
    """
    return load_inputs(
        list(inputs),
        qrels=qrels,
        metas=metas,
        input_format=input_format,
        order=order,
        labels=labels,
        columns=columns,
        id_from=id_from,
    )


def load_run_file(
    path: Path,
    shared: Judgments | None,
    meta_path: str | Path | None = None,
    input_format: str | None = None,
    order: Order = Order.SCORE,
    name: str | None = None,
    labels: str = "qrels",
    columns: ColumnMap | None = None,
    id_from: str = "query",
) -> tuple[LoadedRun, int]:
    """One run file with its judgments, and how many of its rows carried labels that were set aside.

    The judgments are ``shared`` when given, else the file's own (RAG JSONL); a file that carries
    its own beside ``shared`` is scored against its own when ``labels`` is ``own``, else against
    ``shared``, its own set aside (counted for the caller's note). It is named ``name`` when
    given, else by its metadata's ``name``, else by its file's stem."""
    if Path(path).is_dir():  # only a run may be a folder: of partition files, for the other engines
        raise InputError(path, None, "a file (a folder of partition files needs --engine stream or dask)", "a folder")
    if columns is None or input_format is not None:
        fmt, text = (input_format, None) if input_format else detect_file_format(path)
        reader = reader_for(fmt)
        table = reader.table
    else:  # a table of the user's own columns: any layout
        fmt, text, table = "table", None, (ColumnMap(), table_rows)
    if table is not None:
        run, own = read_table(path, table[0].given(columns), order, shared is None, id_from, text, table[1])
    else:
        read = reader.read_run if input_format or reader.read_detected is None else reader.read_detected
        run, own = read(path, text, order, shared is None)
    require(run, fmt, "a run")  # its ids passed the gate (reading/gate.py)
    if own is not None:
        require(own, fmt, "judgments")
    judgments = own if own is not None and (shared is None or labels == "own") else shared
    if judgments is None:
        raise UsageError(f"{path}: a {fmt.upper()} run needs judgments: give them with --qrels FILE")
    meta = meta_for(path, meta_path)
    if run.meta.extra:  # what the reader says of its reading (ranks read from a third column) shows beside the file's
        meta = replace(meta, extra=meta.extra + run.meta.extra)
    set_aside = len(own.query_ids) if own is not None and judgments is not own else 0
    return LoadedRun(run.with_meta(meta, name or run_name(meta, path)), judgments), set_aside


def load_inputs(
    inputs: Any,
    *,
    qrels: Any = None,
    metas: Sequence[str | Path] = (),
    input_format: str | None = None,
    order: Order = Order.SCORE,
    labels: str = "qrels",
    columns: str | Mapping[str, str] | ColumnMap | None = None,
    id_from: str = "query",
) -> list[LoadedRun]:
    """Every run with its judgments, from paths, in-memory runs or a mapping of names to either
    (:func:`~ragreport.reading.memory.named_inputs`), judgments (``qrels``) from a path or in memory;
    the preloaded sample when ``inputs`` is empty. Everything is read and checked before anything is
    scored. ``metas`` (one per run, in order) apply to in-memory runs too. Names must be unique; an
    in-memory run needs ``qrels``.

    ``labels`` (:data:`LABELS`) says which labels score a run file that carries its own (RAG JSONL
    ``relevant``, on every row) when ``qrels`` is given too. ``qrels``: the qrels win, every such
    file's own are set aside, and one :class:`~ragreport.core.errors.RagreportWarning` names the files and their
    rows. ``own``: each such run is scored against its own rows' labels, and ``qrels`` only the runs
    that carry none (without ``qrels`` those are refused, as always). Without ``qrels`` the two are
    the same: each run's own. Runs scored against different label sets are compared only on the
    queries they judge alike (:func:`~ragreport.analysis.compare.pair_queries`).

    ``columns`` (:func:`~ragreport.reading.columns.parse_columns`) and ``id_from``
    (:data:`~ragreport.reading.columns.ID_FROM`) read run files as tables (:func:`load_run_file`).
    ``qrels`` are read in the run's format when it is a preset that reads judgments (LlamaIndex's
    dataset, a ``_rank_eval`` request), else in the format found."""
    if id_from not in ID_FROM:
        raise ArgumentError(Argument("id_from"), f" must be one of {', '.join(ID_FROM)}, got {id_from!r}")
    column_map = parse_columns(columns, "columns")
    if column_map is not None and input_format is not None and reader_for(input_format).table is None:
        names = ", ".join(r.name for r in presets.PRESETS)
        raise ArgumentError(
            Argument("columns"),
            " reads a table of ids: leave out ",
            Argument("input_format", input_format),
            f" or name a preset ({names})",
        )
    if qrels is not None and not isinstance(qrels, (str, os.PathLike)) and not is_in_memory(qrels):
        raise ArgumentError(
            Argument("qrels"),
            f" must be a path, a mapping {{query_id: {{doc_id: grade}}}} or a data frame, got a {type(qrels).__name__}",
        )
    if labels not in LABELS:
        raise ArgumentError(Argument("labels"), f" must be one of {', '.join(LABELS)}, got {labels!r}")
    pairs = [] if isinstance(inputs, (list, tuple)) and not inputs else named_inputs(inputs)
    check_meta_count(metas, len(pairs) or 1)
    if all(name is None and isinstance(item, (str, Path)) for name, item in pairs) and not is_in_memory(qrels):
        check_input_format(input_format)  # files alone: before the judgments are read
    shared: Judgments | None = None
    if qrels is not None:
        preset = next((r for r in presets.PRESETS if r.name == input_format and r.read_qrels is not None), None)
        shared = (
            judgments_from_object(qrels) if is_in_memory(qrels) else load_qrels(qrels, preset.name if preset else None)
        )
        require(shared, "in-memory", "judgments")
    loaded = []
    set_aside: list[str] = []  # each file whose own labels the qrels overrule, with its rows
    for i, (name, item) in enumerate(pairs or [(None, sample_path())]):
        meta = metas[i] if metas else None
        if isinstance(item, (str, Path)):
            run_file, rows = load_run_file(
                Path(item), shared, meta, input_format, order, name, labels, column_map, id_from
            )
            loaded.append(run_file)
            if rows:
                set_aside.append(f"{os_text(str(item))} ({rows:,} {'row' if rows == 1 else 'rows'})")
            continue
        run_meta = load_meta(meta) if meta is not None else None
        name = name or (run_meta.name if run_meta is not None else None) or f"{SINGLE_NAME}-{i + 1}"
        if shared is None:
            raise UsageError(
                f"run {name!r} is in memory and carries no judgments: give them as qrels= "
                "(a path, a mapping {query_id: {doc_id: grade}} or a data frame)"
            )
        run = run_from_object(item, name, order)
        require(run, "in-memory", "a run")
        if run_meta is not None:
            run = run.with_meta(run_meta, name)
        loaded.append(LoadedRun(run, shared))
    if not pairs:  # an install path would make the report differ between machines
        sample = replace(loaded[0].run, source="preloaded sample (ragreport/sample/sample.jsonl)")
        loaded = [LoadedRun(sample, loaded[0].judgments)]
    check_unique_names((item.run.name, item.run.source) for item in loaded)
    if set_aside:  # said once, for every file: the labels scored are the qrels', as asked
        assert shared is not None  # a file's own are set aside only beside the qrels
        warn(
            f"the 'relevant' labels of {', '.join(set_aside)} are set aside: every run is scored against "
            f"{os_text(str(shared.source or 'the qrels'))} (",
            Argument("labels", "own"),
            " scores a run against its own)",
        )
    return loaded
