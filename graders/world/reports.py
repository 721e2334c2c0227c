"""Driver side: turn a broken task into a report a student can act on.

A report names every rank: what it was blocked in (from its status board), who it was waiting
for, where in the student's code it stood (from its Python stack), and what it printed. A short
diagnosis on top explains the usual cause: a cycle of blocking sends, a message never sent, a
peer that crashed.
"""

from __future__ import annotations

import json
import os
import re

from graders.world import gloo_errors
from graders.world.process_world import Collected, ProcessWorld

_SIGNAL_HINTS = {
    "SIGABRT": "gloo aborts a process when a receive and its matching send have different sizes "
    "(or one side sends 0 bytes and the other expects data): check that both sides agree on every "
    "chunk's size",
    "SIGSEGV": "a segmentation fault: native memory was corrupted (ctypes, or a tensor freed while in use)",
    "SIGKILL": "the process was killed from outside, often for using too much memory",
}


def parse_status(text: str) -> dict | None:
    if not text:
        return None
    try:
        op, peer, nbytes, group, site = json.loads(text)
    except (ValueError, TypeError):
        return None
    return {"op": op, "peer": peer, "nbytes": nbytes, "group": group, "site": site}


def describe_status(status: dict) -> str:
    op = status["op"]
    parts = [f"blocked in {op.replace('wait:', 'wait() on ')}"]
    if status["peer"] >= 0:
        word = "from" if "recv" in op else "to" if "send" in op else "root"
        parts.append(f"{word} rank {status['peer']}")
    parts.append(f"{status['nbytes']} B")
    if status["site"]:
        parts.append(f"at {status['site']}")
    return " · ".join(parts)


def student_frames(stack: str, student_dir: str) -> list[str]:
    """The faulthandler lines that point into the student's files, innermost first."""
    frames = []
    for line in stack.splitlines():
        match = re.match(r'\s*File "(.*)", line (\d+) in (\S+)', line)
        if match and match.group(1).startswith(student_dir):
            frames.append(f"{os.path.basename(match.group(1))}:{match.group(2)} in {match.group(3)}")
    # faulthandler writes one block per thread; keep the first (main thread) block's frames.
    return list(dict.fromkeys(frames))


def diagnose(statuses: dict[int, dict | None], finished: set[int], world_size: int | None = None) -> str:
    """One sentence on why the ranks are stuck, from what each is blocked in."""
    blocked = {r: s for r, s in statuses.items() if s is not None}
    if not blocked:
        return "No rank is inside a torch.distributed call: the code is stuck in a Python loop."
    world = set(range(world_size)) if world_size else set(statuses) | finished
    misuse = gloo_errors.hang_diagnosis(blocked, world)  # a peer that does not exist, tags that differ
    if misuse:
        return misuse
    waiting_on_finished = [
        (r, s["peer"]) for r, s in blocked.items() if s["peer"] in finished and ("recv" in s["op"])
    ]
    if waiting_on_finished:
        r, peer = waiting_on_finished[0]
        return (
            f"Rank {r} waits for a message from rank {peer}, but rank {peer} already finished: "
            "a send is missing, or the two ranks disagree on how many messages there are."
        )
    if all(s["op"] == "send" for s in blocked.values()) and len(blocked) > 1:
        return (
            "Every stuck rank is in a blocking send. gloo's send waits until the peer posts the "
            "matching recv, so when all ranks send first nobody receives: let ranks alternate "
            "(for example even ranks send first), or use isend/irecv and wait on both."
        )
    if all("recv" in s["op"] for s in blocked.values()) and len(blocked) > 1:
        return (
            "Every stuck rank waits to receive and nobody sends: check the order of sends and "
            "receives, and that each rank computes its peers the same way."
        )
    cycle = _wait_cycle(blocked)
    if cycle:
        return "Ranks wait on each other in a cycle: " + " → ".join(map(str, cycle)) + "."
    return "Some ranks wait for peers that never reach the matching call."


def _wait_cycle(blocked: dict[int, dict]) -> list[int]:
    for start in blocked:
        seen = [start]
        current = start
        while True:
            peer = blocked[current]["peer"]
            if peer not in blocked:
                break
            if peer in seen:
                return seen[seen.index(peer) :] + [peer]
            seen.append(peer)
            current = peer
    return []


_PEER_GONE = ("Connection closed by peer", "Connection reset by peer", "Broken pipe")


