"""What the static scan (:mod:`graders.comm.static_scan`) looks for: the modules, attributes, calls
and names that lead around the graders' guard (*bypass*), keep memory outside torch's storages
(*memory*), or deserve a teacher's look (*review*), each with the reason a student reads: the key of
its words in the kit's catalogue (``scan:finding:...``, said by :meth:`Finding.said
<graders.comm.static_scan.Finding.said>` in every language)."""

from __future__ import annotations

import re

_BANNED_MODULES = {
    "ctypes": "scan:finding:ctypes",
    "cffi": "scan:finding:cffi",
    "importlib": "scan:finding:importlib",
    "builtins": "scan:finding:builtins",
    "torch.distributed.distributed_c10d": "scan:finding:distributed_c10d",
    "torch._C": "scan:finding:torch._C",
    "torch.distributed._functional_collectives": "scan:finding:functional collectives",
    "torch.utils._python_dispatch": "scan:finding:python dispatch",
    "torch._ops": "scan:finding:torch._ops",
    "graders": "scan:finding:graders",
    "solutions": "scan:finding:solutions",
}
#: where memory lives outside torch's storages, which the live ledger counts
_MEMORY_MODULES = {
    "numpy": "scan:finding:numpy",
    "pickle": "scan:finding:pickle",
    "marshal": "scan:finding:marshal",
    "shelve": "scan:finding:shelve",
    "array": "scan:finding:array",
    "mmap": "scan:finding:mmap",
    "threading": "scan:finding:thread",
    "_thread": "scan:finding:thread",
    "concurrent": "scan:finding:concurrent",
}
_MEMORY_CALLS = {
    "tolist": "scan:finding:tolist",
    "numpy": "scan:finding:.numpy",
    "tobytes": "scan:finding:tobytes",
    "frombuffer": "scan:finding:frombuffer",
    "UntypedStorage": "scan:finding:storage",
    "TypedStorage": "scan:finding:storage",
    "open": "scan:finding:open",
    "item": "scan:finding:item",
    "BytesIO": "scan:finding:BytesIO",
    "StringIO": "scan:finding:StringIO",
    "save": "scan:finding:save",
    "load": "scan:finding:load",
}
_REVIEW_MODULES = {
    "gc": "scan:finding:gc",
    "inspect": "scan:finding:inspect",
    "subprocess": "scan:finding:subprocess",
    "socket": "scan:finding:socket",
    "multiprocessing": "scan:finding:multiprocessing",
}
#: ProcessGroup methods, by attribute syntax (their torch.distributed namesakes are recorded)
_PG_METHODS = "allreduce allgather alltoall alltoall_base _allgather_base _reduce_scatter_base recv_anysource"
_PG_METHODS = (*_PG_METHODS.split(), "allreduce_coalesced", "allgather_coalesced")
_BANNED_ATTRS = {
    "distributed_c10d": "scan:finding:distributed_c10d",
    "_get_default_group": "scan:finding:_get_default_group",
    "_world": "scan:finding:_world",
    "_C": "scan:finding:torch._C",
    "_VF": "scan:finding:torch._VF",
    "sys": "scan:finding:os.sys",
    "_functional_collectives": "scan:finding:functional collectives",
    "_c10d_functional": "scan:finding:_c10d_functional",
    "_c10d_functional_autograd": "scan:finding:_c10d_functional",
    "c10d": "scan:finding:c10d",
    "_OpNamespace": "scan:finding:_OpNamespace",
    "_get_packet": "scan:finding:_get_packet",
    **dict.fromkeys(_PG_METHODS, "scan:finding:process group method"),  # said with the method's name
    "modules": None,  # not as a method call (model.modules()), handled by the scanner
    # the doors around the guard: what a banned object or the grader's state is one step from
    "__wrapped__": "scan:finding:__wrapped__",
    "__subclasses__": "scan:finding:__subclasses__",
    "__globals__": "scan:finding:__globals__",
    "__closure__": "scan:finding:__closure__",
    "cell_contents": "scan:finding:cell_contents",
    "__code__": "scan:finding:__code__",
    "f_back": "scan:finding:f_back",
    "f_locals": "scan:finding:f_locals",
    "f_globals": "scan:finding:f_globals",
    "f_builtins": "scan:finding:f_builtins",
    "tb_frame": "scan:finding:tb_frame",
    "gi_frame": "scan:finding:gi_frame",
    "cr_frame": "scan:finding:cr_frame",
    "ag_frame": "scan:finding:ag_frame",
    "_python_dispatch": "scan:finding:python dispatch",
    "__self__": "scan:finding:__self__",
    "__reduce__": "scan:finding:__reduce__",
    "__reduce_ex__": "scan:finding:__reduce_ex__",
    **{
        f"_global_{kind}": "scan:finding:global hooks"
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
    "modules": "scan:finding:sys.modules",
    "_getframe": "scan:finding:sys._getframe",
    "_current_frames": "scan:finding:sys._current_frames",
    "settrace": "scan:finding:settrace",
    "setprofile": "scan:finding:setprofile",
}
_BANNED_CALLS = {
    "__import__": "scan:finding:__import__",
    "eval": "scan:finding:eval",
    "exec": "scan:finding:exec",
    "compile": "scan:finding:compile",
}
#: calls of these names, on any object, go around the guard
_BANNED_METHODS = {
    "_getframe": "scan:finding:sys._getframe",
    "_current_frames": "scan:finding:sys._current_frames",
    "currentframe": "scan:finding:inspect.currentframe",
    "getouterframes": "scan:finding:inspect.getouterframes",
    "getinnerframes": "scan:finding:inspect.getinnerframes",
    "walk_stack": "scan:finding:traceback.walk_stack",
    "walk_tb": "scan:finding:traceback.walk_tb",
    "settrace": "scan:finding:settrace",
    "setprofile": "scan:finding:setprofile",
    "get_objects": "scan:finding:gc.get_objects",
    "get_referrers": "scan:finding:gc.get_referrers",
    "get_referents": "scan:finding:gc.get_referents",
    "FunctionType": "scan:finding:types.FunctionType",
    "CodeType": "scan:finding:types.CodeType",
    "attrgetter": "scan:finding:operator.attrgetter",
    "methodcaller": "scan:finding:operator.methodcaller",
    "getclosurevars": "scan:finding:inspect.getclosurevars",
    "get_group_store": "scan:finding:get_group_store",
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
    "_exit": "scan:finding:os._exit",
    "kill": "scan:finding:os.kill",
    "killpg": "scan:finding:os.killpg",
    "pidfd_send_signal": "scan:finding:pidfd_send_signal",
}
#: ``signal.<name>()``: a handler is handed the interrupted frame, the grader's
_SIGNAL_CALLS = {"signal", "setitimer", "alarm"}
_TORCH_ROOTS = {"torch"}
