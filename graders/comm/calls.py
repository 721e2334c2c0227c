"""Worker side: what a traced ``torch.distributed`` call moves, and its asynchronous handle.

:func:`payload_and_peer` reads the bytes a rank hands to a call and its peer or root from the
call's bound arguments; :class:`RecordedWork` wraps an async ``Work`` so that waiting on it
shows in the hang report; :class:`OnTheWire` keeps the most bytes asynchronous collectives held
at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import torch

from graders.comm import backend_hold

P2P_SEND = ("send", "isend")
P2P_RECV = ("recv", "irecv")


class OnTheWire:
    """The asynchronous collectives launched and not yet waited for, and the most buffer bytes
    they held at once (inputs and outputs): what "one bucket on the wire" promises."""

    def __init__(self) -> None:
        self.pending: dict[int, int] = {}
        self.most = 0
        self.where = ""

    def launched(self, work, op: str, nbytes: int, site: str) -> None:
        self.pending[id(work)] = nbytes
        now = sum(self.pending.values())
        if now > self.most:
            self.most, self.where = now, f"{len(self.pending)} {op} in flight at {site}"

    def landed(self, work) -> None:
        self.pending.pop(id(work), None)

    def take(self) -> dict:
        """The most since the last take; counting goes on from what is pending now."""
        most, where = self.most, self.where
        self.most, self.where = sum(self.pending.values()), ""
        return {"bytes": most, "where": where}


class RecordedWork:
    """An async ``Work`` whose ``wait()`` shows up in the hang report. It holds nothing of the
    recorder graded code could reach by an attribute: only the waiting function (a closure).

    ``aliases``: what the backend was handed instead of graded code's tensors
    (:mod:`graders.comm.backend_hold`), cut loose once the handle died and the work completed."""

    __slots__ = ("_work", "_wait", "_aliases", "_waited")

    def __init__(self, work, wait: Callable, aliases: tuple = ()) -> None:
        self._work = work
        self._wait = wait
        self._aliases = aliases
        self._waited = False

    def wait(self, *args, **kwargs):
        done = self._wait(self, self._work, args, kwargs)
        self._waited = True
        return done

    def __getattr__(self, name):
        return getattr(self._work, name)

    def __del__(self) -> None:
        aliases, self._aliases = self._aliases, ()
        try:
            if aliases and self._work is not None:
                backend_hold.handle_dropped(self._work, aliases, self._waited)
        except Exception:  # noqa: BLE001 - a handle dying must never raise
            pass


def tensors_of(value) -> list[torch.Tensor]:
    """The tensors in a call's argument: one tensor, or a list or tuple of them."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, list | tuple):
        return [v for v in value if isinstance(v, torch.Tensor)]
    return []


def nbytes_of(value) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, list | tuple):
        return sum(nbytes_of(v) for v in value)
    return 0


def _global_peer(arguments, group: tuple[int, ...], key: str, group_key: str) -> int:
    peer = arguments.get(key)
    if peer is not None:
        return int(peer)
    group_peer = arguments.get(group_key)
    if group_peer is not None and 0 <= group_peer < len(group):
        return group[group_peer]
    return -1


def buffer_bytes(name: str, arguments: dict) -> int:
    """Bytes of every tensor an asynchronous collective holds until it is waited for."""
    return sum(
        nbytes_of(value) for value in arguments.values() if isinstance(value, torch.Tensor | list | tuple)
    )


def payload_and_peer(name: str, arguments: dict, group: tuple[int, ...]) -> tuple[int, int]:
    """Bytes this rank hands to the call, and the peer or root rank (-1 when none)."""
    if name in P2P_SEND:
        return nbytes_of(arguments["tensor"]), _global_peer(arguments, group, "dst", "group_dst")
    if name in P2P_RECV:
        return nbytes_of(arguments["tensor"]), _global_peer(arguments, group, "src", "group_src")
    if name in ("broadcast", "scatter"):
        payload = arguments.get("scatter_list") if name == "scatter" else arguments["tensor"]
        return nbytes_of(payload), _global_peer(arguments, group, "src", "group_src")
    if name in ("reduce", "gather", "gather_single", "gather_into_tensor"):
        return nbytes_of(arguments["tensor"]), _global_peer(arguments, group, "dst", "group_dst")
    for key in ("input", "input_tensor", "tensor", "input_list", "input_tensor_list", "tensors"):
        if key in arguments:
            return nbytes_of(arguments[key]), -1
    return 0, -1


def describe(name: str, nbytes: int, peer: int, group: tuple[int, ...], site: str) -> str:
    """The status-board line for a blocking call: JSON ``[op, peer, nbytes, group, site]``."""
    return json.dumps([name, peer, nbytes, list(group), site])
