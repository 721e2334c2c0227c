"""Chapter 9's teaching messages in English and Vietnamese (see :mod:`graders.messages`)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "ch9:not a pair": {
        "en": "blockwise_attention must return (out, lse), got {got}.",
        "vi": "blockwise_attention phải trả về (out, lse), nhưng nhận được {got}.",
    },
    "ch9:output": {
        "en": "the attention output",
        "vi": "đầu ra của attention",
    },
    "ch9:lse": {
        "en": "the log-sum-exp of each query's scores",
        "vi": "log-sum-exp của các điểm (score) của mỗi query",
    },
    "ch9:blockwise:hint": {
        "en": "keep per query row the running maximum m, the sum l of exp(score - m) and the weighted sum"
        " of values; a block with a larger maximum rescales both by exp(m_old - m_new).",
        "vi": "với mỗi hàng query, hãy giữ giá trị lớn nhất m đang chạy, tổng l của exp(score - m) và tổng"
        " có trọng số của các value; một block có giá trị lớn nhất lớn hơn sẽ nhân cả hai với"
        " exp(m_old - m_new).",
    },
    "ch9:causal:hint": {
        "en": "causal: a query attends to keys at positions up to its own; mask the later keys of each"
        " block with -inf before the running maximum, by their position in the whole sequence.",
        "vi": "causal: một query chỉ nhìn các key ở vị trí không sau nó; hãy che các key đến sau trong mỗi"
        " block bằng -inf trước khi lấy giá trị lớn nhất, theo vị trí của chúng trong cả chuỗi.",
    },
    "ch9:lse:hint": {
        "en": "lse = m + log(l) at the end: the log of each row's softmax denominator, scale included.",
        "vi": "lse = m + log(l) ở cuối: log của mẫu số softmax của mỗi hàng, đã tính cả scale.",
    },
    "ch9:largest": {
        "en": "the largest tensor made was {bytes} B ({where}); one block of scores or the output is at"
        " most {limit} B (a full score matrix: {full} B).",
        "vi": "tensor lớn nhất được tạo ra là {bytes} B ({where}); một block điểm hoặc đầu ra tối đa"
        " {limit} B (cả ma trận điểm: {full} B).",
    },
    "ch9:memory:hint": {
        "en": "never make a seq × seq tensor: score one block of keys at a time, [seq, block_size] per head.",
        "vi": "đừng bao giờ tạo một tensor seq × seq: tính điểm cho từng block key một, [seq, block_size]"
        " mỗi head.",
    },
    "ch9:rank output": {
        "en": "rank {rank}'s output",
        "vi": "đầu ra của rank {rank}",
    },
    "ch9:rank grad": {
        "en": "rank {rank}'s gradient of {name}",
        "vi": "gradient của {name} trên rank {rank}",
    },
    "ch9:ulysses:hint": {
        "en": "rank r's chunk of positions goes, head group by head group, to the rank that owns those"
        " heads; it comes back by the reverse all-to-all, position chunk by position chunk.",
        "vi": "đoạn vị trí của rank r được gửi, theo từng nhóm head, tới rank sở hữu các head đó; nó quay"
        " về bằng all-to-all ngược, theo từng đoạn vị trí.",
    },
    "ch9:ulysses backward:hint": {
        "en": "the backward of an all-to-all is the reverse all-to-all: write it in a"
        " torch.autograd.Function.",
        "vi": "backward của một all-to-all là all-to-all ngược chiều: hãy viết nó trong một"
        " torch.autograd.Function.",
    },
    "ch9:unexpected value error": {
        "en": "rank {rank} raised ValueError ({error}) for a head count the group divides.",
        "vi": "rank {rank} báo ValueError ({error}) cho một số head mà nhóm chia hết.",
    },
    "ch9:no backward": {
        "en": "rank {rank}: the gradient could not be back-propagated through the output ({why}).",
        "vi": "rank {rank}: không thể lan truyền ngược gradient qua đầu ra ({why}).",
    },
    "ch9:no backward:hint": {
        "en": "return a tensor shaped like q, [seq_per_rank, heads, dim], with a grad_fn.",
        "vi": "hãy trả về một tensor có shape như q, [seq_per_rank, heads, dim], có grad_fn.",
    },
    "ch9:forward": {
        "en": "forward",
        "vi": "forward",
    },
    "ch9:backward": {
        "en": "backward",
        "vi": "backward",
    },
    "ch9:ulysses traffic": {
        "en": "rank {rank}'s {direction} communicated {got}; Ulysses needs exactly two all-to-alls on the"
        " group: q, k and v stacked ({qkv} B in forward) and the output ({out} B), in backward the same"
        " two in reverse order.",
        "vi": "{direction} của rank {rank} đã giao tiếp {got}; Ulysses cần đúng hai all-to-all trên nhóm:"
        " q, k và v xếp chồng ({qkv} B trong forward) và đầu ra ({out} B), trong backward là hai cái đó"
        " theo thứ tự ngược lại.",
    },
    "ch9:ulysses traffic:hint": {
        "en": "stack q, k and v before the first all-to-all (one call, not three), and send nothing else.",
        "vi": "hãy xếp chồng q, k và v trước all-to-all đầu tiên (một lời gọi, không phải ba), và không gửi"
        " gì khác.",
    },
    "ch9:heads accepted": {
        "en": "rank {rank} accepted {heads} heads over {n} ranks; heads that do not divide by the group"
        " size must raise ValueError.",
        "vi": "rank {rank} đã chấp nhận {heads} head trên {n} rank; số head không chia hết cho kích thước"
        " nhóm phải báo ValueError.",
    },
    "ch9:heads message": {
        "en": "rank {rank}'s ValueError says {message!r}; it should name the {heads} heads and the {n}"
        " ranks.",
        "vi": "ValueError của rank {rank} nói {message!r}; nó cần nêu {heads} head và {n} rank.",
    },
    "ch9:heads:hint": {
        "en": "check heads % group size before any communication, on every rank, and say both numbers.",
        "vi": "hãy kiểm tra heads % kích thước nhóm trước mọi giao tiếp, trên mọi rank, và nêu cả hai số.",
    },
}
