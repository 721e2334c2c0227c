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
folders whose name starts with ``_``, so ``tests/grading/test_samples.py``'s class of students is
unchanged. A cheat is graded on the parts it must lose only (the others do not change its
verdict), with the active profile; an honest sample on every part, with the lighter
``mutants`` profile (its explicit edge cases, then 5 examples). A cheat the static scan stops
is graded again with the runtime guard alone, which must stop it too, with the message of its
row. Run with
``--hypothesis-profile ci --dtlab-deadline 5``.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

import pytest

from graders.catalog import CHAPTERS
from graders.impl import KIT_ROOT, Impl
from graders.misconceptions import mutants
from graders.plugin.profiles import MUTANTS_PROFILE

pytestmark = pytest.mark.many_submissions

SAMPLES = KIT_ROOT / "fixtures" / "submissions"
FULL = "full marks"


@dataclass(frozen=True)
class Verdict:
    """A sample, its exercise, and what grading it must give: ``FULL`` or ``{part: fragment}``
    (each part must fail, its message must contain the fragment, or one of a tuple of them)."""

    sample: str  # "ch5/zero1_greedy": a folder under fixtures/submissions
    exercise: str  # "ch5.zero1"
    expected: str | dict[str, str]
    marks: tuple = ()
    static_only: bool = False  # only the static scan sees it (memory outside storages, sys.modules)


def _xfail(reason: str) -> tuple:
    return (pytest.mark.xfail(strict=True, reason=reason),)


SCANNED = "goes around the graders' guard"  # the static scan's verdict
BANNED_AR = "called torch.distributed.all_reduce"
KIT = "imports the grading kit"
FRAMES = "reads the interpreter's frames"
BORN_IN_BACKWARD = "born in backward and still alive when it returned"
BANNED_ZERO = "called torch.distributed.optim.ZeroRedundancyOptimizer"
THREAD = "starts a thread"
GATHERED = "gathered by all-gathers and alive at once"
SIDE_CHANNEL = "moves data behind the graders' back"
NATIVE = "native communicating functions"
BANNED_FUNC = "called torch.func.vjp"
#: a "by hand" contract's allowlist (graders.comm.hand_written)
AUTOGRAD_NODE = "ran operators inside autograd's node"
NOT_ADMITTED = "which code written by hand may not do"
#: a pipeline that runs a forward again (graders.judge.schedule_order)
RECOMPUTED = "forwards for the"
NOT_THE_SCHEDULE = "did not run its schedule"
CH6_EXERCISES = [e.id for e in CHAPTERS["ch6"].exercises]
CH8_EXERCISES = [e.id for e in CHAPTERS["ch8"].exercises]
CH9_EXERCISES = [e.id for e in CHAPTERS["ch9"].exercises]
RING_PARTS = {
    "ch9.ring_attention": ("result", "backward", "traffic"),
    "ch9.zigzag_ring_attention": ("result",),
}
CH10_EXERCISES = [e.id for e in CHAPTERS["ch10"].exercises]
CH3_EXERCISES = [e.id for e in CHAPTERS["ch3"].exercises]
CH1_EXERCISES = [e.id for e in CHAPTERS["ch1"].exercises]
SCRIPT_PARTS = ("result", "shards", "rank0")
OPTIMIZER_PARTS = ("result", "state")
MORE_STATE = "more than the"
#: data kept as Python numbers, counted on the Python heap (graders.training.python_heap)
PYTHON_DATA = "bytes of new Python data"
#: what the run-time measures say of memory kept outside the ledger's first view
MEASURED = (BORN_IN_BACKWARD, PYTHON_DATA)
OUTSIDE_STORAGES = "goes around the graders' guard"


