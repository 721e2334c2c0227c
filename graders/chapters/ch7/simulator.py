"""A dependency simulator for pipeline schedules (kit code, run in the driver).

A schedule gives every stage ``s`` of a ``p``-stage pipeline its ordered list of actions
``(kind, microbatch, chunk)``, kind ``"F"`` or ``"B"``. With ``v`` chunks per stage the model is
cut into ``p * v`` virtual stages and stage ``s`` holds chunk ``c`` = virtual stage ``c * p + s``
(the layout of Megatron-LM and ``torch.distributed.pipelining``).

The model the simulator runs:

* Every stage runs its actions one at a time, in its list's order.
* ``F(s, mb, c)`` needs the activation of ``F(s - 1, mb, c)``; on stage 0 with ``c > 0`` the one
  of ``F(p - 1, mb, c - 1)``. ``B(s, mb, c)`` needs its own ``F(s, mb, c)`` and the gradient of
  ``B(s + 1, mb, c)``; on the last stage with ``c < v - 1`` the one of ``B(0, mb, c + 1)``. The
  last virtual stage's backward starts from the loss.
* Messages between two stages arrive in the order they were sent (as gloo delivers them), one
  stream per direction and kind (activations, gradients): the consumer of the k-th message
  must be the k-th action on its stage that needs one. Otherwise the stage would take another
  microbatch's tensor, and :func:`message_order_problems` rejects the schedule. In practice
  every stage handles the microbatches in the same order.
* Point-to-point is blocking on the receiving side: an action starts only when its stage is
  free and all its inputs have arrived. Sends are posted without waiting for the receiver
  (``isend``) and communication takes no time. A schedule *deadlocks* when some stages wait
  forever, each for an input that a waiting stage has not produced yet.
* A forward costs ``f_cost / v`` and a backward ``b_cost / v`` (a chunk is 1/v of a stage).
  Times are counted in integer ticks of 1/v; makespans and idle times come out as fractions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from graders.words.catalogue import domain
from graders.words.messages import say
from graders.words.numbers import fill
from graders.words.text import Text, each_lang, join

Action = tuple[str, int, int]  # (kind, microbatch, chunk), normalised
Node = tuple[str, int, int, int]  # (kind, stage, microbatch, chunk): one action of the whole pipeline


class ScheduleError(ValueError):
    """The schedule is not a list of well-formed actions per stage; ``message`` says why, in every
    language (a :class:`graders.words.messages.Text`)."""

    def __init__(self, message: Text) -> None:
        self.message = message
        super().__init__(message)


def label(action: Action, v: int = 1) -> str:
    """``F3`` (microbatch 3), or ``F3.1`` (microbatch 3, chunk 1) when there are chunks."""
    kind, mb, chunk = action
    return f"{kind}{mb}.{chunk}" if v > 1 else f"{kind}{mb}"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def normalize(raw: object, p: int, m: int, v: int = 1) -> list[list[Action]]:
    """Check the shape of ``raw`` and return it as lists of ``(kind, microbatch, chunk)`` tuples.

    Actions may be tuples or lists. ``("F", mb)`` means chunk 0; with ``v > 1`` every action
    must name its chunk. Raises :class:`ScheduleError` saying what is wrong, and where.
    """
    if not isinstance(raw, list | tuple):
        raise ScheduleError(say("ch7:schedule:not a list", got=_kind_of(raw)))
    if len(raw) != p:
        raise ScheduleError(say("ch7:schedule:stage count", p=p, got=len(raw)))
    stages: list[list[Action]] = []
    for s, actions in enumerate(raw):
        if not isinstance(actions, list | tuple):
            raise ScheduleError(say("ch7:schedule:stage not a list", s=s, got=_kind_of(actions)))
        normal = []
        for i, action in enumerate(actions):
            where = say("ch7:schedule:where", s=s, i=i, action=action)
            if not isinstance(action, list | tuple) or len(action) not in (2, 3):
                form = '("F"|"B", microbatch, chunk)' if v > 1 else '("F"|"B", microbatch)'
                raise ScheduleError(say("ch7:schedule:not an action", where=where, form=form))
            kind, mb = action[0], action[1]
            if len(action) == 2 and v > 1:
                raise ScheduleError(say("ch7:schedule:no chunk", where=where, v=v))
            chunk = action[2] if len(action) == 3 else 0
            if kind not in ("F", "B"):
                raise ScheduleError(say("ch7:schedule:kind", where=where, kind=kind))
            if not _is_int(mb) or not 0 <= mb < m:
                raise ScheduleError(say("ch7:schedule:microbatch", where=where, last=m - 1))
            if not _is_int(chunk) or not 0 <= chunk < v:
                raise ScheduleError(say("ch7:schedule:chunk", where=where, last=v - 1))
            normal.append((kind, mb, chunk))
        stages.append(normal)
    return stages


def _kind_of(value: object) -> Text | str:
    if isinstance(value, str) and value.startswith("<"):
        return value  # what the worker made of an object it could not send back
    return "None" if value is None else say("describe:object", type=type(value).__name__)


def completeness_problems(schedule: Sequence[Sequence[Action]], m: int, v: int = 1) -> list[Text]:
    """Per stage: actions that are missing or appear more than once (every F and B exactly once)."""
    problems = []
    for s, actions in enumerate(schedule):
        seen: dict[Action, int] = {}
        for action in actions:
            seen[action] = seen.get(action, 0) + 1
        twice = [a for a, n in seen.items() if n > 1]
        missing = [(k, mb, c) for k in "FB" for mb in range(m) for c in range(v) if (k, mb, c) not in seen]
        if twice:
            problems.append(say("ch7:twice", s=s, actions=_labels(twice, v)))
        if missing:
            problems.append(say("ch7:missing", s=s, actions=_labels(missing, v)))
    return problems


def _labels(actions: Sequence[Action], v: int, limit: int = 8) -> Text | str:
    names = [label(a, v) for a in sorted(actions, key=lambda a: (a[0] != "F", a[2], a[1]))]
    more = say("ch7:and more", n=len(names) - limit) if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def local_order_problems(schedule: Sequence[Sequence[Action]], v: int = 1) -> list[Text]:
    """Backwards placed before the forward of the same microbatch (and chunk) on the same stage."""
    problems = []
    for s, actions in enumerate(schedule):
        forwards = {}
        for i, (kind, mb, chunk) in enumerate(actions):
            if kind == "F":
                forwards.setdefault((mb, chunk), i)
        for i, (kind, mb, chunk) in enumerate(actions):
            if kind == "B" and forwards.get((mb, chunk), -1) > i:
                backward, forward = label(("B", mb, chunk), v), label(("F", mb, chunk), v)
                where = {"i": i, "j": forwards[(mb, chunk)]}
                problems.append(say("ch7:backward first", s=s, backward=backward, forward=forward, **where))
    return problems


def inputs_of(stage: int, action: Action, p: int, v: int) -> list[Node]:
    """The actions whose results ``action`` on ``stage`` needs before it can start."""
    kind, mb, chunk = action
    if kind == "F":
        if stage > 0:
            return [("F", stage - 1, mb, chunk)]
        return [("F", p - 1, mb, chunk - 1)] if chunk > 0 else []
    needs: list[Node] = [("F", stage, mb, chunk)]
    if stage < p - 1:
        needs.append(("B", stage + 1, mb, chunk))
    elif chunk < v - 1:
        needs.append(("B", 0, mb, chunk + 1))
    return needs


def consumer_of(stage: int, action: Action, p: int, v: int) -> Node | None:
    """The action that needs what ``action`` on ``stage`` computes, on another virtual stage."""
    kind, mb, chunk = action
    if kind == "F":
        if stage < p - 1:
            return ("F", stage + 1, mb, chunk)
        return ("F", 0, mb, chunk + 1) if chunk < v - 1 else None
    if stage > 0:
        return ("B", stage - 1, mb, chunk)
    return ("B", p - 1, mb, chunk - 1) if chunk > 0 else None


def message_order_problems(schedule: Sequence[Sequence[Action]], p: int, v: int = 1) -> list[Text]:
    """Streams of messages whose receiver needs them in another order than they are sent.

    Per (sender, receiver, kind): the order in which the sender produces tensors for the
    receiver's actions, against the order in which the receiver runs those actions. Only
    messages between two different stages count (a stage keeps its own tensors).
    """
    sent: dict[tuple[int, int, str], list[Node]] = {}
    needed: dict[tuple[int, int, str], list[Node]] = {}
    for s, actions in enumerate(schedule):
        for action in actions:
            target = consumer_of(s, action, p, v)
            if target is not None and target[1] != s:
                sent.setdefault((s, target[1], action[0]), []).append(target)
            for need in inputs_of(s, action, p, v):
                if need[1] != s:
                    needed.setdefault((need[1], s, need[0]), []).append((action[0], s, action[1], action[2]))
    problems = []
    for (src, dst, kind), order in sorted(sent.items()):
        wanted = needed.get((src, dst, kind), [])
        if order == wanted:
            continue
        at = next(i for i, (a, b) in enumerate(zip(order, wanted)) if a != b)
        what = "activation" if kind == "F" else "gradient"
        names = [label((k, mb, c), v) for k, _, mb, c in order]
        wanted_names = [label((k, mb, c), v) for k, _, mb, c in wanted]
        problems.append(
            say(
                "ch7:message order",
                src=src,
                dst=dst,
                what=what,
                sent=" ".join(names),
                needed=" ".join(wanted_names),
                taker=wanted_names[at],
                owner=names[at],
            )
        )
    return problems


#: The words of what a stage waits for, read from the chapter's catalogue at import: a worker says
#: them while graded code runs (its progress note for the hang report), when the guard refuses
#: any import of the kit, the catalogue's reader included.
_WAITS = {
    key: domain("ch7")[key]
    for key in (
        "ch7:wait:of microbatch",
        "ch7:wait:of microbatch chunk",
        "ch7:wait:need own",
        "ch7:wait:need from",
    )
}


def _wait(key: str, lang: str) -> str:
    return _WAITS[key].get(lang, _WAITS[key]["en"])


def describe_need(node: Node, waiting_stage: int) -> Text:
    """What a stage waits for, in every language (filled from :data:`_WAITS`, not with ``say``)."""
    kind, stage, mb, chunk = node
    what = "activation" if kind == "F" else "gradient"

    def one(lang: str) -> str:
        of = _wait("ch7:wait:of microbatch chunk" if chunk else "ch7:wait:of microbatch", lang)
        of = fill(of, lang, mb=mb, chunk=chunk)
        if stage == waiting_stage:
            return fill(_wait("ch7:wait:need own", lang), lang, kind=kind, of=of)
        return fill(_wait("ch7:wait:need from", lang), lang, what=what, of=of, stage=stage)

    return each_lang(one)


@dataclass(frozen=True)
class Placed:
    """One action on the timeline; times in ticks of 1/v (a chunk's forward lasts f_cost ticks)."""

    action: Action
    start: int
    end: int


@dataclass(frozen=True)
class Wait:
    """A stage stuck forever at ``position`` of its list, waiting for ``needs``."""

    stage: int
    position: int
    action: Action
    needs: Node

    def reason(self, v: int = 1) -> Text:
        need = describe_need(self.needs, self.stage)
        return say("ch7:wait", action=label(self.action, v), i=self.position, need=need)

    def describe(self, v: int = 1) -> Text:
        return say("ch7:stuck", s=self.stage, reason=self.reason(v))


@dataclass
class Simulation:
    p: int
    m: int
    v: int
    schedule: list[list[Action]]
    placed: list[list[Placed]]
    waits: list[Wait]

    @property
    def deadlocked(self) -> bool:
        return bool(self.waits)

    @property
    def ticks(self) -> int:
        """Makespan in ticks (1/v of a stage-unit)."""
        return max((slot.end for row in self.placed for slot in row), default=0)

    @property
    def makespan(self) -> Fraction:
        return Fraction(self.ticks, self.v)

    def busy(self, stage: int) -> Fraction:
        return Fraction(sum(slot.end - slot.start for slot in self.placed[stage]), self.v)

    def idle(self, stage: int) -> Fraction:
        return self.makespan - self.busy(stage)

    @property
    def bubble_fraction(self) -> Fraction:
        """Idle share of the total time: idle stage-time over ``p * makespan``."""
        total = self.p * self.ticks
        busy = sum(slot.end - slot.start for row in self.placed for slot in row)
        return Fraction(total - busy, total) if total else Fraction(0)

    def deadlock_report(self, indent: str = "") -> Text:
        """One line per stuck stage; lines after the first start with ``indent``."""
        return join("\n" + indent, [w.describe(self.v) for w in self.waits])


def simulate(
    schedule: Sequence[Sequence[Action]], p: int, m: int, v: int = 1, f_cost: int = 1, b_cost: int = 1
) -> Simulation:
    """Run a normalised schedule as soon as dependencies allow (see the module docstring).

    The schedule must be complete (:func:`completeness_problems` empty): an input that no
    stage ever produces would read as a deadlock.
    """
    cost = {"F": f_cost, "B": b_cost}  # in ticks of 1/v
    finished: dict[Node, int] = {}
    placed: list[list[Placed]] = [[] for _ in range(p)]
    free = [0] * p
    position = [0] * p
    progressed = True
    while progressed:
        progressed = False
        for s in range(p):
            actions = schedule[s]
            while position[s] < len(actions):
                action = actions[position[s]]
                start = free[s]
                for need in inputs_of(s, action, p, v):
                    done = finished.get(need)
                    if done is None:
                        break
                    start = max(start, done)
                else:
                    end = start + cost[action[0]]
                    placed[s].append(Placed(action, start, end))
                    finished[(action[0], s, action[1], action[2])] = end
                    free[s] = end
                    position[s] += 1
                    progressed = True
                    continue
                break
    waits = []
    for s in range(p):
        if position[s] < len(schedule[s]):
            action = schedule[s][position[s]]
            need = next(n for n in inputs_of(s, action, p, v) if n not in finished)
            waits.append(Wait(s, position[s], action, need))
    return Simulation(p, m, v, [list(a) for a in schedule], placed, waits)


def in_flight(actions: Sequence[Action]) -> list[int]:
    """Activations a stage holds after each of its actions: forwards done minus backwards done."""
    held, counts = 0, []
    for kind, _, _ in actions:
        held += 1 if kind == "F" else -1
        counts.append(held)
    return counts


def peak_in_flight(actions: Sequence[Action]) -> int:
    return max(in_flight(actions), default=0)


def warmup_forwards(actions: Sequence[Action]) -> int:
    """Forwards a stage runs before its first backward."""
    count = 0
    for kind, _, _ in actions:
        if kind == "B":
            break
        count += 1
    return count


def ideal_makespan(name: str, p: int, m: int, v: int = 1, f_cost: int = 1, b_cost: int = 1) -> Fraction:
    """The makespan the textbook schedules reach: (m + (p - 1) / v) * (t_F + t_B)."""
    chunks = v if name == "interleaved" else 1
    return (m + Fraction(p - 1, chunks)) * (f_cost + b_cost)
