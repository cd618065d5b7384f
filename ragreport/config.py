"""One config file: every option of a command as a key of a TOML file, under the command line.

docs/config.md says which file is read (``--config FILE``, else ``ragreport.toml``, else the
``[tool.ragreport]`` table of ``pyproject.toml``; sources never merge), how keys are spelt and how
tables named after a command sit over the shared keys. The keys are derived from the command parser
(nothing here names an option): a value goes through the option's own type and choices, as on the
command line; an option whose metavar names a file or folder (``FILE``, ``DIR``, ``PATH``,
``INPUT``, ``..._JSON``) holds a path, read relative to the config file's folder. Every problem of
the file is reported at once, one line each with the key's line; then the command stops (exit 2)
before reading any run.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import difflib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from .core.errors import InputError, UsageError, shorten
from .reading.files import SMALL_FILE, read_text, special_kind
from .reading.meta import toml_reader

#: The config file looked for in the working directory, and the file whose table stands in for it.
CONFIG_FILE = "ragreport.toml"
PYPROJECT = "pyproject.toml"
PYPROJECT_TABLE = ("tool", "ragreport")
#: Keys of positional arguments, by their dest (a positional not listed is keyed by its dest).
POSITIONAL_KEYS = {"inputs": "runs"}
#: An option holds a path when its metavar ends with one of these.
PATH_METAVARS = ("FILE", "DIR", "PATH", "INPUT", "JSON")
#: Where a resolved setting came from.
FROM_COMMAND_LINE = "command line"
FROM_FILE = "config file"
FROM_DEFAULT = "default"
#: The options that choose the file: never keys of it.
_OWN = ("config", "no_config")


class ConfigError(UsageError):
    """Every problem of a config file, one ``FILE:LINE: ...`` line each."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


class Settings(argparse.Namespace):
    """The arguments exactly as argparse gives them (equal to a Namespace of the same values);
    where each came from is kept aside, out of the attributes, for :func:`resolved_settings`."""

    __slots__ = ("_resolution",)


@dataclass(frozen=True)
class _Resolution:
    command: str
    config: str | None
    #: (key, dest, source) per option of the command, in the parser's order.
    options: tuple[tuple[str, str, str], ...]


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    """``--config FILE`` and ``--no-config``, before the command and after every command defined so far."""
    for target, sub in ((parser, False), *((command, True) for command in _commands(parser).values())):
        group = target.add_argument_group("config file")
        # After the command, an option left out must not hide one given before it.
        group.add_argument(
            "--config",
            metavar="FILE",
            default=argparse.SUPPRESS if sub else None,
            help=f"read the settings from FILE only (default: ./{CONFIG_FILE}, else [tool.ragreport] in "
            f"./{PYPROJECT}); the command line wins over it; paths in it are relative to its folder",
        )
        group.add_argument(
            "--no-config", action="store_true", default=argparse.SUPPRESS if sub else False, help="read no config file"
        )


# ---------------------------------------------------------------------------------------------
# The options of a parser, as keys


@dataclass(frozen=True)
class Option:
    """One option of a command as a config key."""

    key: str  #: the canonical spelling (underscores)
    action: argparse.Action

    @property
    def dest(self) -> str:
        return self.action.dest

    @property
    def is_path(self) -> bool:
        metavar = self.action.metavar
        return isinstance(metavar, str) and metavar.upper().endswith(PATH_METAVARS)

    @property
    def flag(self) -> str:
        """The option as the command line names it, for messages."""
        longest = max(self.action.option_strings, key=len, default=None)
        return longest or self.key


def _norm(key: str) -> str:
    return key.replace("-", "_")


def options_of(parser: argparse.ArgumentParser) -> dict[str, Option]:
    """Every option of a command by each of its spellings (underscores), in the parser's order."""
    found: dict[str, Option] = {}
    for action in parser._actions:
        skipped = isinstance(action, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction))
        if skipped or action.dest in _OWN or action.dest == argparse.SUPPRESS:
            continue
        if action.option_strings:
            names = [_norm(s.lstrip("-")) for s in action.option_strings if s.startswith("--")] or [action.dest]
        else:
            names = [POSITIONAL_KEYS.get(action.dest, action.dest)]
        option = Option(names[0], action)
        for name in names:
            found[name] = option
    return found


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Every command's parser by name (the name goes to ``args.command``)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


# ---------------------------------------------------------------------------------------------
# Values


class _Wrong(Exception):
    """A value an option does not take; the text says what it takes."""


