"""Red-team samples: honest alternatives keep full marks, determined cheats lose their part.

Every sample in ``fixtures/submissions/chN/<name>/`` is a complete submission of one exercise,
written from the exercise's docstrings and README (never from ``solutions/``). An *honest*
sample solves the exercise another way than the reference does and must earn every part. A
*cheat* gets the right values while skipping what the lesson is about; it must lose the parts
named in its row, each with a message that says what was found.

A row whose verdict is wrong today (a cheat that keeps credit, an honest sample that loses
points) is marked ``xfail(strict=True)`` with what the graders get wrong: when the graders are
fixed, the row starts passing and the mark must go.

Chapter 2's samples live in ``fixtures/submissions/ch2/_redteam/``: ``dtlab grade`` skips
folders whose name starts with ``_``, so ``tests/test_samples.py``'s class of students is
unchanged. A cheat is graded on the parts it must lose only (the others do not change its
verdict); an honest sample on every part. Run with ``--hypothesis-profile ci --dtlab-deadline 5``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from graders.authoring import mutants
from graders.impl import KIT_ROOT, Impl

SAMPLES = KIT_ROOT / "fixtures" / "submissions"
FULL = "full marks"


@dataclass(frozen=True)
class Verdict:
    """A sample, its exercise, and what grading it must give: ``FULL`` or ``{part: fragment}``
    (each part must fail, its message must contain the fragment)."""

    sample: str  # "ch5/zero1_greedy": a folder under fixtures/submissions
    exercise: str  # "ch5.zero1"
    expected: str | dict[str, str]
    marks: tuple = ()


def _xfail(reason: str) -> tuple:
    return (pytest.mark.xfail(strict=True, reason=reason),)


BANNED_AR = "called torch.distributed.all_reduce"
KIT = "imports the grading kit"
FRAMES = "reads the interpreter's frames"
BORN_IN_BACKWARD = "born in backward and still alive when it returned"


ROWS = [
    # -- chapter 2: ring_all_reduce may not reach torch's all-reduce by any route -------------
    Verdict(
        "ch2/_redteam/ar_c10d",
        "ch2.ring_all_reduce",
        {"result": "distributed_c10d", "ring": "distributed_c10d"},
    ),
    *(
        Verdict(f"ch2/_redteam/{name}", "ch2.ring_all_reduce", {"result": BANNED_AR, "ring": BANNED_AR})
        for name in ("ar_c10d_hidden", "ar_getattr", "ar_closure")
    ),
    Verdict(
        "ch2/_redteam/ar_closure_thread",
        "ch2.ring_all_reduce",
        {"result": BANNED_AR, "ring": BANNED_AR},
    ),
    Verdict(
        "ch2/_redteam/ar_timeit",
        "ch2.ring_all_reduce",
        {"result": BANNED_AR, "ring": BANNED_AR},
    ),
    Verdict(
        "ch2/_redteam/ar_recorder_off",
        "ch2.ring_all_reduce",
        {"result": BANNED_AR, "ring": BANNED_AR},
        marks=_xfail(
            "3/3: the RecordedWork of one isend carries the recorder (send._recorder); with "
            "recorder.active = False its wrappers call torch's all-reduce unrecorded and unchecked "
            "(and the doors' audit hook stands down too); nothing in the scan or the state guard "
            "notices an attribute of the recorder changing"
        ),
    ),
    # -- chapter 4: a parameter server must not read the grader -------------------------------
    Verdict("ch4/ps_getframe", "ch4.param_server", {"result": "sys._getframe", "traffic": "sys._getframe"}),
    Verdict("ch4/ps_getframe_hidden", "ch4.param_server", {"result": FRAMES, "traffic": FRAMES}),
    Verdict(
        "ch4/ps_traceback",
        "ch4.param_server",
        {"result": "reads a frame through a traceback", "traffic": "reads a frame through a traceback"},
    ),
    Verdict("ch4/ps_kit_reference", "ch4.param_server", {"result": KIT, "traffic": KIT}),
    Verdict(
        "ch4/ps_logging_frame",
        "ch4.param_server",
        {"result": FRAMES, "traffic": FRAMES},
    ),
    # -- chapter 4: DDP and sharded data parallelism ------------------------------------------
    Verdict("ch4/ddp_tensor_hooks", "ch4.ddp", FULL),
    Verdict(
        "ch4/ddp_queue_callback", "ch4.ddp", {"overlap": "waited for backward instead of overlapping it"}
    ),
    Verdict(
        "ch4/ddp_untraced",
        "ch4.ddp",
        {"overlap": "all_reduce"},
        marks=_xfail(
            "10/10: the hooks launch on time all-reduces of zeros the size of each bucket (the trace's "
            "buckets and overlap are right); the gradients are averaged after backward by the "
            "unwrapped all-reduce from dist.all_reduce.__closure__ (assembled name), which the recorder "
            "never sees: only banned originals are guarded, the others are reachable and untraced"
        ),
    ),
    Verdict(
        "ch4/ddp_silenced",
        "ch4.ddp",
        {"overlap": "waited for backward instead of overlapping it"},
        marks=_xfail(
            "10/10: the DDP clears p._post_accumulate_grad_hooks (a plain dict on each parameter) "
            "before registering its own hook, removing the kit's ready reporters; with no ready:* "
            "events, late_bucket finds no complete bucket, and launching everything from an "
            "end-of-backward callback passes overlap"
        ),
    ),
    Verdict("ch4/fsdp_resize", "ch4.fsdp", FULL),
    # -- chapter 5: ZeRO-1 and ZeRO-2 written another way ----------------------------------
    Verdict("ch5/zero1_per_param", "ch5.zero1", FULL),
    Verdict(
        "ch5/zero1_greedy",
        "ch5.zero1",
        FULL,
    ),
    Verdict(
        "ch5/zero1_grad_buffer",
        "ch5.zero1",
        FULL,
        marks=_xfail(
            "loses memory (2/6): the gradient partition, allocated once on the first step() and reused, "
            "is 'born in a step and still alive one step later', so the ledger counts it as optimizer "
            "state: 'the ranks together have 2,160 bytes ... at most 1,920' (world_size=3, AdamW), "
            "although 'kept' allows the partition's gradient"
        ),
    ),
    Verdict("ch5/zero2_divide_first", "ch5.zero2", FULL),
    Verdict("ch5/zero2_per_param", "ch5.zero2", FULL),
    # -- chapter 5: torch's ZeroRedundancyOptimizer is banned at the class ------------------
    Verdict(
        "ch5/zero1_subclasses",
        "ch5.zero1",
        {part: "walks a class's subclasses" for part in ("result", "memory", "crosscheck")},
    ),
    Verdict(
        "ch5/zero1_subclasses_hidden",
        "ch5.zero1",
        {
            part: "called torch.distributed.optim.ZeroRedundancyOptimizer"
            for part in ("result", "memory", "crosscheck")
        },
    ),
    Verdict(
        "ch5/zero1_subclasses_timeit",
        "ch5.zero1",
        {part: "ZeroRedundancyOptimizer" for part in ("result", "memory", "crosscheck")},
    ),
    Verdict("ch5/zero1_mro_decoy", "ch5.zero1", {"memory": "born in a step and still alive one step later"}),
    Verdict(
        "ch5/zero2_hoard_numpy_helper",
        "ch5.zero2",
        {"memory": "as a numpy array (.numpy())"},
        marks=_xfail(
            "memory passes: the .numpy() copy sits in a helper class's method (_Store.keep); "
            "ScanResult.for_symbol follows names a symbol references to *top-level* scopes only, so a "
            "finding in 'Helper.method' (or in a helper's nested function) is never attributed"
        ),
    ),
    Verdict(
        "ch5/zero2_hoard_numpy_module",
        "ch5.zero2",
        {"memory": "numpy"},
        marks=_xfail(
            "memory passes: numpy is imported by a sibling module of the submission (_store.py, "
            "imported relatively); the harness scans only the graded module's own file"
        ),
    ),
    # -- chapter 5: ZeRO-3 ------------------------------------------------------------------
    Verdict("ch5/zero3_prefetch", "ch5.zero3", FULL),
    Verdict("ch5/zero3_keep_gathered", "ch5.zero3", {"memory": "alive when forward returned"}),
    Verdict("ch5/zero3_root_gather", "ch5.zero3", {"memory": "alive at the peak of forward"}),
    Verdict(
        "ch5/zero3_root_prefetch_all",
        "ch5.zero3",
        {"memory": "alive at the peak of forward"},
        marks=_xfail(
            "6/6: the root's pre-hook launches every parameter's all-gather at once (the whole model "
            "is gathered when forward starts) and each layer releases its own after running; the "
            "peak:forward limit adds the single device's activation peak (reached at the end of "
            "forward) to two layers, so the whole model at the start stays under it (world_size=4, "
            "AdamW: 1,768 <= 2,016 bytes)"
        ),
    ),
    Verdict(
        "ch5/zero3_backward_whole",
        "ch5.zero3",
        {"memory": "backward"},
        marks=_xfail(
            "6/6: backward's first unpack gathers the whole model and keeps it until an "
            "end-of-backward callback; ZeRO-3's promises (kept, at_forward_end, peak:forward) say "
            "nothing about backward, so a rank holding every full parameter in backward passes"
        ),
    ),
    # -- chapter 5: ZeRO-Offload's placement ---------------------------------------------------
    Verdict("ch5/offload_cpu_float", "ch5.offload", FULL),
    Verdict("ch5/offload_empty_like", "ch5.offload", FULL),
    Verdict(
        "ch5/offload_ignores_host", "ch5.offload", {"placement": "lives on the device, next to the model"}
    ),
    Verdict(
        "ch5/offload_like_no_device", "ch5.offload", {"placement": "lives on the device, next to the model"}
    ),
    Verdict(
        "ch5/offload_own_device",
        "ch5.offload",
        {"placement": "lives on the device, next to the model"},
        marks=_xfail(
            "3/3: p.to(p.device, torch.float32, copy=True) keeps each master on the parameter's own "
            "device (the GPU, on a GPU machine), but SimulatedDevice treats every Tensor.to that names a "
            "device as a copy to the host (_targets_a_device), whichever device it names"
        ),
    ),
    # -- chapter 5: full ZeRO-2 gradients kept where a ledger might not look ----------------
    *(
        Verdict(f"ch5/zero2_hoard_{where}", "ch5.zero2", {"memory": BORN_IN_BACKWARD})
        for where in ("global", "class_attr", "closure", "autograd_ctx", "storage_resize")
    ),
    Verdict("ch5/zero2_hoard_thread", "ch5.zero2", {"memory": "runs code in another thread"}),
    Verdict("ch5/zero2_hoard_numpy", "ch5.zero2", {"memory": "as a numpy array (.numpy())"}),
    Verdict("ch5/zero2_hoard_tolist", "ch5.zero2", {"memory": "into Python lists (.tolist())"}),
    Verdict("ch5/zero2_all_in_flight", "ch5.zero2", {"memory": "held by asynchronous collectives at once"}),
    Verdict(
        "ch5/zero2_hoard_raw_storage",
        "ch5.zero2",
        {"memory": BORN_IN_BACKWARD},
        marks=_xfail(
            "memory passes: a storage built at full size, type(g.untyped_storage())(nbytes), is made by "
            "no operator and never resized, and torch.empty(0).set_(storage) is not adopted either (the "
            "ledger reads the inputs' storages after the op, when self already holds the new one); "
            "the static scan looks for the name UntypedStorage only"
        ),
    ),
    Verdict(
        "ch5/zero2_hoard_no_dispatch",
        "ch5.zero2",
        {"memory": BORN_IN_BACKWARD},
        marks=_xfail(
            "memory passes: getattr(torch.utils, '_python' + '_dispatch')._disable_current_modes() "
            "switches the ledger (a dispatch mode) off while the copies are made; the static scan "
            "flags the module's name only when a constant spells it"
        ),
    ),
    Verdict(
        "ch5/zero2_hoard_threadpool",
        "ch5.zero2",
        {"memory": "another thread"},
        marks=_xfail(
            "memory passes: copies made in a multiprocessing.pool.ThreadPool worker escape the "
            "thread-local dispatch mode; the scan closes threading/_thread/concurrent, while "
            "multiprocessing is only a review note"
        ),
    ),
    Verdict(
        "ch5/zero2_hoard_items",
        "ch5.zero2",
        {"memory": "Python"},
        marks=_xfail(
            "memory passes: [x.item() for x in g.reshape(-1)] keeps the gradient as Python floats; "
            "the scan closes .tolist() and .numpy(), not .item()"
        ),
    ),
    Verdict(
        "ch5/zero2_hoard_bytesio",
        "ch5.zero2",
        {"memory": "serialises"},
        marks=_xfail(
            "memory passes: torch.save(grads, io.BytesIO()) keeps the gradient as bytes; neither "
            "torch.save nor io is in the scan (pickle is, by module name only)"
        ),
    ),
    Verdict(
        "ch4/ps_side_channel",
        "ch4.param_server",
        {"traffic": "server"},
        marks=_xfail(
            "4/4: gradients and parameters travel through torch.save/torch.load files in the temp "
            "directory; the p2p messages have the right sizes and peers (a parameter-sized hello, a "
            "gradient-sized done, 1-element ready and ack) but carry zeros: the traffic bounds count bytes "
            "and peers, never what the bytes are; torch.save/load, tempfile and os are not scanned"
        ),
    ),
    # -- chapters 5 and 7: the kit's references are not importable -------------------------
    Verdict("ch7/bubble_import", "ch7.bubble_fraction", {"formula": KIT, "measured": KIT}),
    Verdict("ch7/bubble_import_module", "ch7.bubble_fraction", {"formula": KIT, "measured": KIT}),
    Verdict(
        "ch7/bubble_builtins_import",
        "ch7.bubble_fraction",
        {"formula": KIT, "measured": KIT},
    ),
    Verdict(
        "ch7/bubble_file_loader",
        "ch7.bubble_fraction",
        {"formula": KIT, "measured": KIT},
    ),
    Verdict("ch5/zmem_import", "ch5.zero_memory_per_gpu", {"formula": KIT, "paper": KIT}),
    Verdict("ch5/zmem_import_module", "ch5.zero_memory_per_gpu", {"formula": KIT, "paper": KIT}),
    Verdict(
        "ch5/zmem_builtins_import",
        "ch5.zero_memory_per_gpu",
        {"formula": KIT, "paper": KIT},
    ),
]

_TESTS: dict[str, dict] = {}


def _tests(chapter: str) -> dict:
    if chapter not in _TESTS:
        _TESTS[chapter] = mutants.exercise_tests(chapter)
    return _TESTS[chapter]


def _param(row: Verdict):
    return pytest.param(row, id=row.sample, marks=row.marks)


@pytest.mark.parametrize("row", [_param(r) for r in ROWS])
def test_verdict(row: Verdict, harness):
    chapter = row.exercise.split(".")[0]
    impl = Impl.resolve(SAMPLES / row.sample)
    tests = _tests(chapter)
    if row.expected == FULL:
        failed = mutants.grade_parts(impl, row.exercise, harness, tests)
        assert failed == {}, f"{row.sample} lost points: " + "\n".join(f"{p}: {m}" for p, m in failed.items())
        return
    expected = row.expected
    # a cheat is graded on the parts it must lose only: the others do not change its verdict
    only = {key: fns for key, fns in tests.items() if key[0] == row.exercise and key[1] in expected}
    failed = mutants.grade_parts(impl, row.exercise, harness, only)
    kept = sorted(set(expected) - set(failed))
    assert not kept, f"{row.sample} kept credit for {kept}"
    for part, fragment in expected.items():
        assert fragment in failed[part], f"{row.sample}, part {part}: {fragment!r} not in:\n{failed[part]}"
        assert "Traceback" not in failed[part]


def test_every_sample_has_a_row_and_says_what_it_is():
    folders = {
        str(path.parent.relative_to(SAMPLES))
        for chapter in ("ch2/_redteam", "ch4", "ch5", "ch7")
        for path in (SAMPLES / chapter).glob("*/*.py")
    }
    assert folders == {row.sample for row in ROWS}
    for folder in folders:
        for path in (SAMPLES / folder).glob("*.py"):
            first = path.read_text().lstrip().split("\n", 1)[0]
            assert first.startswith('"""'), f"{path} starts without a docstring"
