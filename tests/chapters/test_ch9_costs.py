"""Chapter 9's cost model against measurement: the kit's Ring Attention and Ulysses run on real
gloo worlds, and the bytes each rank put on the wire must be the table the graders judge the
students' cost functions by (``graders.chapters.ch9.lc_cost.reference.MEASURED``) and the kit's
formulas. Torch's context parallelism shards buffers in the zigzag layout the chapter teaches;
its attention does not run on CPU (no sharding strategy for the CPU flash kernel)."""

import pytest

from graders.chapters.ch9 import cases, reference, tasks
from graders.chapters.ch9.lc_cost import reference as cost_reference
from graders.comm.collective_calls import phase_calls
from graders.impl import Impl
from graders.world.pool import WorldPool

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

SOLUTIONS = Impl.resolve("solutions")
DTYPES = {4: "float32", 8: "float64"}


@pytest.fixture(scope="module")
def pool():
    pool = WorldPool()
    yield pool
    pool.close()


def _wire_bytes(events, n: int) -> int:
    """What one rank sent to the others: every byte of a send, (n-1)/n of an all-to-all's."""
    sent = 0
    for event in events:
        if event.is_send:
            sent += event.nbytes
        elif event.op in ("all_to_all", "all_to_all_single"):
            sent += event.nbytes * (n - 1) // n
    return sent


def measure(pool, row: cost_reference.Measured) -> tuple[int, int]:
    case = cases.build_sharded(
        row.world,
        None,
        row.seq // row.world,
        row.heads,
        row.head_dim,
        True,
        dtype=DTYPES[row.bytes_per_element],
        seed=1,
    )
    task = tasks.ring_attention if row.method == "ring" else tasks.ulysses_attention
    run = pool.run(task, SOLUTIONS, case)
    sent = {
        (
            _wire_bytes(phase_calls(run.traces, r, "forward_end"), row.world),
            _wire_bytes(phase_calls(run.traces, r, "backward_end"), row.world),
        )
        for r in case.ranks
    }
    assert len(sent) == 1, f"the ranks sent different amounts: {sent}"
    forward, backward = sent.pop()
    return forward, forward + backward


@pytest.mark.parametrize("row", cost_reference.MEASURED, ids=lambda r: f"{r.method}-P{r.world}-s{r.seq}")
def test_the_table_is_what_the_kit_sends(pool, row):
    assert measure(pool, row) == (row.forward, row.training)
    formula = getattr(cost_reference, f"{row.method}_comm_bytes")
    sizes = (row.seq, row.heads, row.head_dim, row.world, row.bytes_per_element)
    assert (formula(*sizes, backward=False), formula(*sizes)) == (row.forward, row.training)


@pytest.mark.parametrize("world", [2, 3, 4])
def test_torch_context_parallel_shards_in_the_zigzag_layout(pool, world):
    case = cases.build_sharded(world, None, 4, 1, 1, True, seed=world)
    run = pool.run(tasks.torch_context_parallel_layout, SOLUTIONS, case)
    for rank in range(world):
        assert run[rank]["held"] == reference.positions(rank, world, 4, "zigzag").tolist()
        # torch 2.13 cannot run it on CPU: when it can, compare ring_attention with it here
        assert run[rank]["attention"] != "ran"
