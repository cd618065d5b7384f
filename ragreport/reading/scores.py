"""Per-query scores computed outside ragreport (``--scores FILE``): a judge's faithfulness, an LLM's
1-5 grade, a RAGAS or DeepEval column, one row per query and run.

- Any layout a run table takes (:mod:`ragreport.reading.table`): JSONL (one object per line), a
  JSON array of objects, CSV/TSV with a header row, or Parquet (``.parquet``; pyarrow, ``pip
  install "ragreport[parquet]"``, whose absence is one line naming the extra).
- The query id is under ``query_id`` or ``id``; ``run`` (optional) names the report's run the row
  scores, and may be left out when the report holds one run; ``judge`` (optional) names who made
  the scores, and the report says so.
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

from ..core.errors import InputError, shorten
from ..core.grammar import NUMBER
from .rows import parse_id, parse_score
from .table import table_rows

#: The query id's columns, the first one present read; and the optional run and judge columns.
SCORE_ID_KEYS, RUN_KEY, JUDGE_KEY = ("query_id", "id"), "run", "judge"


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
    wrong = next(((line, row) for line, row in rows if not isinstance(row, dict)), None)
    if wrong is not None:
        raise InputError(path, wrong[0], "an object per row", f"a JSON {type(wrong[1]).__name__}")
    if textual:
        return [(line, {k: v.strip() for k, v in row.items()}) for line, row in rows]
    return rows


def read_scores(path: str | Path, text: str | None = None) -> ScoreFile:
    """A score file's rows (see the module's docstring for the layout and the errors)."""
    path = Path(path)
    records = _records(path, text)
    if not records:
        raise InputError(path, None, "at least one row of scores", "an empty file")
    names: list[str] = []
    skipped: set[str] = set()  # columns opened by text: not scores
    qids: list[str] = []
    runs: list[str | None] = []
    lines: list[int] = []
    judges: dict[str, None] = {}  # in order of first appearance
    values: list[list[float]] = []
    for number, record in records:
        id_key = next((k for k in SCORE_ID_KEYS if k in record and record[k] != ""), None)
        if id_key is None:
            expected = "a query id under 'query_id' or 'id'"
            raise InputError(path, number, expected, f"columns {shorten(', '.join(map(str, record)))}")
        qid = parse_id(record[id_key], path, number, f"'{id_key}'")
        run = record.get(RUN_KEY)
        runs.append(None if run in (None, "") else parse_id(run, path, number, f"'{RUN_KEY}'"))
        judge = record.get(JUDGE_KEY)
        if judge not in (None, ""):
            judges[str(judge)] = None
        for key, value in record.items():
            if key in (*SCORE_ID_KEYS, RUN_KEY, JUDGE_KEY) or key in names or key in skipped:
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
        raise InputError(path, records[0][0], "at least one column of numeric scores", "none")
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