def _toml_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_text(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key} = {_toml_text(item)}" for key, item in value.items()) + "}"
    if isinstance(value, (_dt.date, _dt.time)):  # datetime is a date
        return value.isoformat()
    return str(value)


def _shown(value: Any) -> str:
    """A found value as TOML writes it ("ten", true, [10, "x"], 2026-12-01), cut to one short line."""
    return shorten(_toml_text(value), quote=False)


#: What a type callable that raises no message of its own takes.
_NAMED: dict[Any, str] = {int: "an integer", float: "a number"}


def _expected(option: Option, exc: Exception) -> str:
    """What the option takes, from the error its type raised: its own "expected ..." when it says so."""
    if isinstance(exc, argparse.ArgumentTypeError):
        message = str(exc)
        message = message.rpartition(", got ")[0] or message  # the config file shows what it found
        return message.removeprefix("expected ")
    return _NAMED.get(option.action.type, f"a value {option.flag} takes")


def _takes(option: Option) -> str:
    """What the option takes: its choices, a string, or what its type says of an empty value."""
    action = option.action
    if action.choices is not None:
        return "one of " + ", ".join(_shown(c) for c in action.choices)
    if not callable(action.type):
        return "a string"
    try:
        action.type("")
    except (argparse.ArgumentTypeError, TypeError, ValueError) as exc:
        return _expected(option, exc)
    return f"a value {option.flag} takes"


def _typed(option: Option, text: str) -> Any:
    """``text`` through the option's type and choices, as argparse would take it from the command line."""
    action = option.action
    value: Any = text
    if callable(action.type):
        try:
            value = action.type(text)
        except (argparse.ArgumentTypeError, TypeError, ValueError) as exc:
            raise _Wrong(_expected(option, exc)) from None
    if action.choices is not None and value not in action.choices:
        raise _Wrong(_takes(option))
    return value


def _under(folder: Path, text: str) -> str:
    """A path of the config file, relative to its folder (an absolute path as it is, and an
    ir_datasets id, ``irds:ID``, which is no path)."""
    if not text or os.path.isabs(text) or str(folder) in ("", ".") or text.startswith("irds:"):
        return text
    return os.path.join(folder, text)


def _scalar(item: Any) -> bool:
    return isinstance(item, (str, int, float)) and not isinstance(item, bool)


def _one(option: Option, item: Any, folder: Path) -> Any:
    """One value: a string, or a number when the option has a type that reads it."""
    if not _scalar(item) or (option.action.type is None and not isinstance(item, str)):
        raise _Wrong(_takes(option))
    text = item if isinstance(item, str) else str(item)
    return _typed(option, _under(folder, text) if option.is_path else text)


def convert(option: Option, value: Any, folder: Path) -> Any:
    """The config file's ``value`` as the command line's parse would give it, else :class:`_Wrong`:
    true or false for a switch (``--x/--no-x``: as given) or a flag (true: the option given), a whole
    number for a count, a value or a list of them for an option of several values, else one value."""
    action = option.action
    if isinstance(action, (argparse.BooleanOptionalAction, argparse._StoreConstAction, argparse._AppendConstAction)):
        if not isinstance(value, bool):
            raise _Wrong("true or false")
        if isinstance(action, argparse.BooleanOptionalAction):
            return value
        const = [action.const] if isinstance(action, argparse._AppendConstAction) else action.const
        return const if value else action.default
    if isinstance(action, argparse._CountAction):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise _Wrong("a whole number from 0 up")
        return value
    if isinstance(action, argparse._AppendAction) or action.nargs in ("*", "+") or isinstance(action.nargs, int):
        items = value if isinstance(value, list) else [value]
        try:
            converted = [_one(option, item, folder) for item in items]
        except _Wrong as exc:
            raise _Wrong(f"{exc}, or a list of them") from None
        wanted = action.nargs if isinstance(action.nargs, int) else None
        if (wanted is not None and len(converted) != wanted) or (action.nargs == "+" and not converted):
            raise _Wrong(f"a list of {wanted} values" if wanted is not None else "a list of at least one value")
        return converted
    if isinstance(value, list):  # a list for one value: as the command line writes it, comma-separated
        if action.type is None or not value or not all(_scalar(item) for item in value):
            raise _Wrong(_takes(option))
        return _typed(option, ",".join(str(item) for item in value))
    return _one(option, value, folder)


# ---------------------------------------------------------------------------------------------
# The file


