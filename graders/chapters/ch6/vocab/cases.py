"""The vocabulary-parallel examples chapter 6 draws (the embedding and the cross-entropy), and
their one-line reproductions."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from hypothesis import strategies as st

from graders.chapters.ch6.cases import FLOATS, tensors_from_seed
from graders.judge import strategies as S


@dataclass(frozen=True)
class VocabCase(S.GroupMembers):
    """Token ids shaped ``ids_shape`` into a vocabulary of ``vocab`` split over the group:
    an embedding table ``[vocab, dim]``, or logits ``[*ids_shape, vocab]`` scored against them."""

    world_size: int
    group: tuple[int, ...] | None
    vocab: int
    dim: int
    ids_shape: tuple[int, ...]
    dtype: str = "float32"
    seed: int = 0
    #: how large the logits are: drawn about ±3, then multiplied by this (the one-line
    #: reproduction names it when it is not 1, so that the example replays)
    logit_scale: float = 1.0
    ids: torch.Tensor = field(default=None, compare=False, repr=False)
    table: torch.Tensor = field(default=None, compare=False, repr=False)  # embedding weight, or logits
    grad: torch.Tensor = field(default=None, compare=False, repr=False)

    @property
    def tokens(self) -> int:
        return self.ids.numel()

    @property
    def numel(self) -> int:
        return self.table.numel()

    @property
    def itemsize(self) -> int:
        return self.table.element_size()

    def __repr__(self) -> str:
        group = f", group={self.group}" if self.group is not None else ""
        scale = f", logit_scale={self.logit_scale:g}" if self.logit_scale != 1 else ""
        return (
            f"world_size={self.world_size}{group}, vocab={self.vocab}, dim={self.dim}, "
            f"ids_shape={self.ids_shape}, dtype={self.dtype}, seed={self.seed}{scale}"
        )


def build_embedding(world_size, group, vocab, dim, ids_shape, *, dtype="float32", seed=0) -> VocabCase:
    generator = S.seeded_generator(seed)
    ids = torch.randint(0, vocab, ids_shape, generator=generator)
    table, grad = tensors_from_seed(seed + 1, dtype, (vocab, dim), (*ids_shape, dim))
    return VocabCase(world_size, group, vocab, dim, tuple(ids_shape), dtype, seed, 1.0, ids, table, grad)


def build_cross_entropy(
    world_size, group, vocab, ids_shape, *, dtype="float32", seed=0, logit_scale=1.0
) -> VocabCase:
    generator = S.seeded_generator(seed)
    ids = torch.randint(0, vocab, ids_shape, generator=generator)
    logits, grad = tensors_from_seed(seed + 1, dtype, (*ids_shape, vocab), ids_shape)
    table = 3 * logits * logit_scale
    return VocabCase(
        world_size, group, vocab, 0, tuple(ids_shape), dtype, seed, logit_scale, ids, table, grad
    )


@st.composite
def embedding_cases(draw, min_members: int = 1):
    world_size, group = draw(S.worlds(min_members=min_members))
    n = len(group) if group is not None else world_size
    ids_shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=2)))
    vocab, dim = n * draw(st.integers(1, 5)), draw(st.integers(1, 6))
    return build_embedding(
        world_size, group, vocab, dim, ids_shape, dtype=draw(st.sampled_from(FLOATS)), seed=draw(S.seeds)
    )


@st.composite
def cross_entropy_cases(
    draw, *, sizes=(1, 2, 3, 4), min_members: int = 1, min_local_vocab: int = 1, logit_scale: float = 1.0
):
    world_size, group = draw(S.worlds(sizes=sizes, min_members=min_members))
    n = len(group) if group is not None else world_size
    ids_shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=2)))
    vocab = n * draw(st.integers(min_local_vocab, min_local_vocab + 6))
    dtype = draw(st.sampled_from(FLOATS))
    seed = draw(S.seeds)
    return build_cross_entropy(
        world_size, group, vocab, ids_shape, dtype=dtype, seed=seed, logit_scale=logit_scale
    )


EMBEDDING_EDGES = [
    build_embedding(1, None, 3, 2, (4,), dtype="float64", seed=1),
    build_embedding(3, (1, 2), 4, 3, (2, 3), seed=2),
    build_embedding(4, None, 8, 2, (5,), dtype="float64", seed=3),
]


CROSS_ENTROPY_EDGES = [
    build_cross_entropy(1, None, 5, (3,), dtype="float64", seed=1),
    build_cross_entropy(3, (0, 2), 16, (2, 3), seed=2),
    build_cross_entropy(4, None, 32, (5,), dtype="float64", seed=3),
]