ROWS = [
    # -- chapter 2: ring_all_reduce may not reach torch's all-reduce by any route -------------
    Verdict(
        "ch2/_redteam/ar_c10d",
        "ch2.ring_all_reduce",
        {"result": BANNED_AR, "ring": BANNED_AR},
    ),
    *(
        Verdict(f"ch2/_redteam/{name}", "ch2.ring_all_reduce", {"result": BANNED_AR, "ring": BANNED_AR})
        for name in ("ar_c10d_hidden", "ar_getattr", "ar_closure")
    ),
    Verdict(
        "ch2/_redteam/ar_closure_thread",
        "ch2.ring_all_reduce",
        {"result": THREAD, "ring": THREAD},
    ),
    Verdict(
        "ch2/_redteam/ar_timeit",
        "ch2.ring_all_reduce",
        {"result": BANNED_AR, "ring": BANNED_AR},
    ),
    # a signal to the grading processes never leaves the rank, and costs the exercise (caught or not)
    Verdict(
        "ch2/_redteam/shift_signals",
        "ch2.ring_shift",
        {"result": "your code sent SIGTERM to the grading process"},
    ),
    Verdict(
        "ch2/_redteam/shift_signals_pidfd",
        "ch2.ring_shift",
        {"result": "sends a signal to another process"},
    ),
    # torch's native broadcast (DDP's), in C++ on the ProcessGroup: refused as a door
    Verdict(
        "ch2/_redteam/ar_broadcast_coalesced",
        "ch2.ring_all_reduce",
        {"result": NATIVE, "ring": NATIVE},
    ),
    Verdict(
        "ch2/_redteam/ar_recorder_off",
        "ch2.ring_all_reduce",
        {"result": "no attribute '_recorder'", "ring": "no attribute '_recorder'"},
    ),
    # -- chapter 4: a parameter server must not read the grader -------------------------------
    Verdict("ch4/ps_getframe", "ch4.param_server", {"result": FRAMES, "traffic": FRAMES}),
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
        {"overlap": "after backward returned"},
    ),
    Verdict(
        "ch4/ddp_silenced",
        "ch4.ddp",
        {"overlap": "their hooks on the parameters were removed"},
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
    ),
    Verdict("ch5/zero_aligned", "ch5.zero1", FULL),
    Verdict("ch5/zero_aligned", "ch5.zero2", FULL),
    Verdict("ch5/zero_aligned", "ch5.zero3", FULL),
    Verdict("ch5/zero2_divide_first", "ch5.zero2", FULL),
    Verdict("ch5/zero2_per_param", "ch5.zero2", FULL),
    # -- chapter 5: torch's ZeroRedundancyOptimizer is banned at the class ------------------
    Verdict(
        "ch5/zero1_subclasses",
        "ch5.zero1",
        {part: BANNED_ZERO for part in ("result", "memory", "crosscheck")},
    ),
    Verdict(
        "ch5/zero1_subclasses_hidden",
        "ch5.zero1",
        {part: BANNED_ZERO for part in ("result", "memory", "crosscheck")},
    ),
    Verdict(
        "ch5/zero1_subclasses_timeit",
        "ch5.zero1",
        {part: BANNED_ZERO for part in ("result", "memory", "crosscheck")},
    ),
    Verdict(
        "ch5/zero1_mro_decoy",
        "ch5.zero1",
        {"memory": ("kept alive between two steps", "born in a step and still alive one step later")},
    ),
    # numpy arrays: flagged by the scan, and measured at run time (the live ledger, the heap)
    Verdict("ch5/zero2_hoard_numpy_helper", "ch5.zero2", {"memory": ("as a numpy array", *MEASURED)}),
    Verdict("ch5/zero2_hoard_numpy_module", "ch5.zero2", {"memory": ("numpy", *MEASURED)}),
    # -- chapter 5: ZeRO-3 ------------------------------------------------------------------
    Verdict("ch5/zero3_prefetch", "ch5.zero3", FULL),
    Verdict("ch5/zero3_keep_gathered", "ch5.zero3", {"memory": "alive when forward returned"}),
    Verdict("ch5/zero3_root_gather", "ch5.zero3", {"memory": GATHERED}),
    Verdict(
        "ch5/zero3_root_prefetch_all",
        "ch5.zero3",
        {"memory": GATHERED},
    ),
    Verdict(
        "ch5/zero3_backward_whole",
        "ch5.zero3",
        {"memory": GATHERED + " in backward"},
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
    ),
    # -- chapter 5: ZeRO-Infinity's paging ----------------------------------------------------
    Verdict("ch5/infinity_honest_packed", "ch5.infinity", FULL),
    Verdict("ch5/infinity_honest_double_buffer", "ch5.infinity", FULL),
    Verdict("ch5/infinity_cheat_read_all_upfront", "ch5.infinity", {"memory": "were alive at once"}),
    Verdict(
        "ch5/infinity_cheat_sync_read",
        "ch5.infinity",
        {"prefetch": "not read with read_async before partition"},
    ),
    Verdict(
        "ch5/infinity_bug_wait_early", "ch5.infinity", {"prefetch": "the read and the step did not overlap"}
    ),
    Verdict(
        "ch5/infinity_cheat_hidden_compute", "ch5.infinity", {"prefetch": "no step of optimizer_cls was seen"}
    ),
    Verdict(
        "ch5/infinity_bug_write_in_place",
        "ch5.infinity",
        {"crash": "shorter than the previous step wrote it"},
    ),
    Verdict("ch5/infinity_bug_step_counter_lost", "ch5.infinity", {"result": "wrong values at"}),
    Verdict(
        "ch5/infinity_bug_rereads_masters", "ch5.infinity", {"paging": "read more than once in one step"}
    ),
    Verdict("ch5/infinity_cheat_thread", "ch5.infinity", {"prefetch": THREAD}),
    Verdict("ch5/infinity_cheat_bytes_state", "ch5.infinity", {"memory": "native code (ctypes)"}),
    # the drive's requests are closures: a bound method's __reduce__ no longer names the object
    # behind it (the scan refuses __reduce__, and the runtime cannot pickle a closure)
    Verdict("ch5/infinity_cheat_own_open", "ch5.infinity", {"memory": "cannot pickle"}),
    Verdict("ch5/infinity_cheat_imports_solution", "ch5.infinity", {"result": KIT}),
    Verdict("ch5/infinity_cheat_drive_reduce", "ch5.infinity", {"memory": "cannot pickle"}),
    Verdict("ch5/infinity_cheat_drive_no_tear", "ch5.infinity", {"crash": "cannot pickle"}),
    Verdict("ch5/infinity_cheat_state_in_memory", "ch5.infinity", {"memory": "kept between steps"}),
    Verdict(
        "ch5/infinity_cheat_read_all_cloned",
        "ch5.infinity",
        {"memory": "alive"},
        marks=_xfail(
            "within a step, memory counts the tensors handed to the drive: every partition read up "
            "front and cloned (the filled tensor dropped) holds the whole shard's state unseen until "
            "the step ends (it loses prefetch, not memory)"
        ),
    ),
    # two read buffers made once and reused from step to step: what DeepSpeed's swapper does
    Verdict("ch5/infinity_honest_persistent_buffers", "ch5.infinity", FULL),
    # -- chapter 5: full ZeRO-2 gradients kept where a ledger might not look ----------------
    *(
        Verdict(f"ch5/zero2_hoard_{where}", "ch5.zero2", {"memory": BORN_IN_BACKWARD})
        for where in ("global", "class_attr", "closure", "autograd_ctx", "storage_resize")
    ),
    Verdict("ch5/zero2_hoard_thread", "ch5.zero2", {"memory": THREAD}),
    Verdict("ch5/zero2_hoard_numpy", "ch5.zero2", {"memory": ("as a numpy array", *MEASURED)}),
    Verdict("ch5/zero2_hoard_tolist", "ch5.zero2", {"memory": PYTHON_DATA}),
    # storages made below the dispatcher (issue 45 §2): from Python data, over a Python buffer,
    # by a legacy constructor; counted where they enter the dispatcher or by the sweep
    *(
        Verdict(f"ch5/zero2_hoard_{route}", "ch5.zero2", {"memory": (BORN_IN_BACKWARD, PYTHON_DATA)})
        for route in ("from_python_data", "frombuffer", "legacy_constructor")
    ),
    # Python data that grows with the model (issue 45 §3): packed into small blocks, one joined
    # bytes object, text, a buffer made at import and filled in place; caught on the wide model
    *(
        Verdict(f"ch5/zero2_hoard_{route}", "ch5.zero2", {"memory": PYTHON_DATA})
        for route in ("packed_blocks", "joined_bytes", "hex_strings", "import_stash")
    ),
    Verdict("ch5/zero2_all_in_flight", "ch5.zero2", {"memory": "held by asynchronous collectives at once"}),
    Verdict(
        "ch5/zero2_hoard_raw_storage",
        "ch5.zero2",
        {"memory": BORN_IN_BACKWARD},
    ),
    Verdict(
        "ch5/zero2_hoard_no_dispatch",
        "ch5.zero2",
        {"memory": "steps out of the graders' dispatch modes"},
    ),
    Verdict(
        "ch5/zero2_hoard_disable_dispatch",
        "ch5.zero2",
        {"memory": "steps out of the graders' dispatch modes"},
    ),
    Verdict(
        "ch5/zero2_hoard_threadpool",
        "ch5.zero2",
        {"memory": THREAD},
    ),
    Verdict("ch5/zero2_hoard_items", "ch5.zero2", {"memory": PYTHON_DATA}),
    Verdict(
        "ch5/zero2_hoard_bytesio",
        "ch5.zero2",
        {"memory": SIDE_CHANNEL},
    ),
    Verdict(
        "ch4/ps_side_channel",
        "ch4.param_server",
        {"traffic": SIDE_CHANNEL},
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
    Verdict(
        "ch7/executor_removes_meters",
        "ch7.run_pipeline",
        {"memory": "removed the hooks of its stage module"},
    ),
    # the order a schedule gives: each forward once, in the schedule's order, with the schedule's
    # microbatches in flight (issue 45 §4): recomputing by hand, under no_grad or with a dropped
    # graph, or by torch.utils.checkpoint; and an executor that runs its own order
    *(
        Verdict(f"ch7/{name}", "ch7.run_pipeline", {"memory": RECOMPUTED})
        for name in ("executor_no_grad_recompute", "executor_detached_recompute", "executor_checkpointed")
    ),
    Verdict("ch7/executor_always_1f1b", "ch7.run_pipeline", {"memory": NOT_THE_SCHEDULE}),
    Verdict("ch7/executor_state_machine", "ch7.run_pipeline", FULL),
    Verdict("ch5/zmem_import", "ch5.zero_memory_per_gpu", {"formula": KIT, "paper": KIT}),
    Verdict("ch5/zmem_import_module", "ch5.zero_memory_per_gpu", {"formula": KIT, "paper": KIT}),
    Verdict(
        "ch5/zmem_builtins_import",
        "ch5.zero_memory_per_gpu",
        {"formula": KIT, "paper": KIT},
    ),
    # -- chapter 6: honest alternatives (every exercise of the chapter) ----------------------
    *(
        Verdict(f"ch6/{name}", exercise, FULL)
        for name in ("honest_functions", "honest_straight_through")
        for exercise in CH6_EXERCISES
    ),
    # -- chapter 6: a rank is handed only its own shard; the others are NaN ----------------------
    Verdict("ch6/column_whole_weight", "ch6.column_parallel_linear", {"result": "nan"}),
    Verdict("ch6/embedding_whole_table", "ch6.vocab_parallel_embedding", {"result": "nan"}),
    Verdict("ch6/mlp_whole_state", "ch6.parallel_mlp", {"result": "nan"}),
    # -- chapter 6: the row layer's backward must be written by hand ---------------------------
    Verdict("ch6/row_bias_function", "ch6.row_parallel_linear", {"backward": "autograd differentiated"}),
    Verdict(
        "ch6/row_func_vjp",
        "ch6.row_parallel_linear",
        {"result": BANNED_FUNC, "backward": BANNED_FUNC},
    ),
    Verdict("ch6/row_mul_sum", "ch6.row_parallel_linear", {"backward": "autograd differentiated"}),
    Verdict("ch6/row_engine", "ch6.row_parallel_linear", {"backward": AUTOGRAD_NODE + " MmBackward0"}),
    # autograd reached through side doors: the engine's private entry point, a node called
    # directly, a graph built in backward inside saved-tensors hooks that shadow the kit's
    Verdict(
        "ch6/row_graph_in_forward",
        "ch6.row_parallel_linear",
        {"backward": "torch.autograd.graph._engine_run_backward", "result": "_engine_run_backward"},
    ),
    Verdict("ch6/row_node_call", "ch6.row_parallel_linear", {"backward": "autograd recorded aten::mm"}),
    Verdict("ch6/row_nested_saved_hooks", "ch6.row_parallel_linear", {"backward": AUTOGRAD_NODE}),
    Verdict("ch6/row_views_by_hand", "ch6.row_parallel_linear", FULL),
    # autodiff by routes that name no entry point: forward mode, a Jacobian helper, a functional
    # linearisation, a TorchScript function; a Jacobian written out by hand: refused by the
    # allowlist of a "by hand" contract, or over what the lesson's math needs
    Verdict("ch6/row_dual_numbers", "ch6.row_parallel_linear", {"backward": NOT_ADMITTED}),
    Verdict("ch6/row_forward_jacobian", "ch6.row_parallel_linear", {"backward": "its math needs"}),
    # (torch.func.linearize imports DTensor today, which the exercise bans; the allowlist refuses
    # it too: tests/unit/test_hand_written_routes.py)
    Verdict(
        "ch6/row_linearize",
        "ch6.row_parallel_linear",
        {"backward": (NOT_ADMITTED, "imported torch.distributed.tensor")},
    ),
    Verdict("ch6/row_scripted_engine", "ch6.row_parallel_linear", {"backward": AUTOGRAD_NODE}),
    Verdict("ch6/row_explicit_jacobian", "ch6.row_parallel_linear", {"backward": "its math needs"}),
    Verdict("ch6/mapping_split_by_matmul", "ch6.gather_from_tp_region", {"backward": "its math needs"}),
    Verdict("ch6/row_two_functions", "ch6.row_parallel_linear", FULL),
    Verdict(
        "ch6/row_node_hook",
        "ch6.row_parallel_linear",
        {"backward": AUTOGRAD_NODE},  # its side graph, run by the engine for graded code
    ),
    # -- chapter 6: the cross-entropy exchanges a few numbers, never the logits ------------------
    Verdict(
        "ch6/ce_padded_all_reduce",
        "ch6.vocab_parallel_cross_entropy",
        {"traffic": "a few numbers per token", "memory": "nothing may be larger"},
    ),
    Verdict(
        "ch6/ce_gather_list",
        "ch6.vocab_parallel_cross_entropy",
        {"traffic": "the logits must never be gathered"},
    ),
    Verdict(
        "ch6/ce_gather_list",
        "ch6.vocab_parallel_cross_entropy",
        {"memory": "logits"},
        marks=_xfail(
            "assert_cross_entropy_memory bounds the largest single storage: the logits "
            "all-gathered into a list of n tensors of the local size (never concatenated) are "
            "all alive at once, n times the local logits, and pass"
        ),
    ),
    Verdict(
        "ch6/ce_c10d_ops",
        "ch6.vocab_parallel_cross_entropy",
        {"traffic": "_c10d_functional", "memory": "_c10d_functional"},
    ),
    Verdict(
        "ch6/ce_nn_doors",
        "ch6.vocab_parallel_cross_entropy",
        {part: "torch.distributed.nn" for part in ("result", "traffic", "memory")},
    ),
    Verdict(
        "ch6/ce_funcol_doors",
        "ch6.vocab_parallel_cross_entropy",
        {part: "torch.distributed._functional_collectives" for part in ("result", "traffic", "memory")},
    ),
    # -- chapter 6: one collective per direction, on the group ---------------------------------
    Verdict(
        "ch6/mapping_split_calls",
        "ch6.reduce_from_tp_region",
        {"forward": "the lesson needs exactly all_reduce"},
    ),
    Verdict("ch6/mapping_default_group", "ch6.copy_to_tp_region", {"backward": "did not finish"}),
    Verdict("ch6/mapping_broadcast", "ch6.gather_from_tp_region", {"forward": "called broadcast"}),
    # no Function: autograd's CatBackward splits the gradient back, the conjugate's value
    Verdict(
        "ch6/mapping_gather_by_cat", "ch6.gather_from_tp_region", {"backward": "autograd recorded aten::cat"}
    ),
    Verdict(
        "ch6/mapping_all_to_all",
        "ch6.reduce_scatter_to_sequence_region",
        {"forward": "called all_to_all_single"},
    ),
    # -- chapter 6: sequence parallelism must shrink what is kept for backward ----------------
    Verdict("ch6/sp_ctx_attr", "ch6.parallel_mlp", {"memory": "with sequence parallelism measured"}),
    Verdict(
        "ch6/sp_prealloc",
        "ch6.parallel_mlp",
        {"memory": "with sequence parallelism measured"},
        marks=_xfail(
            "the 'kept' meter counts only storages born in the measured forward: a buffer the "
            "block allocates in __init__ (built before ledger.enter) holds the all-gathered "
            "sequence, a LayerNorm Function keeps it as a ctx attribute (not saved through "
            "autograd), and the LayerNorm runs on the whole sequence unseen"
        ),
    ),
    # -- chapter 8: an honest alternative (every exercise of the chapter) -----------------------
    *(Verdict("ch8/honest_alternative", exercise, FULL) for exercise in CH8_EXERCISES),
    # -- chapter 8: loss scaling is written by hand, not borrowed from torch.amp ----------------
    Verdict(
        "ch8/scaler_uses_grad_scaler",
        "ch8.dynamic_loss_scaler",
        {part: "called torch.amp.GradScaler" for part in ("scale", "skip", "unscale")},
    ),
    Verdict(
        "ch8/scaler_amp_kernels",
        "ch8.dynamic_loss_scaler",
        {
            part: "called torch._amp_foreach_non_finite_check_and_unscale_"
            for part in ("scale", "skip", "unscale")
        },
    ),
    # the same kernels by the operator registry's overloads: refused at the dispatcher
    Verdict(
        "ch8/scaler_aten_ops",
        "ch8.dynamic_loss_scaler",
        {part: "torch.ops.aten._amp_" for part in ("scale", "skip", "unscale")},
    ),
    # -- chapter 8: accumulation lets DDP all-reduce once, after the last microbatch -------------
    Verdict(
        "ch8/accumulation_manual_sync", "ch8.accumulation_step", {"traffic": "exactly one, of the whole"}
    ),
    # -- chapter 8: a checkpoint keeps only its inputs and recomputes in backward ----------------
    Verdict(
        "ch8/checkpoint_torch_utils",
        "ch8.checkpoint",
        {part: "imported torch.utils.checkpoint" for part in ("result", "memory", "recompute", "rng")},
    ),
    Verdict(
        "ch8/checkpoint_keeps_graph_on_ctx",
        "ch8.checkpoint",
        {"memory": "autograd saved", "recompute": "checkpointing costs one forward"},
    ),
    Verdict("ch8/checkpoint_hides_saved", "ch8.checkpoint", {"recompute": "checkpointing costs one forward"}),
    Verdict(
        "ch8/checkpoint_hides_saved",
        "ch8.checkpoint",
        {"memory": "still alive when it returns"},
    ),
    Verdict(
        "ch8/checkpoint_nested_hooks",
        "ch8.checkpoint",
        {"memory": "still alive when it returns"},
    ),
    # -- chapter 8: FP8 may not borrow the kit's reference ---------------------------------------
    Verdict(
        "ch8/fp8_reads_reference",
        "ch8.quantize_fp8",
        {part: KIT for part in ("result", "rules")},
    ),
    Verdict("ch8/fp8_reads_reference", "ch8.delayed_scaling", {"result": KIT}),
    Verdict("ch8/fp8_reads_reference", "ch8.fp8_linear", {"result": KIT}),
    # -- chapter 8: a mixed-precision trainer keeps the masters and the optimizer's state only ----
    Verdict(
        "ch8/mp_hides_copies",
        "ch8.mixed_precision_trainer",
        {"memory": "B alive; the 16-bit parameters, their fp32 masters"},
    ),
    # the Python heap is counted, not .item() refused by name: returning one float keeps nothing
    Verdict("ch8/mp_returns_item", "ch8.mixed_precision_trainer", FULL),
    # the checkpoint's inputs kept as Python floats (float(x[i])) instead of saved tensors
    Verdict("ch8/checkpoint_keeps_floats", "ch8.checkpoint", {"memory": PYTHON_DATA}),
    # -- chapter 1: an honest alternative (every exercise of the chapter) -----------------------
    *(Verdict("ch1/honest_alternative", exercise, FULL) for exercise in CH1_EXERCISES),
    # -- chapter 1: the DDP script synchronises through torch's DDP, every step ------------------
    Verdict("ch1/_cheat_rank0_alone", "ch1.first_ddp", {"result": "not torch's DistributedDataParallel"}),
    Verdict(
        "ch1/_cheat_manual_allreduce", "ch1.first_ddp", {"result": "not torch's DistributedDataParallel"}
    ),
    Verdict("ch1/_cheat_file_gradients", "ch1.first_ddp", {"result": "all-reduced 0 B of gradients"}),
    Verdict("ch1/_cheat_ddp_decoy_forward", "ch1.first_ddp", {"result": "all-reduced 0 B of gradients"}),
    # -- chapter 1: what the grader observes is out of the script's reach ------------------------
    Verdict("ch1/_cheat_observer_forgery", "ch1.first_ddp", {"result": "training forward passes"}),
    Verdict("ch1/_cheat_patched_load", "ch1.first_ddp", {"result": "checkpoint"}),
    Verdict("ch1/_cheat_rank1_writes_checkpoint", "ch1.first_ddp", {"rank0": "not what rank 0 saved"}),
    Verdict("ch1/_cheat_print_routes", "ch1.first_ddp", {"rank0": "rank 1 printed"}),
    Verdict("ch1/_cheat_kit_reference_ddp", "ch1.first_ddp", dict.fromkeys(SCRIPT_PARTS, "graders")),
    Verdict("ch1/_cheat_grader_frames", "ch1.first_ddp", dict.fromkeys(SCRIPT_PARTS, "frames")),
    Verdict("ch1/_cheat_gc_case", "ch1.first_ddp", dict.fromkeys(SCRIPT_PARTS, "gc.get_objects")),
    # -- chapter 1: a failing script is reported with the rank at fault --------------------------
    Verdict("ch1/_cheat_crash_rank1", "ch1.first_ddp", dict.fromkeys(SCRIPT_PARTS, "rank 1 gives up")),
    Verdict("ch1/_cheat_exit_rank1", "ch1.first_ddp", dict.fromkeys(SCRIPT_PARTS, "rank 1 crashed")),
    Verdict(
        "ch1/_cheat_exit_rank1_others_asleep", "ch1.first_ddp", dict.fromkeys(SCRIPT_PARTS, "rank 1 crashed")
    ),
    Verdict("ch1/_cheat_hang_rank1", "ch1.first_ddp", dict.fromkeys(SCRIPT_PARTS, "rank 1 stuck")),
    # -- chapter 1: the memory ledger and the environment are the student's own -----------------
    Verdict("ch1/_cheat_import_kit", "ch1.count_parameters", {"result": KIT}),
    Verdict("ch1/_cheat_kit_reference", "ch1.count_parameters", {"result": "graders"}),
    Verdict(
        "ch1/_cheat_kit_reference",
        "ch1.activation_memory",
        dict.fromkeys(("none", "selective", "full"), "graders"),
    ),
    Verdict("ch1/_cheat_names_everything", "ch1.read_dist_env", {"errors": "names more variables"}),
    # -- chapter 3: an honest alternative (every exercise of the chapter) -----------------------
    *(Verdict("ch3/honest_alternative", exercise, FULL) for exercise in CH3_EXERCISES),
    # -- chapter 3: torch's optimizers, by any route, are not the student's ----------------------
    Verdict("ch3/_cheat_subclass_adam", "ch3.adam", dict.fromkeys(OPTIMIZER_PARTS, "torch.optim.adam.Adam")),
    Verdict(
        "ch3/_cheat_step_alias_sgd", "ch3.sgd", dict.fromkeys(OPTIMIZER_PARTS, "torch.optim.sgd.SGD.step")
    ),
    Verdict("ch3/_cheat_functional_sgd", "ch3.sgd", dict.fromkeys(OPTIMIZER_PARTS, "torch.optim.sgd")),
    Verdict("ch3/_cheat_importlib_sgd", "ch3.sgd", dict.fromkeys(OPTIMIZER_PARTS, "torch.optim.sgd")),
    Verdict("ch3/_cheat_sys_modules_adam", "ch3.adam", dict.fromkeys(OPTIMIZER_PARTS, "torch.optim.adam")),
    Verdict(
        "ch3/_cheat_getattr_in_step_adamw", "ch3.adamw", dict.fromkeys(OPTIMIZER_PARTS, "torch.optim.adamw")
    ),
    Verdict(
        "ch3/_cheat_subclasses_door_adagrad",
        "ch3.adagrad",
        dict.fromkeys(OPTIMIZER_PARTS, "torch.optim.adagrad"),
    ),
    # -- chapter 3: the fused kernels are refused at the dispatcher, by every Python route -------
    Verdict("ch3/_cheat_fused_sgd_inplace", "ch3.sgd", dict.fromkeys(OPTIMIZER_PARTS, "aten._fused_sgd_")),
    Verdict("ch3/_cheat_fused_functional_sgd", "ch3.sgd", dict.fromkeys(OPTIMIZER_PARTS, "aten._fused_sgd")),
    Verdict(
        "ch3/_cheat_fused_functional_adamw", "ch3.adamw", dict.fromkeys(OPTIMIZER_PARTS, "aten._fused_adamw")
    ),
    Verdict("ch3/_cheat_aten_fused_adam", "ch3.adam", dict.fromkeys(OPTIMIZER_PARTS, "aten._fused_adam_")),
    Verdict("ch3/_cheat_fused_vf_adam", "ch3.adam", dict.fromkeys(OPTIMIZER_PARTS, "aten._fused_adam_")),
    # -- chapter 3: the guard's own refusal, and the kit's reference, are out of reach -----------
    Verdict(
        "ch3/_cheat_guard_lift_adagrad",
        "ch3.adagrad",
        dict.fromkeys(OPTIMIZER_PARTS, "function's code object"),
    ),
    Verdict(
        "ch3/_cheat_lion_kit_reference", "ch3.lion", dict.fromkeys(OPTIMIZER_PARTS, "graders.chapters.ch3")
    ),
    Verdict(
        "ch3/_cheat_state_memory_kit",
        "ch3.optimizer_state_bytes",
        {"measured": "module table"},
        static_only=True,  # the kit's own measurement, reached through vars(sys), runs as the kit
    ),
    Verdict(
        "ch3/_cheat_state_memory_kit",
        "ch3.bytes_per_param",
        {"measured": "module table"},
        static_only=True,
    ),
    Verdict("ch3/_cheat_state_bytes_measured", "ch3.optimizer_state_bytes", {"measured": "torch.optim.adam"}),
    # -- chapter 3: state kept beyond what the update needs is found wherever it lives ------------
    Verdict("ch3/_cheat_state_closure", "ch3.lion", {"state": MORE_STATE}),
    Verdict("ch3/_cheat_state_class_attr", "ch3.lion", {"state": MORE_STATE}),
    Verdict("ch3/_cheat_state_module_global", "ch3.lion", {"state": MORE_STATE}),
    Verdict("ch3/_cheat_state_param_tail", "ch3.lion", {"state": MORE_STATE}),
    *(
        Verdict("ch3/_cheat_state_import_arena", f"ch3.{name}", {"state": MORE_STATE})
        for name in ("sgd", "adam", "adamw", "adagrad", "lion")
    ),
    *(
        Verdict(f"ch3/_cheat_state_{kind}", "ch3.lion", {"state": (fragment, MORE_STATE, PYTHON_DATA)})
        for kind, fragment in (
            ("numpy", "numpy"),
            ("bytes", "numpy"),
            ("file", "serialises tensors"),
        )
    ),
    # the copy kept as Python floats: counted on the Python heap, not refused by name
    Verdict("ch3/_cheat_state_list", "ch3.lion", {"state": PYTHON_DATA}),
    # the second moment as a Python list: the ledger sees one moment where Adam needs two
    Verdict("ch3/_cheat_state_getattr_tolist", "ch3.adam", {"state": "less than the"}),
    Verdict("ch3/_cheat_state_getattr_tolist", "ch3.adamw", {"state": "less than the"}),
    # -- chapter 9: an honest alternative (every exercise of the chapter) -----------------------
    *(Verdict("ch9/honest_alternative", exercise, FULL) for exercise in CH9_EXERCISES),
    # -- chapter 9: blockwise attention never makes the seq × seq scores, and not by SDPA --------
    Verdict(
        "ch9/blockwise_full_scores",
        "ch9.blockwise_attention",
        {"memory": "one block of scores or the output is at most"},
    ),
    Verdict(
        "ch9/blockwise_sdpa",
        "ch9.blockwise_attention",
        {part: "called torch.nn.functional.scaled_dot_product_attention" for part in ("result", "memory")},
    ),
    Verdict(
        "ch9/blockwise_aten_flash",
        "ch9.blockwise_attention",
        {part: "_scaled_dot_product_flash_attention_for_cpu" for part in ("result", "memory")},
    ),
    # -- chapter 9: Ulysses moves heads by exactly two all-to-alls, q, k and v stacked ------------
    # every block of scores kept in a list: no tensor too large, the whole matrix alive at once
    Verdict("ch9/blockwise_keeps_blocks", "ch9.blockwise_attention", {"memory": "a few blocks of scores"}),
    # one named temporary per step, queries scaled up front: more alive at once, still honest
    Verdict("ch9/blockwise_named_steps", "ch9.blockwise_attention", FULL),
    # torch's math attention by torch._VF: a composite, refused by what it decomposes into
    Verdict(
        "ch9/blockwise_math_vf",
        "ch9.blockwise_attention",
        {part: "aten._safe_softmax" for part in ("result", "memory")},
    ),
    # the fused kernel by an overload looked up at the call: refused, not crashed
    Verdict(
        "ch9/blockwise_flash_overload",
        "ch9.blockwise_attention",
        {
            part: "called torch.ops.aten._scaled_dot_product_flash_attention_for_cpu"
            for part in ("result", "memory")
        },
    ),
    Verdict("ch9/ulysses_all_gather", "ch9.ulysses_attention", {"traffic": "communicated all_gather of"}),
    Verdict("ch9/ulysses_three_calls", "ch9.ulysses_attention", {"traffic": "exactly two all-to-alls"}),
    # -- chapter 9: Ring Attention moves blocks between neighbours, through the recorded calls ---
    *(
        Verdict(
            "ch9/ring_pg_methods",
            exercise,
            {part: "ProcessGroup's or a backend's own methods" for part in parts},
        )
        for exercise, parts in RING_PARTS.items()
    ),
    *(
        Verdict("ch9/ring_store_channel", exercise, {part: "takes its store" for part in parts})
        for exercise, parts in RING_PARTS.items()
    ),
    *(
        Verdict(
            "ch9/ring_shm_channel", exercise, {part: "moves data behind the graders' back" for part in parts}
        )
        for exercise, parts in RING_PARTS.items()
    ),
    *(
        Verdict(
            "ch9/ring_forged_trace",
            exercise,
            {part: "operator.attrgetter" for part in parts},
            static_only=True,
        )
        for exercise, parts in RING_PARTS.items()
    ),
    # every block kept, then one attention over them all: seen on rings of 7-8 ranks
    Verdict("ch9/ring_collect_all", "ch9.ring_attention", {"memory": "alive at once"}),
    # the zigzag layout's values by an all-gather of K/V and an all-reduce of dK/dV: no ring
    Verdict("ch9/zigzag_all_gather", "ch9.zigzag_ring_attention", {"result": "all_gather"}),
    Verdict(
        "ch9/zigzag_stash",
        "ch9.zigzag_shard",
        {"round_trip": "do not hold the values of x", "balance": "exactly once"},
    ),
    # -- chapter 10: an honest alternative (every exercise of the chapter) ----------------------
    *(Verdict("ch10/honest_alternative", exercise, FULL) for exercise in CH10_EXERCISES),
    # -- chapter 10: expert parallelism moves the tokens, by the two all-to-alls ------------------
    Verdict(
        "ch10/ep_gathers_experts",
        "ch10.expert_parallel_moe",
        {"traffic": "communicated all_gather of"},
    ),
    Verdict(
        "ch10/ep_gathers_experts",
        "ch10.expert_parallel_moe",
        {"local_experts": "never the experts' weights"},
    ),
    Verdict(
        "ch10/ep_autograd_all_to_all",
        "ch10.expert_parallel_moe",
        {part: "torch.distributed.nn" for part in ("result", "traffic", "local_experts")},
    ),
    Verdict("ch10/ep_p2p_dispatch", "ch10.expert_parallel_moe", {"traffic": "isend of"}),
    Verdict(
        "ch10/ep_c10d_ops_decoy",
        "ch10.expert_parallel_moe",
        {part: "_c10d_functional" for part in ("result", "traffic", "local_experts")},
    ),
    # -- chapter 10: each expert's gradient stays in its expert-data-parallel group -------------
    Verdict(
        "ch10/sync_everything_everywhere",
        "ch10.all_reduce_moe_gradients",
        {"traffic": "the experts over their expert-data-parallel group only"},
    ),
    # -- chapter 10: the router may not borrow the kit's reference --------------------------------
    Verdict(
        "ch10/router_reads_kit",
        "ch10.top_k_router",
        {part: KIT for part in ("routing", "capacity", "losses", "gradients")},
    ),
    # -- chapter 11: the capstone written another way (graded over the reference chapters 5-7) --
    Verdict("ch11/honest_framework", "ch11.trainer_3d", FULL),
    Verdict(
        "ch11/whole_model_everywhere",
        "ch11.trainer_3d",
        # poisoned: the last stage's targets are real only there, so every part stops at the first step
        {part: "Target -1 is out of bounds" for part in ("result", "traffic", "memory")},
    ),
    # poisoned: a rank computing its tp neighbours' heads reads their NaN rows
    # the schedule the contract names: GPipe holds every microbatch's activations at its peak
    Verdict("ch11/gpipe_schedule", "ch11.trainer_3d", {"memory": "1F1B holds the activations"}),
    # the capstone's blocks run the stage's 1F1B order (issue 45 §4): checkpointed blocks, an
    # executor that recomputes, microbatches one at a time
    Verdict("ch11/capstone_state_copy_from_data", "ch11.trainer_3d", {"memory": "bytes alive between steps"}),
    Verdict("ch11/capstone_stats_logging", "ch11.trainer_3d", FULL),
    Verdict("ch11/capstone_checkpointed_blocks", "ch11.trainer_3d", {"memory": RECOMPUTED}),
    Verdict("ch11/capstone_no_grad_recompute", "ch11.trainer_3d", {"memory": RECOMPUTED}),
    Verdict(
        "ch11/capstone_sequential_microbatches", "ch11.trainer_3d", {"memory": "did not run its schedule"}
    ),
    Verdict("ch11/tp_skipped", "ch11.trainer_3d", {"result": "the loss is NaN"}),
    # poisoned: a replica reading the whole global batch meets the other columns' -1 ids
    Verdict("ch11/dp_all_columns", "ch11.trainer_3d", {"result": "out of"}),
    # the algorithm the contract names: ZeRO-1's shard, not the whole optimizer on every replica
    Verdict("ch11/plain_dp_all_reduce", "ch11.trainer_3d", {"traffic": "optimizer built from optimizer_cls"}),
    # -- chapter 11: topology, groups and placement red team --
    *(
        Verdict("ch11/honest_topology", exercise, FULL)
        for exercise in (
            "ch11.rank_layout",
            "ch11.build_groups",
            "ch11.groups_crossing_nodes",
            "ch11.best_order",
        )
    ),
    Verdict("ch11/honest_groups_local_sync", "ch11.build_groups", FULL),
    Verdict("ch11/groups_skip_others", "ch11.build_groups", {"result": "new_group is collective"}),
    # only the rank's own groups, made with use_local_synchronization=True: what torch allows
    Verdict("ch11/honest_own_groups_local_sync", "ch11.build_groups", FULL),
    Verdict("ch11/groups_borrow_kit_ctx", "ch11.build_groups", {"result": FRAMES}),
    Verdict("ch11/layout_megatron", "ch11.rank_layout", {"groups": "megatron", "combined": "megatron"}),
    Verdict("ch11/placement_imports_kit", "ch11.groups_crossing_nodes", {"result": KIT}),
    Verdict("ch11/placement_imports_kit", "ch11.best_order", {"result": KIT}),
    # the kit's reference.py copied out and run with runpy: its own `from graders...` import is
    # refused because graded code is on the stack (doors._graded_importer uses graded_request)
    Verdict("ch11/placement_runs_kit_copy", "ch11.groups_crossing_nodes", {"result": KIT}),
    Verdict("ch11/placement_runs_kit_copy", "ch11.best_order", {"result": KIT}),
    Verdict("ch11/best_order_default", "ch11.best_order", {"result": "another order gets"}),
    # -- chapter 11: planner red team --
    *(
        Verdict("ch11/honest_planner", exercise, FULL)
        for exercise in ("ch11.memory_per_gpu", "ch11.step_time", "ch11.plan")
    ),
    Verdict("ch11/plan_reads_kit", "ch11.plan", {"result": KIT, "infeasible": KIT}),
    Verdict(
        "ch11/plan_sys_modules",
        "ch11.plan",
        {"result": "sys.modules", "infeasible": "sys.modules"},
        static_only=True,  # the kit's loaded modules stay in sys.modules: only the scan sees the lookup
    ),
    Verdict("ch11/plan_resolve_name", "ch11.plan", {"result": KIT, "infeasible": KIT}),
    Verdict("ch11/plan_first_feasible", "ch11.plan", {"result": "the best plan's takes"}),
    Verdict("ch11/plan_least_bad", "ch11.plan", {"infeasible": "but no plan fits this model"}),
    Verdict("ch11/plan_none_when_nothing_fits", "ch11.plan", {"infeasible": "plan returned None"}),
    Verdict(
        "ch11/plan_ignores_memory",
        "ch11.plan",
        {"result": "GB per GPU; the GPUs have", "infeasible": "but no plan fits this model"},
    ),
    Verdict("ch11/memory_one_micro_batch", "ch11.memory_per_gpu", {"result": "memory_per_gpu is"}),
    Verdict("ch11/memory_forgets_embeddings", "ch11.memory_per_gpu", {"result": "memory_per_gpu is"}),
    Verdict("ch11/memory_forgets_embeddings", "ch11.step_time", {"result": "step_time is"}),
    Verdict("ch11/step_time_ep_own_span", "ch11.step_time", {"result": "step_time is"}),
    Verdict("ch11/step_time_no_bubble", "ch11.step_time", {"result": "step_time is"}),
]

