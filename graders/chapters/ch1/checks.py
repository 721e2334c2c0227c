"""Chapter 1 judgements for ``model_memory.py`` and ``launch.py``.

* ``count_parameters``: equal to ``sum(p.numel())`` of the kit's GPT, the difference shown by
  component (embeddings, blocks, final LayerNorm, head).
* ``training_memory``: every field of the ledger equal to what a real training step of the kit's
  GPT kept (measured); for mixed-precision Adam, also 16 bytes per parameter in all (paper).
* ``activation_memory``: equal to the bytes autograd saves in one block's forward, per mode.
* ``read_dist_env``: the fields of a valid environment (result); a ``ValueError`` naming the
  variable at fault for a missing, non-integer or inconsistent one (errors).
* ``pick_backend`` and ``device_for``: the backend and the device.
"""

from __future__ import annotations

import re

from graders.chapters.ch1 import reference
from graders.chapters.ch1.cases import VARIABLES
from graders.chapters.ch1.tasks import LEDGER_FIELDS
from graders.judge.checks import fail
from graders.words.messages import say

BYTES_PER_PARAMETER_OF_MIXED_ADAM = 16
#: an error may name the variable at fault and those it was compared with, not every variable
MOST_NAMED = 3


def _int(value, what: str, case, hint) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        fail(say("ch1:not an int", what=what, got=repr(value)), case, hint)
    return value


def _components(case) -> str:
    model = case.gpt()
    counts: dict[str, int] = {}
    for name, param in model.named_parameters():  # a tied head is the embedding: counted there
        part = name.split(".")[0]
        counts[part] = counts.get(part, 0) + param.numel()
    return ", ".join(f"{part} {count}" for part, count in counts.items())


def assert_count(run, case) -> None:
    hint = say("ch1:count:tied:hint") if case.tied else say("ch1:count:hint")
    got = _int(run[0], "count_parameters", case, hint)
    expected = reference.parameter_count(case)
    if got != expected:
        fail(say("ch1:count", got=got, expected=expected, parts=_components(case)), case, hint)


def assert_ledger(run, case) -> None:
    answer, measured = run[0]["answer"], run[0]["measured"]
    if answer.get("none"):
        fail(say("ch1:ledger none"), case, say("ch1:ledger:hint"))
    for field in LEDGER_FIELDS:
        hint = say(f"ch1:ledger:{field}:hint")
        got = _int(answer[field], f"Ledger.{field}", case, hint)
        if got != measured[field]:
            said = {"field": field, "got": got, "measured": measured[field], "n": measured["n_params"]}
            fail(say("ch1:ledger field", **said), case, hint)


def assert_paper(run, case) -> None:
    assert_ledger(run, case)
    answer, n = run[0]["answer"], run[0]["measured"]["n_params"]
    total = _int(answer["total"], "Ledger.total", case, say("ch1:ledger:total:hint"))
    if total != BYTES_PER_PARAMETER_OF_MIXED_ADAM * n:
        fail(say("ch1:sixteen bytes", total=total, n=n), case, say("ch1:ledger:total:hint"))


def assert_activations(run, case) -> None:
    hint = say(f"ch1:activations:{case.recompute}:hint")
    got = _int(run[0], "activation_memory", case, hint)
    expected = reference.activation_bytes(case)
    if got != expected:
        said = {"got": got, "expected": expected, "recompute": case.recompute}
        fail(say("ch1:activations", **said), case, hint)


# -- launch.py -----------------------------------------------------------------------------------------


def assert_env_read(run, case) -> None:
    got = run[0]
    if "raised" in got:
        fail(say("ch1:env raised", type=got["raised"], message=got["message"]), case, say("ch1:env:hint"))
    env = dict(case.env)
    expected = {
        "rank": int(env["RANK"]),
        "local_rank": int(env["LOCAL_RANK"]),
        "world_size": int(env["WORLD_SIZE"]),
        "local_world_size": int(env["LOCAL_WORLD_SIZE"]),
        "master_addr": env["MASTER_ADDR"],
        "master_port": int(env["MASTER_PORT"]),
    }
    for field, value in expected.items():
        mine = got["returned"][field]
        if mine != value or type(mine) is not type(value):
            fail(
                say("ch1:env field", field=field, got=repr(mine), expected=repr(value)),
                case,
                say("ch1:env:hint"),
            )


def _names(message: str, variable: str) -> bool:
    return re.search(rf"(?<![A-Z_]){variable}(?![A-Z_])", message) is not None


def assert_env_errors(run, case) -> None:
    got = run[0]
    wrong = " or ".join(case.wrong)
    if "returned" in got:
        fail(say("ch1:env accepted", wrong=wrong), case, say("ch1:env errors:hint"))
    missing = all(name not in dict(case.env) for name in case.wrong)
    if got["raised"] != "ValueError" and not (missing and got["raised"] == "KeyError"):
        fail(say("ch1:env error type", type=got["raised"]), case, say("ch1:env errors:hint"))
    named = [name for name in VARIABLES if _names(got["message"], name)]
    if not any(name in named for name in case.wrong):
        fail(say("ch1:env unnamed", message=got["message"], wrong=wrong), case, say("ch1:env errors:hint"))
    if len(named) > MOST_NAMED:
        fail(say("ch1:env names all", message=got["message"], wrong=wrong), case, say("ch1:env errors:hint"))


def assert_backend(run, case) -> None:
    if run[0] != case.expected:
        fail(
            say("ch1:backend", got=repr(run[0]), expected=repr(case.expected)), case, say("ch1:backend:hint")
        )


def assert_device(run, case) -> None:
    got = run[0]
    if not isinstance(got, dict):
        fail(say("ch1:not a device", got=repr(got)), case, say("ch1:device:hint"))
    if got["device"] != case.expected:
        said = {"got": got["device"], "expected": case.expected}
        fail(say("ch1:device", **said), case, say("ch1:device:hint"))
