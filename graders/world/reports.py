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

from graders.words.messages import say
from graders.words.sites import site_said
from graders.words.text import Text, each_lang, join
from graders.world import gloo_errors
from graders.world.process_world import Collected, ProcessWorld

#: Reports are :class:`graders.words.messages.Text`: English as a ``str``, every language inside.
_SIGNAL_HINTS = {
    "SIGABRT": say("crash:SIGABRT:hint"),
    "SIGSEGV": say("crash:SIGSEGV:hint"),
    "SIGKILL": say("crash:SIGKILL:hint"),
}


def _signal_hints(reason: str, status: dict | None) -> list[Text]:
    """The hint a killing signal gives. A rank that died of SIGSEGV while blocked in a transfer
    died in gloo's own code, as a size mismatch ends it: gloo aborts (SIGABRT) most of the time,
    but when the abort races the transfer thread the same bug ends in SIGSEGV."""
    names = [name for name in _SIGNAL_HINTS if name in reason]
    if status and "SIGSEGV" in names:
        names = ["SIGABRT"]
    return [_SIGNAL_HINTS[name] for name in names]


def parse_status(text: str) -> dict | None:
    if not text:
        return None
    try:
        op, peer, nbytes, group, site = json.loads(text)
    except (ValueError, TypeError):
        return None
    return {"op": op, "peer": peer, "nbytes": nbytes, "group": group, "site": site}


def describe_status(status: dict) -> Text:
    op = status["op"]
    waited = say("status:wait", op=op.removeprefix("wait:")) if op.startswith("wait:") else op
    parts = [say("status:blocked", op=waited)]
    if status["peer"] >= 0:
        peer = status["peer"]
        if "recv" in op:
            parts.append(say("status:from", peer=peer))
        elif "send" in op:
            parts.append(say("status:to", peer=peer))
        else:
            parts.append(say("status:root", peer=peer))
    parts.append(f"{status['nbytes']} B")
    if status["site"]:
        parts.append(say("status:at", site=site_said(status["site"])))
    return join(" · ", parts)


def student_frames(stack: str, student_dir: str) -> list[str]:
    """The faulthandler lines that point into the student's files, innermost first."""
    frames = []
    for line in stack.splitlines():
        match = re.match(r'\s*File "(.*)", line (\d+) in (\S+)', line)
        if match and match.group(1).startswith(student_dir):
            frames.append(f"{os.path.basename(match.group(1))}:{match.group(2)} in {match.group(3)}")
    # faulthandler writes one block per thread; keep the first (main thread) block's frames.
    return list(dict.fromkeys(frames))


def diagnose(statuses: dict[int, dict | None], finished: set[int], world_size: int | None = None) -> Text:
    """One sentence on why the ranks are stuck, from what each is blocked in."""
    blocked = {r: s for r, s in statuses.items() if s is not None}
    if not blocked:
        return say("diagnose:python loop")
    world = set(range(world_size)) if world_size else set(statuses) | finished
    if gloo_errors.hang_diagnosis(blocked, world):  # a peer that does not exist, tags that differ
        return each_lang(lambda lang: gloo_errors.hang_diagnosis(blocked, world, lang))
    waiting_on_finished = [
        (r, s["peer"]) for r, s in blocked.items() if s["peer"] in finished and ("recv" in s["op"])
    ]
    if waiting_on_finished:
        r, peer = waiting_on_finished[0]
        return say("diagnose:peer finished", rank=r, peer=peer)
    if all(s["op"] == "send" for s in blocked.values()) and len(blocked) > 1:
        return say("diagnose:all send")
    if all("recv" in s["op"] for s in blocked.values()) and len(blocked) > 1:
        return say("diagnose:all recv")
    cycle = _wait_cycle(blocked)
    if cycle:
        return say("diagnose:cycle", cycle=" → ".join(map(str, cycle)))
    return say("diagnose:other")


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
) -> tuple[list[Text | str], dict[int, dict | None]]:
    lines: list[Text | str] = []
    statuses: dict[int, dict | None] = {}
    for rank in ranks:
        reply = collected.replies[rank]
        if members is not None and rank not in members and reply is not None:
            continue  # not in the group: nothing to say
        if reply is not None and "error" not in reply:
            lines.append(say("rank:finished", rank=rank))
            continue
        if reply is not None:
            err = reply["error"]
            first = err["message"].splitlines()[0] if err["message"] else ""
            if any(text in first for text in _PEER_GONE):
                lines.append(say("rank:peer gone", rank=rank))
            else:
                said = {"type": err["type"], "message": gloo_errors.clean(first)[:300]}
                lines.append(say("rank:raised", rank=rank, **said))
            continue
        status = parse_status(world.status(rank))
        statuses[rank] = status
        frames = student_frames(stacks.get(rank, ""), student_dir)
        where = describe_status(status) if status else say("rank:in python")
        if not status and frames:
            where += " · " + say("status:at", site=site_said(frames[0]))
        lines.append(f"  rank {rank}: " + where)
        if len(frames) > 1:
            lines.append(
                "           " + say("rank:stack", frames=join(" ← ", [site_said(f) for f in frames[:6]]))
            )
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
) -> Text:
    stuck = collected.pending
    stacks = world.dump_stacks(stuck)
    finished = {r for r, reply in enumerate(collected.replies) if reply is not None and "error" not in reply}
    lines, statuses = _rank_lines(world, list(range(world.size)), collected, stacks, student_dir, members)
    head = say("hang:head", exercise=exercise, deadline=deadline, who=_who(stuck))
    why = diagnose(statuses, finished, world.size)
    return join("\n", [head, why, *lines, *_printed(collected, stuck)])


