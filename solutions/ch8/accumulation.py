"""Chapter 8: gradient accumulation, one optimizer step over several microbatches.

A batch too large for memory is cut into microbatches of ``(x, y)``, possibly of different
sizes. Each row of ``x`` is one *token*; ``loss_fn(model(x), y)`` returns one loss per token
(shape ``[rows]``, ``reduction="none"``). The step's loss is the mean over **all** the step's
tokens, so each microbatch contributes the *sum* of its token losses divided by the step's
total token count: the mean of the microbatches' means would weigh a small microbatch's tokens
more. Back-propagating each microbatch's share adds up, in ``.grad``, exactly the gradient of
the large-batch step; then one ``optimizer.step()`` and ``optimizer.zero_grad()``.

Under ``torch.nn.parallel.DistributedDataParallel`` (``model`` has ``no_sync``), each backward
would all-reduce the gradients; inside ``model.no_sync()`` it only accumulates. Run every
microbatch but the last inside it: exactly one all-reduce per optimizer step. (Each rank's loss
is its own tokens' mean; DDP averages the ranks' gradients.)

``accumulation_step`` returns the step's loss, a Python float.
"""

import contextlib


def accumulation_step(model, optimizer, microbatches, loss_fn) -> float:
    ### BEGIN SOLUTION
    tokens = sum(x.shape[0] for x, _ in microbatches)
    total = 0.0
    for i, (x, y) in enumerate(microbatches):
        last = i == len(microbatches) - 1
        quiet = model.no_sync() if hasattr(model, "no_sync") and not last else contextlib.nullcontext()
        with quiet:
            loss = loss_fn(model(x), y).sum() / tokens
            loss.backward()
        total += loss.item()
    optimizer.step()
    optimizer.zero_grad()
    return total
    ### END SOLUTION
