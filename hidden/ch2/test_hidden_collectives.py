"""Hidden graders of chapter 2: run at grading time only, absent from the student release.

Like nbgrader's hidden tests they bring more evidence to parts the students already see, never
new points: a part passes only if its public and its hidden tests all pass.
"""

import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from graders.chapters.ch2 import cases, checks, tasks
from graders.judge import strategies as S
from graders.judge.checks import fail
from graders.plugin import exercise
from graders.words.text import Text

SHOW = ("shape", "dtype", "op")
#: Large examples cost more: fewer of them than the profile's count, in every profile.
LARGE = settings(max_examples=20)


@st.composite
def large_float_cases(draw, max_numel: int = 30_001):
    """Whole-world float reductions of up to ``max_numel`` elements, uneven chunks included."""
    world_size = draw(st.integers(2, 4))
    numel = draw(st.integers(world_size, max_numel))
    dtype = draw(st.sampled_from(S.FLOAT_DTYPES))
    op = draw(st.sampled_from(("sum", "avg")))
    return cases.build_collective(world_size, None, (numel,), dtype, op, seed=draw(S.seeds), show=SHOW)


#: Hidden graders say their own words (in both languages) so the released tables do not tell them.
REPLICA_HINT = Text(
    {
        "en": "reduce each chunk once, on the rank that owns it, then pass the finished chunk around: "
        "summing on every rank in its own order leaves replicas that differ in the last bits, and "
        "data-parallel replicas that drift apart.",
        "vi": "hãy reduce mỗi chunk đúng một lần, trên rank sở hữu nó, rồi chuyển chunk đã hoàn tất đi "
        "khắp ring: cộng trên mọi rank theo thứ tự riêng của từng rank sẽ để lại các bản sao (replica) "
        "khác nhau ở vài bit cuối, và các replica data-parallel dần lệch khỏi nhau.",
    }
)

REPLICAS_DIFFER = {
    "en": "rank {rank}'s result differs from rank {first}'s in {differ} of {numel} elements (by up to "
    "{largest:.3g}): after an all-reduce all ranks must hold bitwise the same values.",
    "vi": "kết quả của rank {rank} khác với của rank {first} ở {differ} trên {numel} phần tử (lệch tối đa "
    "{largest:.3g}): sau all-reduce, mọi rank phải giữ các giá trị giống hệt nhau đến từng bit.",
}


@exercise("ch2.ring_all_reduce", part="result")
@LARGE
@given(case=large_float_cases())
@example(case=cases.build_collective(3, None, (30_001,), "float32", "sum", seed=11, show=SHOW))
def test_ring_all_reduce_leaves_identical_replicas(harness, impl, case):
    run = harness.run(tasks.ring_all_reduce, impl, case)
    first = case.ranks[0]
    checks.assert_all_reduce(run, case)
    for rank in case.ranks[1:]:
        mine, theirs = run[rank]["tensor"], run[first]["tensor"]
        if not torch.equal(mine, theirs):
            differ = (mine != theirs).sum().item()
            largest = (mine.double() - theirs.double()).abs().max().item()
            said = {"rank": rank, "first": first, "differ": differ, "numel": mine.numel(), "largest": largest}
            fail(
                Text({lang: REPLICAS_DIFFER[lang].format(**said) for lang in REPLICAS_DIFFER}),
                case,
                REPLICA_HINT,
            )


@exercise("ch2.ring_all_reduce", part="ring")
@LARGE
@given(case=large_float_cases())
def test_ring_all_reduce_bandwidth_on_large_tensors(harness, impl, case):
    checks.assert_all_reduce_ring(
        harness.run(tasks.ring_all_reduce, impl, case),
        case,
        hint=Text(
            {
                "en": "a ring all-reduce sends 2(N-1)/N of the tensor per rank, whatever its size.",
                "vi": "ring all-reduce gửi 2(N-1)/N tensor trên mỗi rank, dù tensor lớn đến đâu.",
            }
        ),
    )
