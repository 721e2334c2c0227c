"""Hidden graders of chapter 6: run at grading time only, absent from the student release.

They bring more evidence to parts the students already see, never new points:
* the vocabulary-parallel cross-entropy on logits large enough that ``exp`` overflows unless
  each token's maximum (over the whole vocabulary, so over the group) is subtracted first;
* the row-parallel layer's hand-written backward on larger shapes than the public examples.
"""

import torch
from hypothesis import example, given, settings

from graders.chapters.ch6 import cases, checks, tasks
from graders.chapters.ch6.vocab import cases as vocab_cases
from graders.chapters.ch6.vocab import checks as vocab_checks
from graders.chapters.ch6.vocab import tasks as vocab_tasks
from graders.judge.checks import fail
from graders.plugin import exercise
from graders.words.text import Text

#: Large examples cost more: fewer of them than the profile's count, in every profile.
LARGE = settings(max_examples=12)
#: logits this large overflow ``exp`` in float32 (e^89) and float64 (e^710) alike
LOGIT_SCALE = 300.0

#: Hidden graders say their own words (in both languages) so the released tables do not tell them.
UNSTABLE = {
    "en": "with logits of a few hundred, rank {rank}'s loss or gradient is not finite: "
    "exp overflows. Subtract each token's maximum logit over the whole vocabulary (a MAX "
    "all-reduce over the group) before exp, as torch's own cross-entropy does.",
    "vi": "với logits cỡ vài trăm, loss hoặc gradient của rank {rank} không hữu hạn: exp bị tràn "
    "số. Hãy trừ logit lớn nhất của mỗi token trên toàn bộ từ vựng (một all-reduce MAX trên cả "
    "nhóm) trước khi lấy exp, như cross-entropy của chính torch.",
}


def large_logit_cases():
    return vocab_cases.cross_entropy_cases(min_members=2, min_local_vocab=4, logit_scale=LOGIT_SCALE / 3)


@exercise("ch6.vocab_parallel_cross_entropy", part="result")
@LARGE
@given(case=large_logit_cases())
@example(case=vocab_cases.build_cross_entropy(3, (0, 2), 16, (2, 3), seed=2, logit_scale=LOGIT_SCALE / 3))
def test_vocab_parallel_cross_entropy_is_stable_on_large_logits(harness, impl, case):
    run = harness.run(vocab_tasks.vocab_parallel_cross_entropy, impl, case)
    for rank in case.ranks:
        values = [run[rank].get(key) for key in ("output", "logits_grad")]
        if any(isinstance(v, torch.Tensor) and not torch.isfinite(v).all() for v in values):
            fail(Text({lang: text.format(rank=rank) for lang, text in UNSTABLE.items()}), case)
    vocab_checks.assert_cross_entropy(run, case)


@exercise("ch6.row_parallel_linear", part="backward")
@LARGE
#: sums of up to 64 products: float32 rounding would blur the comparison, so float64
@given(case=cases.linear_cases("row", min_members=2, per_rank=(8, 16), dtypes=("float64",)))
def test_row_parallel_linear_backward_on_larger_shapes(harness, impl, case):
    checks.assert_hand_written_backward(harness.run(tasks.row_parallel_linear_by_hand, impl, case), case)