def _rank_lines(
    world: ProcessWorld,
    ranks: list[int],
    collected: Collected,
    stacks: dict[int, str],
    student_dir: str,
    members: tuple[int, ...] | None = None,
) -> tuple[list[str], dict[int, dict | None]]:
    lines: list[str] = []
    statuses: dict[int, dict | None] = {}
    for rank in ranks:
        reply = collected.replies[rank]
        if members is not None and rank not in members and reply is not None:
            continue  # not in the group: nothing to say
        if reply is not None and "error" not in reply:
            lines.append(f"  rank {rank}: finished its part")
            continue
        if reply is not None:
            err = reply["error"]
            first = err["message"].splitlines()[0] if err["message"] else ""
            if any(text in first for text in _PEER_GONE):
                lines.append(f"  rank {rank}: stopped with a gloo connection error (its peer was gone)")
            else:
                lines.append(f"  rank {rank}: raised {err['type']}: {gloo_errors.clean(first)[:300]}")
            continue
        status = parse_status(world.status(rank))
        statuses[rank] = status
        frames = student_frames(stacks.get(rank, ""), student_dir)
        where = (
            describe_status(status) if status else "running Python code, not in any torch.distributed call"
        )
        if not status and frames:
            where += f" · at {frames[0]}"
        lines.append(f"  rank {rank}: {where}")
        if len(frames) > 1:
            lines.append("           stack: " + " ← ".join(frames[:6]))
        note = world.note(rank)
        if note:
            lines.append(f"           {note}")
    return lines, statuses


def hang_report(
    world: ProcessWorld,
    collected: Collected,
    student_dir: str,
    deadline: float,
    exercise: str,
    members: tuple[int, ...] | None = None,
) -> str:
    stuck = collected.pending
    stacks = world.dump_stacks(stuck)
    finished = {r for r, reply in enumerate(collected.replies) if reply is not None and "error" not in reply}
    lines, statuses = _rank_lines(world, list(range(world.size)), collected, stacks, student_dir, members)
    head = f"{exercise}: the task did not finish within its {deadline:g} s deadline"
    head += f" ({_who(stuck)} stuck)."
    why = diagnose(statuses, finished, world.size)
    return "\n".join([head, why, *lines, *_printed(collected, stuck)])


def crash_report(
    world: ProcessWorld,
    collected: Collected,
    student_dir: str,
    exercise: str,
    members: tuple[int, ...] | None = None,
) -> str:
    lines: list[str] = []
    hints: list[str] = []
    for rank, why in sorted(collected.crashed.items()):
        reason = world.exit_reason(rank) if why == "closed" else why
        status = parse_status(world.status(rank))
        where = f" while {describe_status(status)}" if status else ""
        frames = student_frames(world.read_file(f"stack-{rank}", tail=6000), student_dir)
        if frames and not status:
            where += f" at {frames[0]}"
        lines.append(f"  rank {rank}: {reason}{where}")
        note = world.note(rank)
        if note:
            lines.append(f"           {note}")
        for name, hint in _SIGNAL_HINTS.items():
            if name in reason:
                hints.append(hint)
        if "exited with code" in reason:
            hints.append(
                "student code ended the worker process (os._exit or similar): never exit from an exercise"
            )
    others = [r for r in range(world.size) if r not in collected.crashed]
    stuck = {r for r in others if collected.replies[r] is None}
    stacks = world.dump_stacks(stuck) if stuck else {}
    other_lines, _ = _rank_lines(world, others, collected, stacks, student_dir, members)
    head = f"{exercise}: {_who(collected.crashed)} crashed."
    body = [head, *lines]
    if hints:
        body.append("hint: " + "; ".join(dict.fromkeys(hints)) + ".")
    if other_lines:
        body.append("the other ranks:")
        body += other_lines
    return "\n".join(body + _printed(collected, set(collected.crashed)))


def stuck_after_error_report(
    world: ProcessWorld,
    collected: Collected,
    student_dir: str,
    exercise: str,
    members: tuple[int, ...] | None = None,
) -> str:
    stuck = collected.pending
    stacks = world.dump_stacks(stuck)
    lines, _ = _rank_lines(world, list(range(world.size)), collected, stacks, student_dir, members)
    failed = [r for r, reply in enumerate(collected.replies) if reply is not None and "error" in reply]
    head = (
        f"{exercise}: {_who(failed)} raised an exception, and {_who(stuck)} "
        f"{'was' if len(stuck) == 1 else 'were'} left waiting for it."
    )
    detail = []
    explained = gloo_errors.render(collected.replies[failed[0]]["error"]["message"]) if failed else ""
    if explained:
        detail.append(explained)
    for rank in failed:
        err = collected.replies[rank]["error"]
        if err.get("traceback"):
            detail.append(f"rank {rank} traceback (your code):\n{err['traceback']}")
    return "\n".join([head, *lines, *detail, *_printed(collected, set(failed))])


def _printed(collected: Collected, ranks) -> list[str]:
    out = []
    for rank in sorted(ranks):
        reply = collected.replies[rank]
        text = (reply or {}).get("stdout", "").strip()
        if text:
            tail = "\n".join(text.splitlines()[-5:])
            out.append(f"rank {rank} printed (last lines):\n{tail}")
    return out


def _who(ranks) -> str:
    """``rank 1`` or ``ranks 0, 2, 3``."""
    return ("rank " if len(ranks) == 1 else "ranks ") + _ranks(ranks)


def _ranks(ranks) -> str:
    ranks = sorted(ranks)
    return ", ".join(map(str, ranks)) if ranks else "?"
