"""The live ledger counts every storage alive that graded code made, wherever it is held, and
sees peaks inside phases; the training phases turn marks into roles."""

import weakref

import pytest
import torch
from torch import nn

from graders.impl import KIT_ROOT, Impl
from graders.training.live_memory import LiveLedger
from graders.training.measured_training import TrainingPhases, plain_training_peaks
from graders.training.tiny_lm import build_model, make_batches
from tests.world import probe_tasks as probe

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

HOARD: dict = {}


def test_storages_are_counted_once_at_full_size_and_forgotten_when_freed():
    ledger = LiveLedger()
    with ledger:
        big = torch.zeros(100)
        views = [big[:10], big[50:], big.view(10, 10)]
        assert ledger.total == 400
        small = torch.ones(3, dtype=torch.float64)
        assert ledger.total == 424
        del big, views
        assert ledger.total == 24
        del small
    assert ledger.total == 0


def _closure_over(tensor):
    return lambda: tensor


def test_a_module_level_global_a_closure_and_saved_tensors_are_all_alive():
    ledger = LiveLedger()
    with ledger:
        HOARD["grads"] = torch.zeros(50)  # a global: no walk from any wrapper finds it
        hook = _closure_over(torch.zeros(25))
        x = torch.ones(10, requires_grad=True)
        y = (x * 2).exp()  # noqa: F841 - exp saves its output for backward
        del x
        assert ledger.total >= (50 + 25 + 10 + 10) * 4
    HOARD.clear()
    assert hook is not None


def test_what_the_kit_builds_while_paused_is_not_counted():
    ledger = LiveLedger()
    with ledger:
        with ledger.paused():
            snapshot = torch.zeros(1000)
        assert ledger.total == 0
        snapshot.add_(1)  # an in-place result is not a new storage
        assert ledger.total == 0


def test_a_peak_inside_a_phase_is_seen_where_it_happened():
    ledger = LiveLedger()
    with ledger:
        ledger.enter("forward")
        temporary = torch.zeros(256)
        del temporary
        ledger.enter("backward")
        torch.zeros(4)
    assert ledger.peaks["forward"].bytes == 1024
    assert ledger.peaks["forward"].where.startswith("zeros at ")
    assert ledger.peaks["backward"].bytes == 16


def test_storage_resize_is_followed_and_the_tracked_tensors_count():
    model = nn.Linear(4, 4)
    ledger = LiveLedger()
    ledger.track(model.parameters())
    assert ledger.total == (16 + 4) * 4
    with ledger:
        gathered = torch.zeros(64)
        gathered.untyped_storage().resize_(0)  # how FSDP frees a gathered parameter
        assert ledger.total == (16 + 4) * 4
        gathered.untyped_storage().resize_(1000)  # grown behind the operators' back: counted
        assert ledger.total == (16 + 4) * 4 + 1000
    assert "resize_" not in vars(torch.UntypedStorage)


def test_training_phases_record_state_by_what_it_is_not_by_who_made_it():
    ledger = LiveLedger()
    model = nn.Linear(3, 3)
    phases = TrainingPhases(ledger, model_tensors=lambda: list(model.parameters()))
    ledger.track(model.parameters())
    state = {}
    with ledger:
        phases.mark("constructed")
        for _ in range(3):
            model(torch.ones(1, 3)).sum().backward()
            phases.mark("forward_end")
            phases.mark("backward_end")
            state.setdefault("momentum", torch.zeros(9))  # born in the first step, kept
            torch.zeros(100)  # a temporary of the step
            for p in model.parameters():
                p.grad = None
            phases.mark("step_end")
    roles = phases.summary()["roles"]
    assert roles["state"] == 36
    assert roles["kept"] == 36


def test_plain_peaks_measure_a_single_device_step():
    batch = make_batches(0, 1, 2)[0]
    plain = plain_training_peaks(build_model(0), batch)
    assert plain["setup"] == sum(p.numel() * 4 for p in build_model(0).parameters())
    assert plain["at_forward_end"] > plain["setup"]
    assert plain["forward"] >= plain["at_forward_end"]
    assert 0 < plain["backward_working_set"] < plain["backward"]


def test_a_storage_is_named_by_its_birth_not_by_its_id_which_a_later_one_may_get():
    ledger = LiveLedger()
    with ledger:
        ledger.enter("step")
        first = torch.zeros(8)
        before = ledger.alive_born_in("step")
        del first
        second = torch.zeros(8)  # often at the id the first one had
        after = ledger.alive_born_in("step")
    assert len(before) == len(after) == 1 and not set(before) & set(after)
    assert second is not None


def test_alias_shows_the_same_memory_until_it_is_cut():
    from graders.comm import backend_hold

    tensor = torch.arange(6.0).view(2, 3)[:, 1:]
    alias = backend_hold.alias(tensor)
    alias.mul_(10)
    assert tensor.tolist() == [[10.0, 20.0], [40.0, 50.0]] and tensor._version == 0
    storage = weakref.ref(tensor.untyped_storage())
    backend_hold.cut([alias])
    del tensor
    assert storage() is None and alias.numel() == 0  # the alias no longer holds the memory


def test_a_finished_collective_holds_none_of_the_buffers_graded_code_let_go_of(harness):
    """gloo's worker thread keeps a finished work (and its tensors) a moment after ``wait()``
    returns, so a buffer let go of at once outlived its last reference now and then (one time
    in six on a quiet machine), and the ZeRO-3 prefetch sample was once seen with three layers
    gathered at once. Under a live ledger the backend's hold is cut when the code lets go:
    no buffer outlives it, and the most gathered at once is one buffer."""
    probes = Impl.resolve(KIT_ROOT / "fixtures" / "probes")
    measured = harness.pool.run(
        probe.call_measured, probes, probe.ProbeCase(3, "lets_go_of_finished_collectives")
    )
    for rank in range(3):
        assert set(measured[rank]["value"].values()) == {0}, measured[rank]["value"]
        assert measured[rank]["gathered"] == 4 * 3 * 4  # one buffer of 4 float32 per rank
    # the check can fail: without the cut, the backend's thread keeps some of them alive
    case = probe.ProbeCase(3, "lets_go_of_finished_collectives:uncut")
    for _ in range(5):  # it is a race: under heavy load it can be rarer than one in a hundred
        uncut = harness.pool.run(probe.call_measured, probes, case)
        if any(sum(uncut[rank]["value"].values()) for rank in range(3)):
            break
    else:
        raise AssertionError("no buffer outlived its last reference even without the cut")
