"""The command line's and the filesystem's messages: what ``--out``, ``--single-file`` and ``publish``
refuse, the filesystem errors, and the last line of defence (:func:`ragreport.cli.main`)."""

from __future__ import annotations

from ....core.errors import Argument

#: A message as :class:`~ragreport.core.errors.ArgumentError` takes it: text and the arguments it
#: names, spelt as a keyword from Python and as a flag on the command line.
Parts = tuple["str | Argument", ...]


def step_summary_heading(title: str) -> str:
    """The heading of what ragreport appends to a CI job's summary."""
    return f"ragreport: {title}"


# --- Writing outputs: what --out, --single-file and publish refuse, and filesystem errors ---------


def refusing_to_replace(
    target: str, found: str, option: str | Argument = Argument("out"), advice: bool = True
) -> Parts:
    if not advice:
        return (f"refusing to replace {target}: {found}",)
    return (f"refusing to replace {target}: {found}; choose another ", option, " or remove it")


def refusing_to_publish(folder: str, found: str, advice: bool = True) -> str:
    return f"refusing to publish into {folder}: {found}" + ("; choose another folder or remove it" if advice else "")


def not_written_by(path: str, command: str) -> str:
    return f"{path} was not written by ragreport {command}"


def changed_since(path: str, command: str) -> str:
    return f"{path} was changed since ragreport {command} wrote it"


def marker_proves_nothing(path: str, reason: str) -> str:
    return f"its marker {path} {reason}, so it proves no earlier ragreport run"


OUT_IS_LINK = "it is a symbolic link; give the folder it points to"
LINK_LOOP = "a symbolic link that leads round in a loop"


def link_to_descriptor(leads: str) -> str:
    return f"a symbolic link to {leads}, a descriptor or device, not a regular file"


def link_to_special(leads: str, kind: str) -> str:
    return f"a symbolic link to {leads}, which is {kind}, not a regular file"


def link_inside(path: str) -> str:
    """A folder of a history (``assets/``, ``reports/``, a report's folder) found as a link."""
    return f"{path} is a symbolic link; publish writes only into folders of its own, never through a link"


OUT_IS_FILE = "it is a file, not a folder"
OUT_IS_MOUNT = "it is a mount point, which a build cannot replace (it swaps folders by rename); give a folder inside it"
OUT_HOLDS_CWD = "it is the current folder or holds it; give a folder below it, such as site"


def not_a_folder(path: str, link: bool = False) -> str:
    return f"{path} is a symbolic link that leads to no folder" if link else f"{path} is a file, not a folder"


def empty_path(option: str | Argument) -> Parts:
    return (option, " is empty; give a name")


def another_writer(target: str, lock: str, seconds: float) -> str:
    return f"another ragreport run is writing {target} (it holds {lock}); waited {seconds:g} s, try again when it ends"


def cannot_write(target: str, reason: str, existed: bool) -> str:
    kept = "the previous one is untouched" if existed else "nothing was left behind"
    return f"cannot write {target}: {reason}; {kept}"


def cannot_restore(target: str, reason: str, where: str) -> str:
    return (
        f"cannot write {target}: {reason}, and the previous one could not be put back: it is in {where} "
        f"(the next run puts it back)"
    )


def history_changed(index: str) -> str:
    return f"{index} changed while this publish ran (another publish?); nothing was written, publish again"


# --- The last line of defence (cli.main) -----------------------------------------------------------

#: Printed after the traceback of an exception ragreport did not foresee.
INTERNAL_ERROR = (
    "internal error: this is a bug in ragreport, not in your input; please report it with the command "
    "line and the traceback above"
)


def unreadable_input(kind: str, message: str) -> str:
    """One line for an error Python raised on an input no reader refused first (see cli.UNREADABLE)."""
    return (
        f"an input could not be read ({kind}: {message}); check the files given, and report it if they are well-formed"
    )


def system_error(reason: str, filename: object = None) -> str:
    """One line for an operating-system error no part of ragreport turned into its own message."""
    return f"{filename}: {reason}" if filename is not None else reason


#: When an allocation failed: the inputs or the options asked for more memory than there is.
OUT_OF_MEMORY = (
    "out of memory: the inputs or the options (--resamples, --permutations, -k, --kmax) ask for more "
    "memory than this machine has; lower them or score on a larger machine"
)


# --- ragreport pr: the base's report and the pull request's comment -------------------------------

_JUDGED_ALONE = "the head is judged alone, with no change since the base to show"
#: ``pr`` without ``--base``.
BASE_NOT_GIVEN = f"No base report was given (--base): {_JUDGED_ALONE}."


def base_missing(path: str) -> str:
    """``pr --base PATH`` where nothing is (the base branch has published nothing yet)."""
    return f"The base report {path} was not found: {_JUDGED_ALONE}."


def base_empty_history(path: str) -> str:
    return f"The base's history {path} holds no report yet: {_JUDGED_ALONE}."


def base_not_a_report(path: str) -> str:
    return (
        f"--base {path}: expected a report.json, a site folder holding report.json or a history folder "
        "written by ragreport publish"
    )


def comment_not_kept(detail: str) -> str:
    """The API refused the comment (a fork's read-only token): the job goes on, the gates decide."""
    return f"the pull request's comment was not created or updated ({detail}); comment.md holds it"
