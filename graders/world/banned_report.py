"""Driver side: a banned call a rank's trace recorded, said as what the submission did.

A refusal is recorded in the trace as ``banned:<name>`` (:mod:`graders.comm.guard`): a door, a
signal, a banned call or import, or what a "by hand" contract's allowlist refused
(:mod:`graders.comm.hand_written`). The first one becomes the part's failure, in every language.
"""

from __future__ import annotations

import signal

from graders.catalog import DOORS
from graders.comm.doors import SIGNAL_EVERY, SIGNAL_GROUP
from graders.comm.trace import Traces
from graders.errors import BannedCall
from graders.words.messages import say
from graders.words.sites import site_said
from graders.words.text import Text
from graders.world.task import TaskSpec

#: what a "by hand" contract's allowlist refuses (graders.comm.hand_written)
HAND_WRITTEN_REFUSALS = ("operator:", "autograd:")


def raise_for_banned(traces: Traces, spec: TaskSpec, example: str = "") -> None:
    hits = traces.banned()
    if not hits:
        return
    rank, event = hits[0]
    name = event.op.split(":", 1)[1]
    where = say("at site", site=site_said(event.site)) if event.site else ""
    if name == "signal" and event.group:
        said, hint = _signal_refused(rank, event, spec, where), say("banned:signal:hint")
        what = say("banned what:door", rank=rank, door=say("banned:door:signal"), name=name, where=where)
    elif name.startswith(HAND_WRITTEN_REFUSALS):  # "operator:aten::…", "autograd:MmBackward0"
        kind, _, refused = name.partition(":")
        if kind == "operator":
            what = say("banned what:operator", rank=rank, name=refused, where=where)
        else:
            what = say("banned what:autograd", rank=rank, name=refused, where=where)
        said, hint = (
            say("banned:hand written", what=what, exercise=spec.exercise),
            say("banned:hand written:hint"),
        )
    elif name in DOORS:
        door = say(f"banned:door:{name}")  # what the door does (catalog.DOORS), in every language
        what = say("banned what:door", rank=rank, door=door, name=name.removesuffix(".*"), where=where)
        said, hint = say("banned:door", what=what, exercise=spec.exercise), say("banned:door:hint")
    else:
        qualified = name if "." in name else f"torch.distributed.{name}"
        if qualified.endswith(".*"):  # a banned module tree
            what = say("banned what:import", rank=rank, name=qualified[:-2], where=where)
            said = say("banned:import", what=what, exercise=spec.exercise)
        else:
            what = say("banned what:call", rank=rank, name=qualified, where=where)
            said = say("banned:call", what=what, exercise=spec.exercise)
        hint = say("banned:call:hint")
    raise BannedCall(said, hint, example=example, note=say("integrity:banned", what=what))


def _signal_refused(rank: int, event, spec: TaskSpec, where) -> Text:
    """The refused signal of ``event`` (its number in ``nbytes``, its target in ``group``), said."""
    number, target = event.nbytes, event.group[0]
    try:
        signame = signal.Signals(number).name
    except ValueError:
        signame = f"signal {number}"
    if target == SIGNAL_EVERY:
        whom = say("signal target:every")
    elif target == SIGNAL_GROUP:
        whom = say("signal target:group")
    else:
        whom = say("signal target:grading", pid=target)
    return say("banned:signal", rank=rank, signal=signame, target=whom, where=where, exercise=spec.exercise)
