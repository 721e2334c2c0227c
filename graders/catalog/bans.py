"""What graded code may not call: the names the catalog's exercises ban, and the doors around
the guard that every exercise closes. Read through :mod:`graders.catalog`, which declares
which exercise bans what.

``torch.distributed`` function names (``"all_reduce"``), dotted names of anything else
(``"torch.optim.AdamW"``), and ``"package.*"`` for a whole module tree.
"""

from __future__ import annotations

#: Every built-in collective of ``torch.distributed`` (the point-to-point calls are not here), in
#: every torch of the range: a name this torch lacks is skipped where the list is used
#: (``gather_single`` and ``gather_into_tensor`` came with torch 2.14: graders/infra/torch_compat.py).
COLLECTIVES = frozenset(
    {
        "broadcast",
        "all_reduce",
        "reduce",
        "all_gather",
        "all_gather_into_tensor",
        "all_gather_single",
        "all_gather_coalesced",
        "all_reduce_coalesced",
        "reduce_scatter",
        "reduce_scatter_tensor",
        "reduce_scatter_single",
        "all_to_all",
        "all_to_all_single",
        "scatter",
        "gather",
        "gather_single",
        "gather_into_tensor",
        "barrier",
        "monitored_barrier",
        "all_gather_object",
        "broadcast_object_list",
        "gather_object",
        "scatter_object_list",
        "send_object_list",
        "recv_object_list",
    }
)
TORCH_DDP = frozenset({"torch.nn.parallel.DistributedDataParallel"})
TORCH_FSDP = frozenset(
    {"torch.distributed.fsdp.FullyShardedDataParallel", "torch.distributed.fsdp.fully_shard"}
)
TORCH_ZERO = frozenset({"torch.distributed.optim.ZeroRedundancyOptimizer"})
TORCH_PIPELINING = frozenset({"torch.distributed.pipelining.*"})
#: Megatron-Core (the kit's own cross-check of chapter 11 installs it): its rank generator and
#: parallel state are chapter 11's answers
MEGATRON = frozenset({"megatron.*"})
#: autograd-aware collectives and DTensor: chapter 6 writes the conjugate operators itself
TORCH_TENSOR_PARALLEL = frozenset(
    {"torch.distributed.nn.*", "torch.distributed.tensor.*", "torch.distributed._functional_collectives.*"}
)
#: torch's loss scaling and its kernels: chapter 8 writes the dynamic loss scaler itself
AMP_SCALING = frozenset(
    {
        "torch.amp.GradScaler",
        "torch.cuda.amp.GradScaler",
        "torch.cpu.amp.GradScaler",
        "torch._amp_foreach_non_finite_check_and_unscale_",
        "torch._amp_update_scale_",
        # the same kernels by every other Python route (torch.ops.aten, torch._VF, their out=
        # and functional overloads): refused at the dispatcher
        "aten::_amp_foreach_non_finite_check_and_unscale*",
        "aten::_amp_update_scale*",
    }
)
#: torch's optimizers, their functional forms and fused kernels: chapter 3 writes the optimizers
#: itself (``torch.optim.Optimizer``, the base class, stays allowed). ``"aten::..."`` patterns are
#: operators, refused at the dispatcher (:mod:`graders.comm.operator_bans`)
TORCH_OPTIMIZERS = frozenset(
    {
        *(
            f"torch.optim.{module}.*"
            for module in (
                "sgd",
                "adam",
                "adamw",
                "adagrad",
                "adamax",
                "adadelta",
                "asgd",
                "nadam",
                "radam",
                "rmsprop",
                "rprop",
                "lbfgs",
                "sparse_adam",
                "_adafactor",
                "_muon",
                "_functional",
            )
        ),
        # the fused kernels, by every Python route (torch._fused_adam_, torch._VF, torch.ops.aten, a
        # functional optimizer with fused=True): refused at the dispatcher
        "aten::_fused_adam*",
        "aten::_fused_sgd*",
        "aten::_fused_adagrad*",
    }
)
#: torch's activation checkpointing: chapter 8 writes checkpoint() itself
TORCH_CHECKPOINT = frozenset({"torch.utils.checkpoint.*"})
#: attention computed whole: chapter 9's blockwise attention computes it block by block itself.
#: The kernels are refused at the dispatcher, whatever Python route reaches them (torch.ops.aten
#: and its overloads, torch._VF, torch._C._VariableFunctions); the math path is a composite that
#: the dispatcher never sees by name, so it is refused by the one operator its decomposition
#: alone calls, ``aten::_safe_softmax``.
SDPA = frozenset(
    {
        "torch.nn.functional.scaled_dot_product_attention",
        "torch._C._nn.scaled_dot_product_attention",
        "aten::_scaled_dot_product_*",
        "aten::_flash_attention_*",
        "aten::_efficient_attention_*",
        "aten::_cudnn_attention_*",
        "aten::_triton_scaled_dot_attention*",
        "aten::_safe_softmax",
    }
)
#: autograd run by graded code itself: a hand-written backward may not differentiate its forward
AUTOGRAD_CALLS = frozenset(
    {
        "torch.autograd.grad",
        "torch.autograd.backward",
        "torch.Tensor.backward",
        # the engine's private entry point, behind the two above
        "torch.autograd.graph._engine_run_backward",
        *(
            f"torch.func.{name}"
            for name in ("grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian")
        ),
    }
)

