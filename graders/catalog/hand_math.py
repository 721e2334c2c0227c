"""The operators a forward and backward written by hand may run: the allowlist of a "by hand"
contract (``Exercise.hand_written``).

Admitted, besides what is named here: every operator torch tags as pointwise or as a reduction,
and every view (an operator whose result aliases its input without writing it). Everything else
is refused at the dispatcher (:mod:`graders.comm.hand_written`): autograd's derivative kernels
(``*_backward``), forward-mode AD's dual-tensor operators (``_efficientzerotensor``,
``_has_same_storage_numel``, ``is_same_size``, ...), functional transforms' wrappers and any private
operator not listed below, whatever Python name reached them.
"""

from __future__ import annotations

#: matrix products: what a linear layer's forward and backward are made of
MATMULS = frozenset({"mm", "bmm", "addmm", "baddbmm", "addbmm", "mv", "addmv", "dot", "vdot", "matmul"})

#: reductions and normalisations torch does not tag as reductions
REDUCTIONS = frozenset(
    {
        "amax",
        "amin",
        "max",
        "min",
        "argmax",
        "argmin",
        "logsumexp",
        "softmax",
        "log_softmax",
        "_softmax",
        "_log_softmax",
        "cumsum",
        "cumprod",
        "sort",
        "topk",
        "norm",
        "linalg_vector_norm",
    }
)

#: making, copying, joining and indexing tensors
PLUMBING = frozenset(
    {
        "empty",
        "empty_like",
        "empty_strided",
        "zeros",
        "zeros_like",
        "ones",
        "ones_like",
        "full",
        "full_like",
        "new_empty",
        "new_empty_strided",
        "new_zeros",
        "new_ones",
        "new_full",
        "arange",
        "scalar_tensor",
        "eye",
        "tril",
        "triu",
        "lift_fresh",
        "lift_fresh_copy",
        "_to_copy",
        "copy",
        "copy_",
        "clone",
        "contiguous",
        "detach",
        "fill",
        "fill_",
        "zero_",
        "resize_",
        "_unsafe_view",
        "_reshape_alias",
        "cat",
        "stack",
        "flip",
        "roll",
        "repeat",
        "index",
        "index_put",
        "index_put_",
        "index_select",
        "index_add",
        "index_add_",
        "index_copy",
        "index_copy_",
        "gather",
        "scatter",
        "scatter_",
        "scatter_add",
        "scatter_add_",
        "scatter_reduce",
        "masked_select",
        "masked_scatter",
        "masked_scatter_",
        "embedding",
        "one_hot",
        "nonzero",
        "_local_scalar_dense",
        "item",
        "is_nonzero",
        "equal",
        "allclose",
        "repeat_interleave",
        "diag",
        "diag_embed",
        "resolve_conj",
        "resolve_neg",
    }
)

#: every aten operator named above (a name without its overload: ``"mm"`` for ``aten::mm``)
ADMITTED = MATMULS | REDUCTIONS | PLUMBING

#: namespaces admitted whole: the collectives (which of them a contract allows is the guard's
#: business, and what they send the recorder's)
ADMITTED_NAMESPACES = frozenset({"c10d"})