_TESTS: dict[tuple[str, str | None], dict] = {}


def _tests(chapter: str, profile: str | None = None) -> dict:
    """The graders of ``chapter`` with the active profile, or with ``profile``."""
    if (chapter, profile) not in _TESTS:
        _TESTS[(chapter, profile)] = mutants.exercise_tests(chapter, profile=profile)
    return _TESTS[(chapter, profile)]


def _param(row: Verdict):
    return pytest.param(row, id=f"{row.sample}-{row.exercise.rpartition('.')[2]}", marks=row.marks)


def _impl(row: Verdict, chapter: str, tmp_path) -> Impl:
    """The sample; for a chapter that builds on earlier ones (the capstone), the sample's files over
    the reference chapter, next to the reference solutions of the chapters it imports."""
    sample = SAMPLES / row.sample
    if not CHAPTERS[chapter].builds_on:
        return Impl.resolve(sample)
    folder = tmp_path / chapter
    shutil.copytree(KIT_ROOT / "solutions" / chapter, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for path in sample.glob("*.py"):
        shutil.copy(path, folder / path.name)
    mutants.add_earlier_chapters(chapter, tmp_path)
    return Impl.resolve(tmp_path)


@pytest.mark.parametrize("row", [_param(r) for r in ROWS])
def test_verdict(row: Verdict, harness, tmp_path):
    chapter = row.exercise.split(".")[0]
    impl = _impl(row, chapter, tmp_path)
    if row.expected == FULL:  # every part must pass: the lighter profile's examples
        _assert_full_marks(row, impl, harness)
        return
    expected = row.expected
    # a cheat is graded on the parts it must lose only (the others do not change its verdict),
    # with the active profile
    tests = _tests(chapter)
    only = [
        (part, fns)
        for (exercise, part), fns in tests.items()
        if exercise == row.exercise and part in expected
    ]
    failed, _ = mutants.grade_parts(impl, harness, only)
    kept = sorted(set(expected) - set(failed))
    assert not kept, f"{row.sample} kept credit for {kept}"
    scanned = any(SCANNED in message for message in failed.values())
    if scanned and not row.static_only:  # the scan stopped it first: the runtime guard must too
        failed, _ = mutants.grade_parts(impl, harness, only, static_scan=False)
        kept = sorted(set(expected) - set(failed))
        assert not kept, f"{row.sample} kept credit for {kept} with the runtime guard alone"
    for part, fragment in expected.items():
        fragments = (fragment,) if isinstance(fragment, str) else fragment  # any of them
        assert any(f in failed[part] for f in fragments), (
            f"{row.sample}, part {part}: none of {fragments!r} in:\n{failed[part]}"
        )
        assert "Traceback" not in failed[part]


def _assert_full_marks(row: Verdict, impl: Impl, harness) -> None:
    tests = _tests(row.exercise.split(".")[0], MUTANTS_PROFILE)
    every = [(part, fns) for (exercise, part), fns in tests.items() if exercise == row.exercise]
    failed, _ = mutants.grade_parts(impl, harness, every)
    assert failed == {}, f"{row.sample} lost points: " + "\n".join(f"{p}: {m}" for p, m in failed.items())


def test_a_group_made_with_local_synchronization_after_the_kits_own_subgroups(harness, tmp_path):
    """torch names a group made with ``use_local_synchronization`` from its ranks and the number of
    groups the rank holds. The kit's subgroups of earlier tasks are held by their members only, so
    graded code must not see them (before, the honest local-synchronization sample hung whenever
    ch10's samples had run before it in the same world)."""
    for row in (
        Verdict("ch10/honest_alternative", "ch10.all_reduce_moe_gradients", FULL),
        Verdict("ch11/honest_groups_local_sync", "ch11.build_groups", FULL),
    ):
        _assert_full_marks(row, _impl(row, row.exercise.split(".")[0], tmp_path / row.exercise), harness)


def test_every_sample_has_a_row_and_says_what_it_is():
    folders = {
        str(path.parent.relative_to(SAMPLES))
        for chapter in CHAPTERS
        for path in (SAMPLES / ("ch2/_redteam" if chapter == "ch2" else chapter)).glob("*/*.py")
    }
    assert folders == {row.sample for row in ROWS}
    for folder in folders:
        for path in (SAMPLES / folder).glob("*.py"):
            first = path.read_text().lstrip().split("\n", 1)[0]
            assert first.startswith('"""'), f"{path} starts without a docstring"