#: What graded code may never do, in any exercise: the doors around the guard. Refused at run
#: time (``graders.comm.guard``) and flagged by the static scan; name -> what it does.
DOORS: dict[str, str] = {
    "sys._getframe": "reads the interpreter's frames",
    "sys._current_frames": "reads the interpreter's frames",
    "frame": "reads a frame through a traceback or a generator",
    "sys.settrace": "traces the interpreter",
    "sys.setprofile": "traces the interpreter",
    "gc.get_objects": "walks every live object",
    "gc.get_referrers": "walks live objects",
    "gc.get_referents": "walks live objects",
    "gc.freeze": "hides live objects from the collector, where the live ledger finds them",
    "function.__new__": "builds a function from a code object",
    "code.__new__": "builds a code object",
    "function.__code__": "reads or rewrites a function's code object",
    "ctypes": "calls native code",
    "graders.*": "imports the grading kit, whose references are the answers",
    "signal.signal": "installs a signal handler, which is handed the interrupted frame",
    "signal": "sends a signal to another process: the grading processes, or the other ranks",
    "thread": "starts a thread, whose calls and memory would escape the graders",
    "side channel": "moves data behind the graders' back (a file written, a socket)",
    "dispatch": "steps out of the graders' dispatch modes",
    "c10d ops": "calls torch's collective operators (torch.ops.c10d, torch.ops._c10d_functional), "
    "which the graders' recorder does not see",
    "process group": "calls a ProcessGroup's or a backend's own methods (or takes its store), which "
    "the graders' recorder does not see",
    "native collectives": "calls torch.distributed's native communicating functions "
    "(_broadcast_coalesced, the DDP Reducer, the store collectives), which the graders' recorder "
    "does not see",
}
#: the operator namespaces of torch's collectives (``torch.ops.<name>``), refused to graded code in
#: every exercise as the door ``"c10d ops"``: their operators communicate in C++, untraced
C10D_OP_NAMESPACES = ("c10d", "_c10d_functional", "_c10d_functional_autograd")
#: the methods of ``ProcessGroup`` and its backends that communicate (or hand over the store every
#: rank shares), refused to graded code in every exercise as the door ``"process group"``: they run
#: in C++, behind the recorder. Torch's own calls of them (``dist.all_reduce``) still run. Those a
#: torch of the range lacks are skipped (``gather_single``, ``new_window``, the Backend's
#: ``split`` and ``merge``: 2.14).
PROCESS_GROUP_METHODS = frozenset(
    {
        "_allgather_base",
        "_reduce_scatter_base",
        "_start_coalescing",
        "_end_coalescing",
        "abort",
        "all_gather_single",
        "all_gather_single_coalesced",
        "all_to_all_single",
        "allgather",
        "allgather_coalesced",
        "allgather_into_tensor_coalesced",
        "allreduce",
        "allreduce_coalesced",
        "allreduce_sparse",
        "alltoall",
        "alltoall_base",
        "barrier",
        "boxed",
        "broadcast",
        "gather",
        "gather_into_tensor",
        "gather_single",
        "get_group_store",
        "merge",
        "merge_remote_group",
        "monitored_barrier",
        "new_window",
        "recv",
        "recv_anysource",
        "reconfigure",
        "reduce",
        "reduce_scatter",
        "reduce_scatter_single",
        "reduce_scatter_single_coalesced",
        "reduce_scatter_tensor_coalesced",
        "scatter",
        "send",
        "shutdown",
        "split",
        "unbox",
    }
)
#: doors that are objects, refused like banned ones in every exercise: dotted name -> door
DOOR_OBJECTS: dict[str, str] = {
    "signal.signal": "signal.signal",
    "gc.freeze": "gc.freeze",
    "threading._start_new_thread": "thread",
    "torch.utils._python_dispatch._disable_current_modes": "dispatch",
    "torch.utils._python_dispatch._pop_mode": "dispatch",
    "torch.utils._python_dispatch._pop_mode_temporarily": "dispatch",
    "torch._C._pop_torch_dispatch_stack": "dispatch",
    "torch._C._unset_dispatch_mode": "dispatch",
    "torch._C._DisableTorchDispatch": "dispatch",
}
#: and, in exercises that run on several ranks, the ways of moving data that open no file
SIDE_CHANNEL_OBJECTS: dict[str, str] = {
    "torch.save": "side channel",
    "torch.load": "side channel",
    "torch.from_file": "side channel",
    "torch.UntypedStorage.from_file": "side channel",
    # a key-value store every rank reaches (its socket was opened by C++, unaudited)
    "torch.distributed.TCPStore": "side channel",
    "torch.distributed.FileStore": "side channel",
    # shared memory (mmap of a file descriptor is refused by the audit hook)
    "_posixshmem.shm_open": "side channel",
}

#: and, in those exercises, torch.distributed's native functions that communicate in C++ (behind
#: the recorder): refused to graded code, and to torch's Python helpers graded code calls
#: (``torch.distributed.utils._sync_params_and_buffers``). Where graded code is a whole DDP
#: program (chapter 1, one rank per process, no side channel closed), DDP needs them.
NATIVE_COLLECTIVE_OBJECTS: dict[str, str] = {
    f"torch.distributed.{name}": "native collectives"
    for name in (
        "_broadcast_coalesced",
        "_verify_params_across_processes",
        "Reducer",
        "_StoreCollectives",
        "_ControlCollectives",
    )
}

P2P_ONLY = COLLECTIVES  # chapter 2 builds the collectives from send/recv
ZERO_BANNED = TORCH_ZERO | TORCH_DDP | TORCH_FSDP  # chapter 5 builds the ZeRO family

#: the static scan's memory findings that a counted Python heap makes needless: the exercise's
#: ledger counts the Python numbers graded code keeps (:mod:`graders.training.python_heap`), so
#: ``.item()`` and ``.tolist()`` are fine where they keep nothing
PYTHON_HEAP_COUNTED = frozenset({"item", "tolist"})
