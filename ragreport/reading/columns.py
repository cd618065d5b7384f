"""Which of a table's columns holds what: :class:`ColumnMap` (``--columns``), and the id a row
without one gets (``--id-from``).

``--columns id=qid,query=question,retrieved=doc_ids,relevant=gold`` names, for each role a
column may play, the column that plays it. The roles (:data:`ROLES`):

- ``id``: the query id; ``query``: the query's text;
- ``retrieved``: the ranked list of ids (a list per row), ``scores``: their scores (a list
  aligned with it; they then rank the list as a TREC run's scores do, unless ``--order file``);
- ``relevant``: the relevant ids (a list per row: the judgments, unless ``--qrels`` is given),
  ``grades``: their grades (a list aligned with it; without it each grade is 1);
- ``steps``: a multi-hop retriever's ids per step (a list of lists); read by the run's steps, not here.

A score file (``--scores``, :mod:`ragreport.reading.scores`) is mapped by ``--scores-columns``
with its own roles (:data:`SCORE_ROLES`): ``id`` and ``query`` as above, ``run`` (the report's run
a row scores) and ``judge`` (who made the scores). A flag of its own, because ``scores`` above
already means a run's retrieval scores, and a score file's score columns are every other numeric
column, not one.

A role not named keeps its default column (:data:`DEFAULTS`); a preset (``--input-format
mlflow``) gives several names for a role, the first a file has wins. The map is a frozen value, so
every reader (runs, ``--scores``) takes the same one.

A row without an id column gets one (``--id-from``, :data:`ID_FROM`):

- ``query`` (default): :func:`text_id`, a hash of its query text: the same question keeps its id
  across runs and files, so runs that carry no ids pair up by their questions;
- ``row``: ``row-1``, ``row-2``, ... in file order (the RAGAS rule): runs pair up by position.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path

from ..core.errors import InputError, UsageError, shorten

#: The roles a column may play, in the order ``--columns`` lists them.
ROLES = ("id", "query", "retrieved", "relevant", "scores", "grades", "steps")
#: The roles a score file's columns may play (``--scores-columns``).
SCORE_ROLES = ("id", "query", "run", "judge")
#: ``--id-from``: where a row without an id column gets its id.
ID_FROM = ("query", "row")


@dataclass(frozen=True)
class ColumnMap:
    """For each role (:data:`ROLES`) the names of the column that may hold it, the first present
    in a file wins; an empty tuple: the role is not read."""

    id: tuple[str, ...] = ("id", "query_id", "qid")
    query: tuple[str, ...] = ("query", "question")
    retrieved: tuple[str, ...] = ("retrieved",)
    relevant: tuple[str, ...] = ("relevant",)
    scores: tuple[str, ...] = ()
    grades: tuple[str, ...] = ()
    steps: tuple[str, ...] = ("steps",)
    run: tuple[str, ...] = ("run",)  # a score file's only
    judge: tuple[str, ...] = ("judge",)  # a score file's only
    #: The flag (or keyword) the map came from, named in the error of a column a file lacks.
    flag: str = "--columns"
    #: The roles the user named (their columns must be in every file; a default's may be absent).
    named: tuple[str, ...] = ()

    def given(self, other: ColumnMap | None) -> ColumnMap:
        """This map (a preset's) with the roles ``other`` (the user's ``--columns``) names taken from it."""
        if other is None:
            return self
        named = {f.name: getattr(other, f.name) for f in fields(self) if f.name in other.named}
        return replace(self, **named, flag=other.flag, named=tuple(sorted(set(self.named) | set(other.named))))

    def column(
        self, role: str, present: Iterable[str], path: Path | str, *, required: bool, otherwise: str = ""
    ) -> str | None:
        """The column playing ``role`` in a file whose columns are ``present``: the first of the
        role's names the file has. None when it has none and the role is not ``required`` and was
        not named by the user; else one error naming the file, the column asked for and the columns
        present."""
        have = list(present)
        names = getattr(self, role)
        found = next((name for name in names if name in have), None)
        if found is not None or not (required or role in self.named):
            return found
        asked = f"{self.flag} {role}={names[0]}" if role in self.named else f"a {role!r} column"
        if role not in self.named and names:
            asked += f" ({', '.join(repr(n) for n in names)})"
        # every column up to 20, each as repr (a name holding a newline stays on the line), cut at 40
        shown = ", ".join(shorten(str(n), 40) for n in have[:20]) + (
            f", ... ({len(have)} in all)" if len(have) > 20 else ""
        )
        expected = f"{asked}: a column of that name{otherwise}"
        raise InputError(path, None, expected, f"the columns {shown}")


def parse_columns(
    text: str | Mapping[str, str] | ColumnMap | None, flag: str = "--columns", roles: tuple[str, ...] = ROLES
) -> ColumnMap | None:
    """A :class:`ColumnMap` from ``role=column,role=column`` (``--columns``), a mapping of roles to
    columns (the Python API, a config table) or a map already made; None for None. A role not of
    ``roles``, a pair without ``=``, an empty column name or a role named twice is one error naming
    ``flag``."""
    if text is None or isinstance(text, ColumnMap):
        return text
    if isinstance(text, Mapping):
        pairs = [(str(k), v if isinstance(v, str) else repr(v)) for k, v in text.items()]
    else:
        pairs = []
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            role, eq, column = part.partition("=")
            if not eq:
                raise UsageError(f"{flag}: expected role=column pairs such as retrieved=doc_ids, got {shorten(part)}")
            pairs.append((role.strip(), column.strip()))
    if not pairs:
        raise UsageError(f"{flag}: expected at least one role=column pair, such as retrieved=doc_ids")
    named: dict[str, tuple[str, ...]] = {}
    for role, column in pairs:
        if role not in roles:
            raise UsageError(f"{flag}: unknown role {shorten(role)}: the roles are {', '.join(roles)}")
        if not column:
            raise UsageError(f"{flag}: expected a column name after {role}=, got nothing")
        if role in named:
            raise UsageError(f"{flag}: role {role!r} named twice")
        named[role] = (column,)
    return replace(ColumnMap(), **named, flag=flag, named=tuple(named))


def text_id(text: str) -> str:
    """The id of a query known by its text only: ``q-`` and the first 12 hex digits of the sha256 of
    its UTF-8 text normalised as NFC, its runs of whitespace made one space and its ends trimmed;
    the case is kept ("Paris?" and "paris?" are two questions). The same question gets the same id
    in every row, file and run."""
    normal = " ".join(unicodedata.normalize("NFC", text).split())
    return "q-" + hashlib.sha256(normal.encode("utf-8")).hexdigest()[:12]
