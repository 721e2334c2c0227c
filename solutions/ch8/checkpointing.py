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

### BEGIN SOLUTION


class _Checkpoint(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *args):
        ctx.fn = fn
        ctx.rng_state = torch.get_rng_state()
        ctx.is_tensor = [isinstance(a, torch.Tensor) for a in args]
        ctx.others = [None if t else a for a, t in zip(args, ctx.is_tensor, strict=True)]
        ctx.save_for_backward(*(a for a, t in zip(args, ctx.is_tensor, strict=True) if t))
        with torch.no_grad():
            return fn(*args)

    @staticmethod
    def backward(ctx, grad):
        saved = iter(ctx.saved_tensors)
        args = []
        for is_tensor, other, needs in zip(ctx.is_tensor, ctx.others, ctx.needs_input_grad[1:], strict=True):
            args.append(next(saved).detach().requires_grad_(needs) if is_tensor else other)
        with torch.random.fork_rng([]):
            torch.set_rng_state(ctx.rng_state)
            with torch.enable_grad():
                out = ctx.fn(*args)
        torch.autograd.backward(out, grad)
        grads = [a.grad if isinstance(a, torch.Tensor) and a.requires_grad else None for a in args]
        return (None, *grads)


### END SOLUTION


def checkpoint(fn, *args):
    ### BEGIN SOLUTION
    return _Checkpoint.apply(fn, *args)
    ### END SOLUTION
