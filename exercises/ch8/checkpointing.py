# Generated from solutions/ch8/checkpointing.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 8: activation checkpointing, written as one autograd Function.

``checkpoint(fn, *args)`` returns ``fn(*args)`` but keeps none of ``fn``'s intermediate
activations for backward: forward runs ``fn`` without building a graph and saves only the
tensor arguments; backward runs ``fn`` again, with a graph this time, and back-propagates the
incoming gradient through it. That costs one more forward in backward, in exchange for the
memory of everything ``fn`` would have saved.

Randomness must repeat: a dropout inside ``fn`` draws its mask from the CPU generator, so
forward keeps the generator's state (``torch.get_rng_state()``) and the recompute runs from that
same state, inside ``torch.random.fork_rng`` so that the generator ends backward where it
was, as if nothing had been recomputed.

Contract: ``fn`` returns one tensor; ``args`` are tensors (those that require grad get a
gradient) or other values (passed through, given ``None`` as gradient); the gradients of the
parameters ``fn`` uses accumulate into their ``.grad`` as usual. ``torch.utils.checkpoint`` is
not allowed.
"""

import torch


def checkpoint(fn, *args):
    raise NotImplementedError("[dtlab TODO] ch8/checkpointing.py: implement checkpoint")
