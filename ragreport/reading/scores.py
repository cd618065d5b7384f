"""Per-query scores computed outside ragreport (``--scores FILE``): a judge's faithfulness, an LLM's
1-5 grade, a RAGAS or DeepEval column, one row per query and run.

- Any layout a run table takes (:mod:`ragreport.reading.table`): JSONL (one object per line), a
  JSON array of objects, CSV/TSV with a header row, or Parquet (``.parquet``; pyarrow, ``pip
  install "ragreport[parquet]"``, whose absence is one line naming the extra).
- The query id is under ``query_id`` or ``id`` (a row without one: the hash of its text under
  ``query`` or ``question``, :func:`~ragreport.reading.columns.text_id`, as a run table's); ``run``
  (optional) names the report's run the row scores, and may be left out when the report holds one
  run; ``judge`` (optional) names who made the scores, and the report says so. ``--scores-columns
  id=qid,run=system,judge=model`` names the file's own columns (:data:`SCORE_COLUMNS`); a column
  it names and the file lacks, or a file with no id column, is one error naming the file, the
  column asked for and the columns present.
- Every other column whose first value is a number is a named score; a later value of it that is
  not a finite number is an error naming the line. Other columns (a question's text) are not read.

The reader checks the file alone; the rows' runs and queries are checked against the report's by
:func:`ragreport.analysis.scores.external_scores`, each error naming the line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import InputError
from ..core.grammar import NUMBER
from .columns import ColumnMap, text_id
from .jsontext import typed
from .rows import parse_id, parse_score
from .table import table_rows

#: The query id's columns, the first one present read; and the optional run and judge columns.
SCORE_ID_KEYS, RUN_KEY, JUDGE_KEY = ("query_id", "id"), "run", "judge"
#: A score file's columns by default; ``--scores-columns`` names others (:meth:`ColumnMap.given`).
SCORE_COLUMNS = ColumnMap(id=SCORE_ID_KEYS, run=(RUN_KEY,), judge=(JUDGE_KEY,), flag="--scores-columns")


@dataclass(frozen=True)
class ScoreFile:
    """The rows of a score file: ``query_ids``, ``runs`` (None where the file names none), the
    ``lines`` they came from, ``values`` (rows x ``names``), and the distinct ``judges`` named."""

    source: str
    names: tuple[str, ...]
    query_ids: tuple[str, ...]
    runs: tuple[str | None, ...]
    lines: tuple[int, ...]
    values: np.ndarray
    judges: tuple[str, ...]


def _is_number(value: Any) -> bool:
    """Whether a value opens a score column: a JSON number, or text in the number grammar."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float)) or (isinstance(value, str) and NUMBER.fullmatch(value.strip()) is not None)


def _records(path: Path, text: str | None) -> list[tuple[int, dict[str, Any]]]:
    """(line, row) of every row, read as a run table is (:func:`~ragreport.reading.table.table_rows`);
    a CSV/TSV's cells with their blanks trimmed."""
    rows, textual = table_rows(path, text)
    for line, row in rows:
        typed(row, dict, path, line, "an object per row")
    if textual:  # in place: a second list of every row would double the file's peak
        for _, row in rows:
            for key, value in row.items():
                row[key] = value.strip()
    return rows


def read_scores(path: str | Path, text: str | None = None, columns: ColumnMap | None = None) -> ScoreFile:
    """A score file's rows (see the module's docstring for the layout and the errors); ``columns``
    (``--scores-columns``) names the id, query, run and judge columns where the file's own names
    differ from the defaults."""
    path = Path(path)
    records = _records(path, text)
    if not records:
        raise InputError(path, None, "at least one row of scores", "an empty file")
    mapped = SCORE_COLUMNS.given(columns)
    present = list(dict.fromkeys(key for _, record in records for key in record))  # every row's, in order
    query_col = mapped.column("query", present, path, required=False)
    # a row without an id may be known by its text, unless the user named the id column
    texts = "" if "id" in mapped.named else f" (or a query's text: {' or '.join(map(repr, mapped.query))})"
    id_col = mapped.column("id", present, path, required=query_col is None, otherwise=texts)
    run_col, judge_col = (mapped.column(role, present, path, required=False) for role in ("run", "judge"))
    # Not scores: the roles' columns, and the default names of each (a numeric 'id' is no score).
    roles = {c for c in (id_col, query_col, run_col, judge_col) if c is not None}
    # A column with no name is no score: the row number pandas' to_csv writes first by default.
    reserved = roles | {*SCORE_ID_KEYS, RUN_KEY, JUDGE_KEY, ""}
    names: list[str] = []
    skipped: set[str] = set()  # columns opened by text: not scores
    qids: list[str] = []
    runs: list[str | None] = []
    lines: list[int] = []
    judges: dict[str, None] = {}  # in order of first appearance
    values: list[list[float]] = []
    first_line = records[0][0]
    records.reverse()  # popped from the end, in file order: each row let go once read, not held to the end
    while records:
        number, record = records.pop()
        key = id_col if id_col is not None and record.get(id_col) not in (None, "") else query_col
        if key is None or record.get(key) in (None, ""):
            under = " or ".join(repr(c) for c in (id_col, query_col) if c is not None)
            raise InputError(path, number, f"a query id (or its text) under {under}", "none")
        qid = parse_id(record[key], path, number, f"{key!r}") if key == id_col else text_id(str(record[key]))
        run = None if run_col is None else record.get(run_col)
        runs.append(None if run in (None, "") else parse_id(run, path, number, f"{run_col!r}"))
        judge = None if judge_col is None else record.get(judge_col)
        if judge not in (None, ""):
            judges[str(judge)] = None
        for key, value in record.items():
            if key in reserved or key in names or key in skipped:
                continue
            if _is_number(value):
                names.append(key)
            else:
                skipped.add(key)
        row = [parse_score(record.get(name, ""), path, number, f"{name!r} of query {qid!r}") for name in names]
        qids.append(qid)
        lines.append(number)
        values.append(row)
    if not names:
        raise InputError(path, first_line, "at least one column of numeric scores", "none")
    # A column first seen on a later row is missing from the rows before it: refused there.
    first_short = next((i for i, row in enumerate(values) if len(row) < len(names)), None)
    if first_short is not None:
        name = names[len(values[first_short])]
        raise InputError(path, lines[first_short], f"a numeric score {name!r} of query {qids[first_short]!r}", "none")
    return ScoreFile(
        str(path),
        tuple(names),
        tuple(qids),
        tuple(runs),
        tuple(lines),
        np.array(values, dtype=np.float64).reshape(len(values), len(names)),
        tuple(judges),
    )