@dataclass(frozen=True)
class ConfigFile:
    """A config file read: its path (as found or given), the table holding the settings and its text."""

    path: Path
    table: tuple[str, ...]
    settings: dict[str, Any]
    text: str


def _load(path: Path, *, pyproject: bool, given: bool) -> ConfigFile | None:
    text = read_text(path, SMALL_FILE)
    toml = toml_reader()
    try:
        data = toml.loads(text)
    except (toml.TOMLDecodeError, ValueError) as exc:  # ValueError: an integer of thousands of digits
        if pyproject and not given and "tool.ragreport" not in text:
            return None  # someone else's broken pyproject.toml is not ours to refuse
        match = re.search(r"line (\d+)", str(exc))
        raise InputError(path, int(match.group(1)) if match else None, "valid TOML", str(exc)) from None
    except RecursionError:
        raise InputError(path, None, "TOML nested less deeply", "nesting deeper than the parser goes") from None
    if pyproject:
        for part in PYPROJECT_TABLE:
            data = data.get(part) if isinstance(data, dict) else None
        if data is None:
            if given:
                raise InputError(path, None, "a [tool.ragreport] table", "none")
            return None
        if not isinstance(data, dict):
            line = _line_of(text, PYPROJECT_TABLE[:-1], PYPROJECT_TABLE[-1])
            raise InputError(path, line, "[tool.ragreport] as a table", _shown(data))
    return ConfigFile(path, PYPROJECT_TABLE if pyproject else (), data, text)


def find_config(given: str | None = None, folder: str | Path = ".") -> ConfigFile | None:
    """The config file in force: ``given`` (``--config``), else ``ragreport.toml`` in ``folder``,
    else ``[tool.ragreport]`` of ``pyproject.toml`` there; None when there is none."""
    if given is not None:
        path = Path(given)
        return _load(path, pyproject=path.name == PYPROJECT, given=True)
    for path in (Path(folder) / CONFIG_FILE, Path(folder) / PYPROJECT):
        # a device or a FIFO by the name is refused (by _load), not silently passed over
        if path.is_file() or special_kind(path):
            return _load(path, pyproject=path.name == PYPROJECT, given=False)
    return None


_HEADER = re.compile(r"^\s*\[\[?([^\[\]]+)\]\]?\s*(#.*)?$")


def _line_of(text: str, table: tuple[str, ...], key: str | None) -> int | None:
    """The 1-based line of ``key`` in ``table`` (or of the table's header, when ``key`` is None):
    a line scan, enough for the usual layouts (a dotted key or an inline table is not found)."""
    current: tuple[str, ...] = ()
    wanted = None if key is None else re.compile(rf"""^\s*(["']?){re.escape(key)}\1\s*=""")
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            current = tuple(part.strip().strip("\"'") for part in header.group(1).split("."))
            if wanted is None and current == table:
                return number
            continue
        if wanted is not None and current == table and wanted.match(line):
            return number
    return None


def _suggest(name: str, candidates: Sequence[str], brackets: bool = False) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=1)
    if not close:
        return ""
    return f" (did you mean [{close[0]}]?)" if brackets else f" (did you mean '{close[0]}'?)"