def crash_report(
    world: ProcessWorld,
    collected: Collected,
    student_dir: str,
    exercise: str,
    members: tuple[int, ...] | None = None,
) -> tuple[Text, Text | str]:
    """The report of ranks that died, and the hint their ends give (a signal's, an exit's)."""
    lines: list[Text | str] = []
    hints: list[Text] = []
    for rank, why in sorted(collected.crashed.items()):
        reason = world.exit_reason(rank) if why == "closed" else why
        status = parse_status(world.status(rank))
        where = say("crash:while", status=describe_status(status)) if status else ""
        frames = student_frames(world.read_file(f"stack-{rank}", tail=6000), student_dir)
        if frames and not status:
            where += say("at site", site=site_said(frames[0]))
        lines.append(f"  rank {rank}: " + _reason(reason) + where)
        note = world.note(rank)
        if note:
            lines.append(f"           {note}")
        hints += _signal_hints(reason, status)
        if "exited with code" in reason:
            hints.append(say("crash:exit:hint"))
    others = [r for r in range(world.size) if r not in collected.crashed]
    stuck = {r for r in others if collected.replies[r] is None}
    stacks = world.dump_stacks(stuck) if stuck else {}
    other_lines, _ = _rank_lines(world, others, collected, stacks, student_dir, members)
    head = say("crash:head", exercise=exercise, who=_who(collected.crashed))
    body = [head, *lines]
    if other_lines:
        body.append(say("crash:others"))
        body += other_lines
    hints = list(dict.fromkeys(hints))
    hint = join("; ", hints) + "." if hints else ""
    return join("\n", body + _printed(collected, set(collected.crashed))), hint


def stuck_after_error_report(
    world: ProcessWorld,
    collected: Collected,
    student_dir: str,
    exercise: str,
    members: tuple[int, ...] | None = None,
) -> tuple[Text, Text | str]:
    """The report of a rank that raised while others wait for it, and the hint for a library
    error the kit knows."""
    stuck = collected.pending
    stacks = world.dump_stacks(stuck)
    lines, _ = _rank_lines(world, list(range(world.size)), collected, stacks, student_dir, members)
    failed = [r for r, reply in enumerate(collected.replies) if reply is not None and "error" in reply]
    said = {"exercise": exercise, "failed": _who(failed), "stuck": _who(stuck)}
    head = say("stuck:one", **said) if len(stuck) == 1 else say("stuck:many", **said)
    detail: list[Text] = []
    what, hint = gloo_errors.said(collected.replies[failed[0]]["error"]["message"] if failed else "")
    if what:
        detail.append(what)
    for rank in failed:
        err = collected.replies[rank]["error"]
        if err.get("traceback"):
            detail.append(say("stuck:traceback", rank=rank, traceback=err["traceback"]))
    return join("\n", [head, *lines, *detail, *_printed(collected, set(failed))]), hint


def _printed(collected: Collected, ranks) -> list[Text]:
    out = []
    for rank in sorted(ranks):
        reply = collected.replies[rank]
        text = (reply or {}).get("stdout", "").strip()
        if text:
            tail = "\n".join(text.splitlines()[-5:])
            out.append(say("rank:printed", rank=rank, tail=tail))
    return out


def _who(ranks) -> Text:
    """``rank 1`` or ``ranks 0, 2, 3``."""
    if len(ranks) == 1:
        return say("who:one", ranks=_ranks(ranks))
    return say("who:many", ranks=_ranks(ranks))


def _reason(reason: str) -> Text | str:
    """Why a rank crashed (:meth:`ProcessWorld.exit_reason`, or what its reply was) in every language."""
    if match := re.fullmatch(r"killed by (.+)", reason):
        return say("crash:killed", signal=match[1])
    if match := re.fullmatch(r"exited with code (-?\d+)", reason):
        return say("crash:exited", code=match[1])
    if match := re.fullmatch(r"sent a corrupt reply \((.*)\)", reason, re.DOTALL):
        return say("crash:corrupt reply", error=match[1])
    if reason == "stopped answering":
        return say("crash:stopped answering")
    return reason


def _ranks(ranks) -> str:
    ranks = sorted(ranks)
    return ", ".join(map(str, ranks)) if ranks else "?"
