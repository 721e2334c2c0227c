"""Every route torch offers to a tensor storage is counted by the live ledger when graded code keeps
what it made across a phase boundary, whatever made it: Python data (``torch.tensor`` and its kin,
the legacy constructors), buffers, files and numpy (``frombuffer``, ``from_numpy``, DLPack,
``from_file``, ``mmap``, ``torch.load``, pickle), storages by hand, and operators
(``new_*``, ``*_like``). None of them needs an operator to touch it afterwards: the sweep of the
live objects finds it (:mod:`graders.training.live_sweep`). And what the kit had before the ledger
started, or made while it was paused, is never counted.

The routes live in ``fixtures/probes/storage_routes.py``.
"""

from __future__ import annotations

import sys

import pytest

from graders.impl import KIT_ROOT
from graders.training.live_memory import LiveLedger

sys.path.insert(0, str(KIT_ROOT / "fixtures" / "probes"))
import storage_routes  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # TypedStorage is deprecated
#: a graded ledger's folder (the sweep runs where graded code does; the kit's own measurements of
#: its own models need none)
GRADED = str(KIT_ROOT / "fixtures" / "probes")
N = 4096  # float32 elements: 16 KiB, far above anything the ledger's own bookkeeping makes
BYTES = 4 * N


def test_the_routes_are_every_family():
    families = {"tensor_from_list", "frombuffer_bytearray", "from_numpy", "untyped_storage", "new_empty"}
    assert families <= set(storage_routes.ROUTES)
    assert len(storage_routes.ROUTES) >= 20


@pytest.mark.parametrize("name", sorted(storage_routes.ROUTES))
def test_a_storage_kept_across_a_phase_is_counted(name):
    kept = []
    ledger = LiveLedger(GRADED)
    with ledger:
        ledger.enter("step", step=0)
        before = ledger.total
        kept.append(storage_routes.ROUTES[name](N))
        ledger.enter("step", step=1)  # a phase boundary: the sweep
        counted = ledger.total - before
    assert counted >= BYTES, f"{name}: {counted} bytes counted of {BYTES} kept"
    assert ledger.peaks["step"].bytes >= BYTES


@pytest.mark.parametrize(
    "name", ["tensor_from_list", "as_tensor_from_list", "legacy_constructor", "from_numpy", "untyped_storage"]
)
def test_a_storage_made_from_data_or_by_hand_is_counted_at_once(name):
    """Counted as it is made, before any boundary: a peak inside a phase sees it."""
    ledger = LiveLedger(GRADED)
    with ledger:
        ledger.enter("forward")
        made = storage_routes.ROUTES[name](N)
        assert ledger.total >= BYTES
        assert ledger.peaks["forward"].bytes >= BYTES
    del made


def test_a_storage_hidden_after_a_collection_is_counted():
    """A collection moves young objects out of the youngest generation: they are noted first."""
    import gc

    kept = []
    ledger = LiveLedger(GRADED)
    with ledger:
        ledger.enter("step", step=0)
        kept.append(storage_routes.tensor_from_list(N))
        gc.collect()
        ledger.enter("step", step=1)
    assert ledger.total >= BYTES


def test_a_removed_collection_callback_is_put_back_and_everything_walked():
    import gc

    kept = []
    ledger = LiveLedger(GRADED)
    with ledger:
        ledger.enter("step", step=0)
        kept.append(storage_routes.tensor_from_list(N))
        saved = list(gc.callbacks)
        gc.callbacks.clear()
        gc.collect()
        ledger.enter("step", step=1)
        gc.callbacks.extend(c for c in saved if c not in gc.callbacks)
    assert ledger.total >= BYTES


def test_the_kits_own_storages_are_never_counted():
    made_before = storage_routes.tensor_from_list(N)
    kept = []
    ledger = LiveLedger(GRADED)
    with ledger:
        ledger.enter("step", step=0)
        with ledger.paused():
            kept.append(storage_routes.tensor_from_list(N))
            kept.append(storage_routes.untyped_storage(N))
        (made_before + 1).sum()
        ledger.enter("step", step=1)
    assert ledger.total < BYTES, ledger.total
