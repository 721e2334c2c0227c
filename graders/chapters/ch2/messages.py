"""Chapter 2's teaching messages, English and Vietnamese (see :mod:`graders.words.messages`)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    # -- what is compared ------------------------------------------------------------------------
    "ch2:input": {"en": "rank {rank}'s input", "vi": "đầu vào của rank {rank}"},
    "ch2:result": {"en": "rank {rank}'s result", "vi": "kết quả của rank {rank}"},
    "ch2:tensor": {"en": "rank {rank}'s tensor", "vi": "tensor của rank {rank}"},
    "ch2:chunk": {"en": "rank {rank}'s chunk", "vi": "chunk của rank {rank}"},
    "ch2:on dst": {"en": "the result on dst rank {rank}", "vi": "kết quả trên rank dst {rank}"},
    "ch2:out": {"en": "rank {rank}'s out[{j}]", "vi": "out[{j}] của rank {rank}"},
    "ch2:inputs": {"en": "rank {rank}'s inputs[{j}]", "vi": "inputs[{j}] của rank {rank}"},
    # -- results ------------------------------------------------------------------------------------
    "ch2:returned something": {
        "en": "{name} works in place and returns None; rank {rank} returned something else.",
        "vi": "{name} làm việc tại chỗ (in place) và trả về None; rank {rank} lại trả về thứ khác.",
    },
    "ch2:ring shift:hint": {
        "en": "rank r returns what its left neighbour (r - 1) % world sent.",
        "vi": "rank r trả về thứ mà hàng xóm bên trái (r - 1) % world đã gửi.",
    },
    "ch2:broadcast:hint": {
        "en": "src is a global rank; every rank ends with src's data.",
        "vi": "src là rank toàn cục; cuối cùng mọi rank đều có dữ liệu của src.",
    },
    "ch2:reduce:hint": {
        "en": "dst is a global rank; 'avg' divides the sum by the group size once.",
        "vi": "dst là rank toàn cục; 'avg' chia tổng cho kích thước nhóm (group) đúng một lần.",
    },
    "ch2:all gather:hint": {
        "en": "block j of the result is group rank j's tensor.",
        "vi": "khối j của kết quả là tensor của rank j trong nhóm.",
    },
    "ch2:reduce scatter:hint": {
        "en": "rank r returns chunk r of torch.tensor_split(flat, world): chunks can be uneven or empty.",
        "vi": "rank r trả về chunk r của torch.tensor_split(flat, world): các chunk có thể không đều hoặc "
        "rỗng.",
    },
    "ch2:all reduce:hint": {
        "en": "reduce-scatter leaves each rank one finished chunk; the all-gather phase must then pass every "
        "finished chunk around the ring.",
        "vi": "reduce-scatter để lại cho mỗi rank một chunk đã hoàn tất; sau đó pha all-gather phải chuyển "
        "mọi chunk đã hoàn tất đi hết một vòng ring.",
    },
    "ch2:remainder:hint": {
        "en": "here numel = {numel} is not divisible by the group size {n}: torch.tensor_split(flat, {n}) "
        "gives the first {extra} chunk(s) one element more ({sizes}); index chunks by their real offsets, "
        "not by rank * (numel // world).",
        "vi": "ở đây numel = {numel} không chia hết cho kích thước nhóm {n}: torch.tensor_split(flat, {n}) "
        "cho {extra} chunk đầu tiên thêm một phần tử ({sizes}); hãy xác định các chunk theo offset thực "
        "của chúng, không theo rank * (numel // world).",
    },
    "ch2:not a list": {
        "en": "rank {rank}: expected a list of {n} tensors, got {type}.",
        "vi": "rank {rank}: cần một list gồm {n} tensor, nhận được {type}.",
    },
    "ch2:all to all:hint": {
        "en": "out[j] is what rank j passed as inputs[rank]; its shape is only known to rank j, so send "
        "shapes first.",
        "vi": "out[j] là thứ mà rank j truyền vào inputs[rank]; chỉ rank j biết shape của nó, nên hãy gửi "
        "shape trước.",
    },
    # -- traffic ------------------------------------------------------------------------------------
    "ch2:tree:hint": {
        "en": "in a binomial tree the set of ranks holding the data doubles every round: round k pairs "
        "rank r with rank r + 2^k (relative to the root).",
        "vi": "trong cây nhị thức (binomial tree), tập các rank giữ dữ liệu tăng gấp đôi sau mỗi vòng: "
        "vòng k ghép rank r với rank r + 2^k (tính tương đối so với root).",
    },
    "ch2:ring:hint": {
        "en": "each of the world - 1 steps moves one chunk one hop to the right.",
        "vi": "mỗi bước trong world - 1 bước chuyển một chunk sang phải một chặng (hop).",
    },
    "ch2:ring shift bytes:hint": {
        "en": "each rank sends its whole tensor to its right neighbour.",
        "vi": "mỗi rank gửi toàn bộ tensor của nó cho hàng xóm bên phải.",
    },
    "ch2:broadcast bytes:hint": {
        "en": "every rank but src receives the whole tensor once.",
        "vi": "mọi rank trừ src nhận toàn bộ tensor đúng một lần.",
    },
    "ch2:reduce bytes:hint": {
        "en": "every rank but dst sends its partial result, the whole tensor, once.",
        "vi": "mọi rank trừ dst gửi kết quả cục bộ (partial result) của nó, tức toàn bộ tensor, đúng một "
        "lần.",
    },
    "ch2:reduce scatter at most:hint": {
        "en": "send one chunk per step, never the whole tensor.",
        "vi": "mỗi bước gửi một chunk, không bao giờ gửi cả tensor.",
    },
    "ch2:reduce scatter at least:hint": {
        "en": "every chunk but your own carries your share of the sum to its owner: pass each one on.",
        "vi": "mọi chunk trừ chunk của bạn đều mang phần đóng góp của bạn vào tổng tới rank sở hữu nó: "
        "hãy chuyển tiếp từng chunk.",
    },
    "ch2:all reduce at most:hint": {
        "en": "a ring all-reduce sends 2(N-1)/N of the tensor per rank: one chunk per step.",
        "vi": "ring all-reduce gửi 2(N-1)/N tensor trên mỗi rank: mỗi bước một chunk.",
    },
    "ch2:all reduce at least:hint": {
        "en": "both phases pass a chunk to the right in each of their N - 1 steps.",
        "vi": "cả hai pha đều chuyển một chunk sang phải ở mỗi bước trong N - 1 bước của chúng.",
    },
    "ch2:all to all at most:hint": {
        "en": "each block travels once, straight to its destination.",
        "vi": "mỗi khối chỉ đi một lần, thẳng tới đích của nó.",
    },
    "ch2:all to all at least:hint": {
        "en": "send every block straight to the rank it is for.",
        "vi": "hãy gửi mỗi khối thẳng tới rank cần nó.",
    },
    # -- the cost model -----------------------------------------------------------------------------
    "ch2:bytes sent": {"en": "bytes sent by the busiest rank", "vi": "số byte mà rank bận nhất gửi"},
    "ch2:bytes sent:hint": {
        "en": "ring: every rank sends N-1 chunks of nbytes/N per phase; tree: the root forwards the whole "
        "buffer once per round.",
        "vi": "ring: ở mỗi pha, mọi rank gửi N-1 chunk, mỗi chunk nbytes/N; tree: root chuyển tiếp toàn bộ "
        "buffer một lần mỗi vòng.",
    },
    "ch2:refuses": {
        "en": "{function}({collective!r}, ..., algorithm={algorithm!r}) returned {returned!r}; the model has "
        "no {algorithm!r} algorithm for {collective!r}, so it must raise ValueError.",
        "vi": "{function}({collective!r}, ..., algorithm={algorithm!r}) trả về {returned!r}; mô hình không "
        "có thuật toán {algorithm!r} cho {collective!r}, nên hàm phải raise ValueError.",
    },
    "ch2:refuses:hint": {
        "en": "ring: all_reduce, all_gather, reduce_scatter, all_to_all; tree: broadcast, reduce, "
        "all_reduce. Check the pair before computing anything.",
        "vi": "ring: all_reduce, all_gather, reduce_scatter, all_to_all; tree: broadcast, reduce, "
        "all_reduce. Hãy kiểm tra cặp (collective, thuật toán) trước khi tính bất cứ thứ gì.",
    },
    "ch2:modelled time": {"en": "modelled time (s)", "vi": "thời gian theo mô hình (s)"},
    "ch2:modelled time:hint": {
        "en": "count the messages on the critical path (alpha each) and the bytes on the busiest link (beta "
        "each).",
        "vi": "hãy đếm số thông điệp trên đường găng (critical path), mỗi thông điệp tốn alpha, và số byte "
        "trên đường truyền bận nhất, mỗi byte tốn beta.",
    },
    "ch2:bus bandwidth": {"en": "bus bandwidth (B/s)", "vi": "băng thông bus (B/s)"},
    "ch2:bus bandwidth:hint": {
        "en": "busbw = nbytes / seconds times 2(N-1)/N for all_reduce, (N-1)/N for all_gather, "
        "reduce_scatter and all_to_all, 1 for broadcast and reduce.",
        "vi": "busbw = nbytes / seconds nhân với 2(N-1)/N cho all_reduce, (N-1)/N cho all_gather, "
        "reduce_scatter và all_to_all, 1 cho broadcast và reduce.",
    },
    "ch2:measured bytes": {
        "en": "your model's bytes for {collective} vs. what the kit's reference {collective} sent",
        "vi": "số byte mô hình của bạn dự đoán cho {collective} so với số byte mà {collective} tham chiếu "
        "của bộ kit đã gửi",
    },
    "ch2:measured bytes:hint": {
        "en": "the model should predict exactly what the busiest rank of the ring and tree algorithms sends.",
        "vi": "mô hình cần dự đoán chính xác lượng byte mà rank bận nhất của thuật toán ring và tree gửi đi.",
    },
}
