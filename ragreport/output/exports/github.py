"""The one pull-request comment a report keeps up to date on GitHub, through the REST API with the
standard library's HTTP client (``ragreport pr``; docs/ci.md).

Inside GitHub Actions, a pull request's job has ``GITHUB_EVENT_PATH`` (the event's JSON, holding
``pull_request.number``), ``GITHUB_REPOSITORY`` (``owner/name``), ``GITHUB_API_URL`` (the REST API's
root, ``https://api.github.com`` or a GitHub Enterprise server's) and, when the workflow passes it,
``GITHUB_TOKEN``. With all of them, :func:`keep_comment` lists the pull request's comments (every
page), edits the first one whose body holds the report's hidden marker (:func:`marker`: one per
report title), and creates one when none does. A comment without the marker is never edited, so
another workflow's comment under the same ``github-actions[bot]`` user is safe.

Rules and edge cases:

- No token, no event file or an event that is not a pull request: nothing is posted (None); the
  files are written all the same.
- An event file that cannot be read, or a ``GITHUB_REPOSITORY`` that is not ``owner/name``: a
  :class:`~ragreport.core.errors.UsageError` naming the variable and what was expected.
- The API refusing (a fork's read-only token answers 403): a :class:`CommentError` with the method,
  address and status; the command says it as a warning, since the gates, not the comment, decide
  the job.
"""

from __future__ import annotations

import hashlib
import json
import re
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...core.errors import UsageError

#: The REST API's root when ``GITHUB_API_URL`` is not set (github.com).
API_URL = "https://api.github.com"
#: Comments a page of the listing asks for: the API's largest page.
PER_PAGE = 100
#: Seconds one request may take before the comment is given up (the job goes on).
TIMEOUT = 30
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


class CommentError(Exception):
    """The API refused or could not be reached: the request and what came back, in one line."""


def marker(title: str) -> str:
    """The hidden line that finds a report's comment again: ``<!-- ragreport:TITLE-HASH -->``, the
    hash the first 12 hex digits of the title's SHA-256, so that two reports of different titles on
    one pull request keep a comment each, and a title holding ``-->`` cannot end the marker early.

    >>> marker("Retrieval")
    '<!-- ragreport:1c3d1a7d17bf -->'
    """
    return f"<!-- ragreport:{hashlib.sha256(title.encode('utf-8')).hexdigest()[:12]} -->"


@dataclass(frozen=True)
class PullRequest:
    """Where the comment goes: the API's root, ``owner/name``, the pull request's number, the token."""

    api: str
    repository: str
    number: int
    token: str


def pull_request(env: Mapping[str, str]) -> PullRequest | None:
    """The pull request the job runs for, from the ``GITHUB_*`` variables; None when a variable is
    missing or the event is not a pull request's (a push, a laptop)."""
    token, event_path = env.get("GITHUB_TOKEN"), env.get("GITHUB_EVENT_PATH")
    if not token or not event_path:
        return None
    try:
        with open(event_path, encoding="utf-8") as handle:
            event = json.load(handle)
    except (OSError, ValueError) as exc:
        raise UsageError(f"$GITHUB_EVENT_PATH {event_path}: expected the event's JSON, got {exc}") from None
    pr = event.get("pull_request") if isinstance(event, dict) else None
    number = pr.get("number") if isinstance(pr, dict) else None
    if not isinstance(number, int) or isinstance(number, bool):
        return None  # not a pull request's event
    repository = env.get("GITHUB_REPOSITORY", "")
    if not _REPOSITORY.fullmatch(repository):
        raise UsageError(f"$GITHUB_REPOSITORY: expected owner/name, got {repository!r}")
    return PullRequest((env.get("GITHUB_API_URL") or API_URL).rstrip("/"), repository, number, token)


def _request(pr: PullRequest, method: str, url: str, body: dict | None = None) -> tuple[Any, str | None]:
    """One API call: its JSON and the next page's address (the ``Link`` header), or a CommentError."""
    request = urllib.request.Request(
        url,
        method=method,
        data=None if body is None else json.dumps(body).encode("utf-8"),
        headers={
            "Authorization": f"Bearer {pr.token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "Content-Type": "application/json",
            "User-Agent": "ragreport",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # noqa: S310 (https or the test's server)
            found = _NEXT.search(response.headers.get("Link") or "")
            return json.loads(response.read() or b"null"), (found.group(1) if found else None)
    except urllib.error.HTTPError as exc:
        raise CommentError(f"{method} {url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise CommentError(f"{method} {url}: {getattr(exc, 'reason', exc)}") from None


def keep_comment(pr: PullRequest, body: str, mark: str) -> tuple[str, str]:
    """Edit the pull request's comment holding ``mark`` (the first, oldest, when several do) to
    ``body``, or create it; ``("updated"|"created", its address)``. ``body`` must hold ``mark``."""
    if mark not in body:
        raise ValueError("the comment's body must hold its marker, or it could never be found again")
    root = f"{pr.api}/repos/{pr.repository}"
    url: str | None = f"{root}/issues/{pr.number}/comments?per_page={PER_PAGE}"
    while url is not None:
        comments, url = _request(pr, "GET", url)
        for found in comments if isinstance(comments, list) else ():
            if isinstance(found, dict) and isinstance(found.get("id"), int) and mark in str(found.get("body") or ""):
                edited, _ = _request(pr, "PATCH", f"{root}/issues/comments/{found['id']}", {"body": body})
                return "updated", str((edited or {}).get("html_url", ""))
    made, _ = _request(pr, "POST", f"{root}/issues/{pr.number}/comments", {"body": body})
    return "created", str((made or {}).get("html_url", ""))