def read_settings(config: ConfigFile, parser: argparse.ArgumentParser, command: str | None) -> dict[str, Any]:
    """The file's settings for ``command`` by dest, converted as the command line would; every
    problem of the whole file (every command's table included) raised at once as :class:`ConfigError`."""
    commands = _commands(parser)
    options = {name: options_of(sub) for name, sub in commands.items()}
    every_key = sorted({o.key for found in options.values() for o in found.values()})
    problems: list[tuple[int, str]] = []
    settings: dict[str, Any] = {}  # the shared keys, then the command's own table over them

    def report(table: tuple[str, ...], key: str | None, message: str) -> None:
        line = _line_of(config.text, config.table + table, key)
        if line is None and key is None and table:  # an inline table: its key's line
            line = _line_of(config.text, config.table + table[:-1], table[-1])
        where = str(config.path) if line is None else f"{config.path}:{line}"
        problems.append((line or 0, f"{where}: {message}"))

    for section in (None, *commands):
        table = () if section is None else (section,)
        items = config.settings if section is None else config.settings.get(section)
        if not isinstance(items, dict):
            continue
        seen: dict[str, str] = {}
        for key, value in items.items():
            name, shown_key = _norm(key), ".".join((*table, key))
            if section is None and key in commands:
                if not isinstance(value, dict):
                    expected = f"expected a table [{key}] of its options"
                    report(table, key, f"key '{key}' names a command: {expected}, got {_shown(value)}")
                continue
            having = [c for c in commands if name in options[c]]
            use = section or (command if command in having else next(iter(having), None))
            option = None if use is None else options[use].get(name)
            if option is None and section is not None:
                hint = f" (it is an option of {' and '.join(having)})" if having else ""
                hint = hint or _suggest(name, sorted({o.key for o in options[section].values()}))
                report(table, key, f"key '{shown_key}' is not an option of {section}{hint}")
            elif option is None and name in _OWN:
                flag = "--" + key.replace("_", "-")
                report(table, key, f"key '{key}' chooses the config file: give {flag} on the command line")
            elif option is None and isinstance(value, dict):
                report((key,), None, f"table [{key}] is not a command{_suggest(key, list(commands), True)}")
            elif option is None:
                report(table, key, f"key '{key}' is not an option of any command{_suggest(name, every_key)}")
            elif option.key in seen:
                report(table, key, f"key '{shown_key}' sets the same option as '{seen[option.key]}'")
            else:
                seen[option.key] = key
                try:
                    converted = convert(option, value, config.path.parent)
                except _Wrong as exc:
                    report(table, key, f"key '{shown_key}': expected {exc}, got {_shown(value)}")
                    continue
                if use == command:
                    settings[option.dest] = converted

    if problems:  # in the file's order (a line the scan did not find first)
        raise ConfigError([message for _, message in sorted(problems, key=lambda p: p[0])])
    return settings


# ---------------------------------------------------------------------------------------------
# The command line over the file


def _given(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> set[str]:
    """The dests the command line gave (a default left out), by parsing it again with no defaults."""
    parsers = [parser, *_commands(parser).values()]
    saved = [(action, action.default) for p in parsers for action in p._actions]
    kept = [(p, p._defaults) for p in parsers]
    try:
        for action, _ in saved:
            action.default = argparse.SUPPRESS
        for p in parsers:
            p._defaults = {}
        return set(vars(parser.parse_args(argv)))
    finally:
        for action, default in saved:
            action.default = default
        for p, defaults in kept:
            p._defaults = defaults


def resolve(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None, folder: str | Path = ".") -> Settings:
    """The command line over the config file over the defaults: the Namespace the program runs on.

    The command line is parsed (and checked) first; then the config file in force (see the
    module), for the command given; every option the command line left out takes the file's value.
    """
    args = parser.parse_args(argv, namespace=Settings())
    commands = _commands(parser)
    command = getattr(args, "command", None)
    if args.config is not None and args.no_config:
        raise UsageError("--config and --no-config exclude each other")
    config = None if args.no_config else find_config(args.config, folder)
    values = read_settings(config, parser, command) if config is not None else {}
    given = _given(parser, argv)
    sources: list[tuple[str, str, str]] = []
    options = options_of(commands[command]) if command in commands else {}
    for option in dict.fromkeys(options.values()):
        source = FROM_COMMAND_LINE if option.dest in given else FROM_FILE if option.dest in values else FROM_DEFAULT
        if source == FROM_FILE:
            setattr(args, option.dest, values[option.dest])
        sources.append((option.key, option.dest, source))
    args.config = None if config is None else str(config.path)
    args._resolution = _Resolution(str(command), args.config, tuple(sources))
    return args


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, Enum):
        return _plain(value.value)
    return str(value)


def resolved_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the program runs on, as a JSON-able dict:

    ``{"command": "build", "config": "ragreport.toml" (or null), "settings": {key: {"value": ...,
    "source": "command line" | "config file" | "default"}}}``, keys as the config file spells them
    (``runs`` for the run files), in the parser's order. A Namespace that :func:`resolve` did not
    make has every setting from the command line.
    """
    resolution: _Resolution | None = getattr(args, "_resolution", None)
    if resolution is None:
        found = {k: v for k, v in vars(args).items() if k not in (*_OWN, "command")}
        options = tuple((POSITIONAL_KEYS.get(k, k), k, FROM_COMMAND_LINE) for k in found)
        resolution = _Resolution(str(getattr(args, "command", None)), getattr(args, "config", None), options)
    return {
        "command": resolution.command,
        "config": resolution.config,
        "settings": {
            key: {"value": _plain(getattr(args, dest, None)), "source": source}
            for key, dest, source in resolution.options
        },
    }
