"""Run metadata (``RUN.meta.toml`` / ``RUN.meta.json``, or ``--meta FILE``), and run names.

Metadata is TOML (a ``.toml`` name) or a JSON object. Known keys are validated: ``name``,
``retriever``, ``judge``, ``notes`` (text); ``date`` (ISO 8601); ``label_source`` (``human`` |
``model``); ``judge_error_rate`` (0..1); ``pool_depth`` (a positive integer); ``retriever_kind``
(``single`` | ``multi-hop`` | ``agentic``). Any other key is kept as given, as long as
report.json can hold it: numbers finite (NaN and infinities are refused with the file and line,
not stored as text), lists and tables nested at most :data:`META_DEPTH` levels.

A run is named by its metadata's ``name``, else its file's stem, and names must be unique. The
checks every way of scoring runs makes (one ``--meta`` per run; unique names) are here, once.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from ..core.errors import Argument, ArgumentError, InputError, UsageError, shorten
from ..core.model import META_KEYS, LabelSource, RetrieverKind, RunMeta
from .files import SMALL_FILE, bare_name, read_text, special_kind, stem
from .jsontext import depth, load_json_object, non_finite

#: How deeply a metadata value may nest lists and tables: report.json and the pages hold it as given.
META_DEPTH = 32


def _meta_line(text: str, key: str, is_toml: bool) -> int | None:
    pattern = rf'^[ \t]*(\[+[ \t]*)?"?{re.escape(key)}"?\s*(=|\])' if is_toml else rf'"{re.escape(key)}"\s*:'
    match = re.search(pattern, text, flags=re.MULTILINE)
    return None if match is None else text.count("\n", 0, match.start()) + 1


def toml_reader() -> ModuleType:
    """The TOML reader (``tomllib``, or ``tomli`` on Python 3.10), imported when a TOML file is read
    (scoring alone never needs it): run metadata here, the config file in ``ragreport/config.py``."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 (tomli is a dependency there)
        import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]
    return tomllib


def load_meta(path: str | Path) -> RunMeta:
    """Run metadata from TOML (``.toml``) or JSON, with the known keys validated (see the module)."""
    path = Path(path)
    text = read_text(path, SMALL_FILE)
    is_toml = bare_name(path).lower().endswith(".toml")
    if is_toml:
        try:
            data = toml_reader().loads(text)
        except toml_reader().TOMLDecodeError as exc:
            match = re.search(r"line (\d+)", str(exc))
            raise InputError(path, int(match.group(1)) if match else None, "valid TOML metadata", str(exc)) from None
        except RecursionError:
            raise InputError(path, None, "TOML nested less deeply", "nesting deeper than the parser goes") from None
    else:
        data = load_json_object(path, text, "a metadata object")

    def fail(key: str, expected: str, value: Any, got: str | None = None) -> InputError:
        shown = got or shorten(value if isinstance(value, str) else json.dumps(value, default=str))
        return InputError(path, _meta_line(text, key, is_toml), f"metadata '{key}' {expected}", shown)

    known: dict[str, Any] = {}
    for key in ("name", "retriever", "judge", "notes"):
        if key in data:
            if not isinstance(data[key], str):
                raise fail(key, "as text", data[key])
            known[key] = data[key]
    if "name" in known and not known["name"].strip():
        raise fail("name", "as non-empty text", known["name"])
    if "date" in data:  # TOML dates and date-times arrive parsed
        known["date"] = data["date"] if isinstance(data["date"], _dt.date) else _parse_date(data["date"])
        if known["date"] is None:
            raise fail("date", "as an ISO 8601 date (2026-11-30)", data["date"])
    for key, enum in (("label_source", LabelSource), ("retriever_kind", RetrieverKind)):
        if key in data:
            try:
                known[key] = enum(data[key])
            except ValueError:
                raise fail(key, "to be one of " + ", ".join(m.value for m in enum), data[key]) from None
    if "judge_error_rate" in data:
        rate = data["judge_error_rate"]
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0.0 <= rate <= 1.0:
            raise fail("judge_error_rate", "as a number from 0 to 1", rate)
        known["judge_error_rate"] = float(rate)
    if "pool_depth" in data:
        pool = data["pool_depth"]
        if isinstance(pool, bool) or not isinstance(pool, int) or pool < 1:
            raise fail("pool_depth", "as a positive integer", pool)
        known["pool_depth"] = pool
    for key, value in data.items():  # every value must be writable into report.json as it is
        if depth(value) > META_DEPTH:
            raise fail(key, f"nested at most {META_DEPTH} levels", value, f"{depth(value)} levels")
        if non_finite(value) is not None:
            raise fail(key, "with finite numbers", value, str(non_finite(value)))
    extra = tuple((k, v) for k, v in data.items() if k not in META_KEYS)
    return RunMeta(**known, extra=extra, source=str(path))


def _parse_date(value: Any) -> _dt.date | None:
    """An ISO 8601 date, or date and time, from text; None for anything else."""
    parsers: tuple[Callable[[str], _dt.date], ...] = (_dt.date.fromisoformat, _dt.datetime.fromisoformat)
    for parse in parsers if isinstance(value, str) else ():
        with contextlib.suppress(ValueError):
            return parse(value.strip().replace("Z", "+00:00"))
    return None


def find_meta(run_path: str | Path) -> Path | None:
    """``RUN.meta.toml`` or ``RUN.meta.json`` beside the run (RUN with or without its extension)."""
    run_path = Path(run_path)
    bare = bare_name(run_path)
    stems = [bare.rsplit(".", 1)[0], bare] if "." in bare else [bare]
    for candidate in (run_path.with_name(s + suffix) for s in stems for suffix in (".meta.toml", ".meta.json")):
        if candidate.is_file() or special_kind(candidate):  # a FIFO by the name is refused, not passed over
            return candidate
    return None


def check_meta_count(metas: Sequence[str | Path], runs: int) -> None:
    """``--meta`` is given for every run or for none: metadata is matched to runs by position."""
    if metas and len(metas) != runs:
        raise ArgumentError(
            Argument("metas"), f" was given {len(metas)} time(s) for {runs} run(s); give one per run, in order"
        )


def meta_for(run_path: str | Path, given: str | Path | None = None) -> RunMeta:
    """The run's metadata: from ``given`` (its ``--meta``), else from the file beside the run,
    else none."""
    meta_path = Path(given) if given is not None else find_meta(run_path)
    return load_meta(meta_path) if meta_path is not None else RunMeta()


def run_name(meta: RunMeta | None, run_path: str | Path) -> str:
    """The run's name: its metadata's ``name``, else its file's stem."""
    return (meta.name if meta is not None and meta.name else None) or stem(Path(run_path))


def check_unique_names(runs: Iterable[tuple[str, str]]) -> None:
    """Runs are told apart by name (in the report, as ``--baseline``): (name, source) pairs must
    not repeat a name."""
    sources: dict[str, str] = {}
    for name, source in runs:
        if name in sources:
            raise UsageError(
                f"two runs are named {name!r} ({sources[name]} and {source}); "
                "set 'name' in their metadata or rename a file"
            )
        sources[name] = source
