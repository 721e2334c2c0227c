"""What the static scan (:mod:`graders.comm.static_scan`) looks for: the modules, attributes, calls
and names that lead around the graders' guard (*bypass*), keep memory outside torch's storages
(*memory*), or deserve a teacher's look (*review*), each with the reason a student reads."""

from __future__ import annotations

import re

_BANNED_MODULES = {
    "ctypes": "loads native code (ctypes)",
    "cffi": "loads native code (cffi)",
    "importlib": "imports modules dynamically (importlib)",
    "builtins": "touches Python's builtins",
    "torch.distributed.distributed_c10d": "reaches torch.distributed's internals (distributed_c10d)",
    "torch._C": "calls torch's C bindings directly",
    "torch.distributed._functional_collectives": "uses functional collectives behind the guard",
    "torch.utils._python_dispatch": "steps out of the kit's dispatch modes (torch.utils._python_dispatch)",
    "torch._ops": "reaches torch's operator registry (torch._ops)",
    "graders": "imports the grading kit, whose references are the answers",
    "solutions": "imports the kit's reference solutions",
}
#: where memory lives outside torch's storages, which the live ledger counts
_MEMORY_MODULES = {
    "numpy": "keeps data in numpy arrays",
    "pickle": "serialises tensors (pickle)",
    "marshal": "serialises data (marshal)",
    "shelve": "stores data in a shelf",
    "array": "keeps data in Python arrays",
    "mmap": "maps memory by hand (mmap)",
    "threading": "runs code in another thread",
    "_thread": "runs code in another thread",
    "concurrent": "runs code in another thread or process",
}
_MEMORY_CALLS = {
    "tolist": "copies a tensor into Python lists (.tolist())",
    "numpy": "views a tensor as a numpy array (.numpy())",
    "tobytes": "copies data into bytes (.tobytes())",
    "frombuffer": "builds a tensor over a foreign buffer (frombuffer)",
    "UntypedStorage": "allocates a storage by hand",
    "TypedStorage": "allocates a storage by hand",
    "open": "keeps data in files (open)",
    "item": "copies tensor elements into Python numbers (.item())",
    "BytesIO": "keeps data in a bytes buffer (io.BytesIO)",
    "StringIO": "keeps data in a string buffer (io.StringIO)",
    "save": "serialises tensors (save)",
    "load": "deserialises tensors (load)",
}
_REVIEW_MODULES = {
    "gc": "walks live objects (gc)",
    "inspect": "inspects frames (inspect)",
    "subprocess": "starts processes (subprocess)",
    "socket": "opens sockets",
    "multiprocessing": "starts processes (multiprocessing)",
}
#: ProcessGroup methods, by attribute syntax (their torch.distributed namesakes are recorded)
_PG_METHODS = "allreduce allgather alltoall alltoall_base _allgather_base _reduce_scatter_base recv_anysource"
_PG_METHODS = (*_PG_METHODS.split(), "allreduce_coalesced", "allgather_coalesced")
_BANNED_ATTRS = {
    "distributed_c10d": "reaches torch.distributed's internals (distributed_c10d)",
    "_get_default_group": "reaches the default ProcessGroup object",
    "_world": "reaches torch.distributed's global state",
    "_C": "calls torch's C bindings directly",
    "_VF": "calls torch's C bindings directly (torch._VF)",
    "sys": "reaches the sys module through another module (os.sys)",
    "_functional_collectives": "uses functional collectives behind the guard",
    "_c10d_functional": "calls collective operators behind the guard (torch.ops._c10d_functional)",
    "_c10d_functional_autograd": "calls collective operators behind the guard (torch.ops._c10d_functional)",
    "c10d": "calls collective operators behind the guard (torch.ops.c10d)",
    "_OpNamespace": "builds an operator namespace by hand (torch._ops._OpNamespace)",
    "_get_packet": "looks up operators by hand (torch._ops._get_packet)",
    **{name: f"calls a ProcessGroup method ({name})" for name in _PG_METHODS},
    "modules": None,  # not as a method call (model.modules()), handled by the scanner
    # the doors around the guard: what a banned object or the grader's state is one step from
    "__wrapped__": "unwraps a function to reach what it wraps (__wrapped__)",
    "__subclasses__": "walks a class's subclasses (__subclasses__)",
    "__globals__": "reads a function's module globals (__globals__)",
    "__closure__": "reads a function's closure (__closure__)",
    "cell_contents": "reads a closure cell (cell_contents)",
    "__code__": "reads or rewrites a function's code (__code__)",
    "f_back": "walks up the call stack (f_back)",
    "f_locals": "reads a frame's variables (f_locals)",
    "f_globals": "reads a frame's globals (f_globals)",
    "f_builtins": "reads a frame's builtins (f_builtins)",
    "tb_frame": "reads a frame through a traceback (tb_frame)",
    "gi_frame": "reads a generator's frame (gi_frame)",
    "cr_frame": "reads a coroutine's frame (cr_frame)",
    "ag_frame": "reads a generator's frame (ag_frame)",
    "_python_dispatch": "steps out of the kit's dispatch modes (torch.utils._python_dispatch)",
    "__self__": "reads the object behind a bound method (__self__)",
    "__reduce__": "reads what an object is made of (__reduce__)",
    "__reduce_ex__": "reads what an object is made of (__reduce_ex__)",
    **{
        f"_global_{kind}": "reaches torch's global module hooks, the graders' among them"
        for kind in (
            "forward_pre_hooks",
            "forward_hooks",
            "forward_hooks_always_called",
            "forward_hooks_with_kwargs",
            "backward_hooks",
            "backward_pre_hooks",
            "is_full_backward_hook",
        )
    },
}
#: names that lead around the guard when imported from ``sys`` (``from sys import modules``)
_SYS_NAMES = {
    "modules": "reaches the module table (sys.modules)",
    "_getframe": "reads the interpreter's frames (sys._getframe)",
    "_current_frames": "reads the interpreter's frames (sys._current_frames)",
    "settrace": "traces the interpreter (settrace)",
    "setprofile": "traces the interpreter (setprofile)",
}
_BANNED_CALLS = {
    "__import__": "imports modules dynamically (__import__)",
    "eval": "evaluates code (eval)",
    "exec": "executes code (exec)",
    "compile": "compiles code (compile)",
}
#: calls of these names, on any object, go around the guard
_BANNED_METHODS = {
    "_getframe": "reads the interpreter's frames (sys._getframe)",
    "_current_frames": "reads the interpreter's frames (sys._current_frames)",
    "currentframe": "reads the interpreter's frames (inspect.currentframe)",
    "getouterframes": "reads the interpreter's frames (inspect.getouterframes)",
    "getinnerframes": "reads the interpreter's frames (inspect.getinnerframes)",
    "walk_stack": "reads the interpreter's frames (traceback.walk_stack)",
    "walk_tb": "reads the interpreter's frames (traceback.walk_tb)",
    "settrace": "traces the interpreter (settrace)",
    "setprofile": "traces the interpreter (setprofile)",
    "get_objects": "walks every live object (gc.get_objects)",
    "get_referrers": "walks live objects (gc.get_referrers)",
    "get_referents": "walks live objects (gc.get_referents)",
    "FunctionType": "builds a function from a code object (types.FunctionType)",
    "CodeType": "builds a code object (types.CodeType)",
    "attrgetter": "reads attributes by name (operator.attrgetter), the doors' names included",
    "methodcaller": "calls methods by name (operator.methodcaller)",
    "getclosurevars": "reads a function's closure (inspect.getclosurevars)",
    "get_group_store": "takes the store every rank shares (ProcessGroup.get_group_store)",
}
#: attribute names that are doors wherever they appear as a string (handed to any attribute reader)
_DOOR_NAMES = frozenset(
    name for name in _BANNED_ATTRS if name.startswith(("__", "f_", "tb_", "gi_", "cr_", "ag_", "cell_"))
)
#: ``inspect.<name>()`` reads frames (elsewhere, ``stack`` is just ``torch.stack``)
_INSPECT_FRAME_CALLS = {"stack", "trace"}
#: attribute names read by a computed or constant ``getattr``, ``setattr``, ``delattr`` or ``vars``
_ATTRIBUTE_CALLS = ("getattr", "setattr", "delattr", "hasattr")
_FRAME_PREFIXES = ("f_", "tb_", "gi_", "cr_", "ag_")
#: pieces of the doors' names, and the calls that hide a name (``chr(95) * 2 + "closure"``)
_DOOR_FRAGMENT = re.compile(r"frame|closure|globals|c10d|dispatch|wrapped|subclass|builtin|import|recorder")
_SCRAMBLERS = {"chr", "join", "replace", "format", "decode", "encode", "reversed", "bytes", "fromhex"}
_REVIEW_CALLS = {
    "_exit": "ends the process (os._exit)",
    "kill": "sends a signal (os.kill)",
    "killpg": "sends a signal to a process group (os.killpg)",
    "pidfd_send_signal": "sends a signal (signal.pidfd_send_signal)",
}
#: ``signal.<name>()``: a handler is handed the interrupted frame, the grader's
_SIGNAL_CALLS = {"signal", "setitimer", "alarm"}
_TORCH_ROOTS = {"torch"}
