"""A student's git repository as a submission: which commit is graded, and its files.

GitHub Classroom's ``gh classroom clone student-repos`` leaves a folder of clones, one per
student. Such a folder is graded at a commit, never from its working tree (which may hold work
that was never committed): with a due date, the last commit at or before it; with none, or when
the teacher asks for the heads, the head. A repository with no commit by the due date is graded
at its head and is late.

The repository may be hostile, so git runs on it as plumbing only (``rev-parse``, ``rev-list``,
``cat-file``, ``ls-tree``), with ``--git-dir`` pointing at its ``.git``: nothing is checked out,
and no hook, filter, pager, fsmonitor, signature check or external diff runs, whatever the
repository's own configuration says. The system's and the user's configuration are not read, the
protected settings (hooks, fsmonitor, pager) are overridden on the command line, no transport is
allowed (a partial clone cannot fetch a missing object through the student's remote), and
replace refs and grafts are ignored (they would let a repository show one commit's files under
another's name). The files are read from git's objects.

A commit's time is its committer date, as the student's git wrote it: a student can set it
(``GIT_COMMITTER_DATE``); GitHub's record of the pushes is not in the repository.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path, PurePosixPath

#: how long one git command may take on one repository
TIMEOUT_S = 60
#: ``-c`` settings that have the last word over the repository's own
OVERRIDES = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.pager=cat",
    "log.showSignature=false",
    "protocol.allow=never",
)
#: files and folders of a tree beyond this many are not looked at (as for a folder)
MAX_ENTRIES = 2000


class GitMissing(ValueError):
    """git is not installed: no repository can be read (the whole class stops)."""


class Unreadable(Exception):
    """This repository cannot be read (one student's submission, noted)."""


@dataclass(frozen=True)
class Commit:
    hash: str
    time: str  # the committer date, ISO 8601 with the committer's offset
    late: bool = False  # after the due date


def is_repository(folder: Path) -> bool:
    """A clone: ``folder/.git`` is a folder (a ``.git`` file or link is not followed)."""
    dot_git = Path(folder) / ".git"
    return dot_git.is_dir() and not dot_git.is_symlink()


def _environment() -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_ATTR_NOSYSTEM="1",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_GRAFT_FILE=os.devnull,
        GIT_ALLOW_PROTOCOL="none",  # no transport at all, whatever protocol.<name>.allow says
        GIT_NO_LAZY_FETCH="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
        GIT_PAGER="cat",
        LC_ALL="C",
    )
    return env


def git(repo: Path, *args: str) -> bytes:
    """The output of ``git args`` on ``repo``'s ``.git``; raises :class:`Unreadable`."""
    dot_git = Path(repo).absolute() / ".git"
    settings = [*OVERRIDES, f"safe.directory={dot_git}", f"safe.directory={dot_git.parent}"]
    argv = ["git", "--no-pager", f"--git-dir={dot_git}"]
    for setting in settings:
        argv += ["-c", setting]
    try:
        run = subprocess.run(
            [*argv, *args],
            env=_environment(),
            cwd=dot_git,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=TIMEOUT_S,
        )
    except FileNotFoundError:
        raise GitMissing("git is not installed: it is needed to read the students' repositories") from None
    except subprocess.TimeoutExpired:
        raise Unreadable(f"git {args[0]} took longer than {TIMEOUT_S} s") from None
    if run.returncode != 0:
        said = run.stderr.decode(errors="replace").strip().splitlines()
        raise Unreadable(f"git {args[0]}: {said[-1] if said else f'exit status {run.returncode}'}")
    return run.stdout


def history(repo: Path) -> list[tuple[int, str]]:
    """``(committer time, hash)`` of every commit of the head's history, the head first; ``[]``
    when the repository has no commit yet."""
    try:
        git(repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    except Unreadable:
        return []
    words = git(repo, "rev-list", "--timestamp", "HEAD").decode().split()
    return [(int(words[i]), words[i + 1]) for i in range(0, len(words) - 1, 2)]


def graded_commit(repo: Path, due: datetime | None = None, at_head: bool = False) -> Commit | None:
    """The commit to grade: the last one at or before ``due`` (the latest committer date among
    the head's history), else the head; the head when there is no due date or with ``at_head``.
    None when the repository has no commit."""
    commits = history(repo)
    if not commits:
        return None
    chosen = commits[0]
    if due is not None and not at_head:
        in_time = [c for c in commits if c[0] <= due.timestamp()]
        if in_time:
            chosen = max(in_time, key=lambda c: c[0])  # the first of equals: the walk is newest first
    epoch, sha = chosen
    return Commit(sha, _committer_time(repo, sha), late=due is not None and epoch > due.timestamp())


def _committer_time(repo: Path, sha: str) -> str:
    """The committer date with the committer's offset (``… 1764600000 +0700``)."""
    for line in git(repo, "cat-file", "commit", sha).decode(errors="replace").splitlines():
        if not line:
            break  # the headers end at the first empty line
        if line.startswith("committer "):
            epoch, offset = line.rsplit(" ", 2)[-2:]
            sign = -1 if offset.startswith("-") else 1
            zone = timezone(sign * timedelta(hours=int(offset[1:3]), minutes=int(offset[3:5])))
            return datetime.fromtimestamp(int(epoch), zone).isoformat()
    raise Unreadable(f"commit {sha} has no committer")


def tree(repo: Path, sha: str, max_entries: int = MAX_ENTRIES) -> list[tuple]:
    """The files of commit ``sha``: ``(path, size, kind, read)`` as an intake ``Entry`` takes them,
    kind ``file`` (``read()`` takes it from git's objects), ``symlink`` or ``other`` (a
    submodule); hidden paths are skipped, as in a folder."""
    entries = []
    for record in git(repo, "ls-tree", "-r", "-z", "--long", "--full-tree", sha).split(b"\0"):
        if not record:
            continue
        if len(entries) >= max_entries:
            break
        header, _, raw_path = record.partition(b"\t")
        mode, kind, obj, size = header.decode().split()
        path = raw_path.decode(errors="replace")
        if any(part.startswith(".") for part in PurePosixPath(path).parts):
            continue
        if mode == "120000":
            entries.append((path, 0, "symlink", None))
        elif kind == "blob":
            entries.append((path, int(size), "file", _reader(repo, obj)))
        else:  # a submodule's commit
            entries.append((path, 0, "other", None))
    return entries


def _reader(repo: Path, obj: str):
    def read() -> bytes:
        return git(repo, "cat-file", "blob", obj)

    return read
