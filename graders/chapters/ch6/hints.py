"""Chapter 6's graded hints, English and Vietnamese (see ``graders.words.hints``);
the recaps live in ``recaps``."""

from graders.chapters.ch6.recaps import RECAPS

__all__ = ["HINTS", "RECAPS"]

HINTS: dict[str, list[tuple[str, str]]] = {
    "copy_to_tp_region": [
        (
            "Read the conventions at the top of mappings.py and the README's 'f and g' paragraph: f and g "
            "are each other's conjugate, and each is a torch.autograd.Function with a forward and a "
            "backward.",
            "Đọc các quy ước ở đầu mappings.py và đoạn «f và g» trong README: f và g là liên hợp "
            "(conjugate) của nhau, và mỗi cái là một torch.autograd.Function có một forward và một "
            "backward.",
        ),
        (
            "Forward returns a new tensor equal to x (a copy: the caller's x stays as it was) and sends "
            "nothing. Backward sums the gradient over the group with one all-reduce of the whole gradient, "
            "made on a copy of the incoming gradient, and returns None for the group argument.",
            "Forward trả về một tensor mới bằng x (một bản sao: x của người gọi giữ nguyên) và không gửi "
            "gì. Backward cộng gradient trên cả nhóm bằng một all-reduce toàn bộ gradient, thực hiện trên "
            "một bản sao của gradient nhận được, và trả về None cho tham số group.",
        ),
    ],
    "reduce_from_tp_region": [
        (
            "g is f read backwards: reread copy_to_tp_region's docstring and the README's 'f and g' "
            "paragraph, then swap the two directions.",
            "g là f đọc theo chiều ngược lại: đọc lại docstring của copy_to_tp_region và đoạn «f và g» "
            "trong README, rồi đổi chỗ hai chiều cho nhau.",
        ),
        (
            "Forward all-reduces a clone of x over the group (x itself must come back unchanged: the "
            "graders compare it); backward hands the gradient back as it came, with no communication. The "
            "trace must show exactly one all-reduce of x's bytes in forward and nothing in backward.",
            "Forward all-reduce một bản clone của x trên cả nhóm (bản thân x phải giữ nguyên: bộ chấm so "
            "sánh nó); backward trả lại gradient đúng như khi nhận, không giao tiếp. Trace phải cho thấy "
            "đúng một all-reduce số byte của x trong forward và không có gì trong backward.",
        ),
    ],
    "scatter_to_tp_region": [
        (
            "Read the conventions in mappings.py: the TP region is split along the last dimension, into t "
            "equal chunks, and chunk r belongs to group rank r (dist.get_rank(group), not the global rank).",
            "Đọc các quy ước trong mappings.py: vùng TP được chia theo chiều cuối cùng thành t chunk bằng "
            "nhau, và chunk r thuộc về rank r trong nhóm (dist.get_rank(group), không phải rank toàn cục).",
        ),
        (
            "Forward keeps this rank's chunk along dim -1 as a new contiguous tensor, with no "
            "communication. Backward all-gathers the ranks' gradient chunks (all the same shape) and "
            "concatenates them along the last dimension in group-rank order: one all-gather of the local "
            "gradient's bytes.",
            "Forward giữ chunk của rank này theo chiều -1 dưới dạng một tensor contiguous mới, không giao "
            "tiếp. Backward all-gather các chunk gradient của các rank (cùng shape) và nối chúng theo chiều "
            "cuối cùng theo thứ tự rank trong nhóm: một all-gather số byte của gradient cục bộ.",
        ),
    ],
    "gather_from_tp_region": [
        (
            "It is scatter_to_tp_region turned around: read the conventions in mappings.py (last dimension, "
            "group-rank order) and get the scatter passing first.",
            "Đây là scatter_to_tp_region đảo chiều: đọc các quy ước trong mappings.py (chiều cuối cùng, thứ "
            "tự rank trong nhóm) và làm cho phép scatter đạt trước.",
        ),
        (
            "Forward all-gathers every rank's tensor and concatenates along the last dimension. Mind that "
            "all_gather_into_tensor lays the ranks' tensors one after another along dim 0: with a list of t "
            "empty tensors and dist.all_gather you can concatenate along -1 directly. Backward keeps chunk "
            "r of the gradient's last dimension, with no communication: the chunks are disjoint, nothing to "
            "sum.",
            "Forward all-gather tensor của mọi rank và nối chúng theo chiều cuối cùng. Lưu ý rằng "
            "all_gather_into_tensor đặt tensor của các rank nối tiếp nhau theo chiều 0: với một danh sách t "
            "tensor rỗng và dist.all_gather, bạn có thể nối trực tiếp theo chiều -1. Backward giữ chunk r "
            "theo chiều cuối cùng của gradient, không giao tiếp: các chunk rời nhau, không có gì để cộng.",
        ),
    ],
    "scatter_to_sequence_region": [
        (
            "The sequence region is split along the first dimension (Megatron's [s, b, h] layout); apart "
            "from the dimension it is scatter_to_tp_region. Read the conventions in mappings.py.",
            "Vùng sequence được chia theo chiều đầu tiên (bố cục [s, b, h] của Megatron); ngoài chiều chia "
            "ra thì nó giống hệt scatter_to_tp_region. Đọc các quy ước trong mappings.py.",
        ),
        (
            "Forward keeps chunk r along dim 0, with no communication. Backward all-gathers the gradient "
            "chunks along dim 0 in group-rank order (all_gather_into_tensor concatenates along exactly that "
            "dimension): one all-gather of the local gradient's bytes.",
            "Forward giữ chunk r theo chiều 0, không giao tiếp. Backward all-gather các chunk gradient theo "
            "chiều 0 theo thứ tự rank trong nhóm (all_gather_into_tensor nối đúng theo chiều đó): một "
            "all-gather số byte của gradient cục bộ.",
        ),
    ],
    "gather_from_sequence_region": [
        (
            "Read its docstring and ask why its backward is not a split, as gather_from_tp_region's is: "
            "what does every rank do with the whole sequence after the gather?",
            "Đọc docstring của nó và tự hỏi vì sao backward của nó không phải là một phép cắt như của "
            "gather_from_tp_region: sau khi gom, mỗi rank làm gì với toàn bộ sequence?",
        ),
        (
            "Forward all-gathers the sequence chunks along dim 0. Every rank then feeds the whole sequence "
            "into its own slice of the next layer, so the gradient each rank gets back for the gathered "
            "tensor is only its share: the gradient of chunk r is the sum over the group of every rank's "
            "gradient of chunk r.",
            "Forward all-gather các chunk sequence theo chiều 0. Sau đó mỗi rank đưa toàn bộ sequence vào "
            "lát riêng của nó ở lớp tiếp theo, nên gradient mà mỗi rank nhận về cho tensor đã gom chỉ là "
            "phần đóng góp của nó: gradient của chunk r là tổng trên cả nhóm các gradient của chunk r từ "
            "mọi rank.",
        ),
        (
            "So backward is one reduce-scatter (summing) of the whole incoming gradient along dim 0, "
            "keeping chunk r of the sum. An all-reduce followed by a slice gives the same numbers but sends "
            "twice the bytes, and the trace check fails it.",
            "Vì vậy backward là một reduce-scatter (phép cộng) toàn bộ gradient nhận được theo chiều 0, giữ "
            "chunk r của tổng. All-reduce rồi cắt lát cho cùng kết quả số nhưng gửi gấp đôi số byte, và "
            "phần kiểm tra trace sẽ đánh trượt nó.",
        ),
    ],
    "reduce_scatter_to_sequence_region": [
        (
            "It is the sequence-parallel g: read its docstring and the README's 'Sequence parallelism' "
            "paragraph, where a row-parallel layer's partial sums enter it.",
            "Đây là g của sequence parallelism: đọc docstring của nó và đoạn «Sequence parallelism» trong "
            "README, nơi các tổng riêng phần của lớp row-parallel đi vào nó.",
        ),
        (
            "Forward reduce-scatters x (summing) along dim 0 into a new tensor of shape [s/t, ...], leaving "
            "x as it was: one reduce-scatter of x's whole bytes. Backward is its conjugate, one all-gather "
            "of the gradient chunks along dim 0.",
            "Forward reduce-scatter x (phép cộng) theo chiều 0 vào một tensor mới có shape [s/t, ...], giữ "
            "nguyên x: một reduce-scatter toàn bộ số byte của x. Backward là phép liên hợp của nó, một "
            "all-gather các chunk gradient theo chiều 0.",
        ),
    ],
    "column_parallel_linear": [
        (
            "Read the docstrings of layers.py and ColumnParallelLinear and the README's 'Column and row "
            "parallel' paragraph; the stub gives you _shard(master, dim, group), which makes this rank's "
            "shard of a full tensor as a parameter of its own.",
            "Đọc docstring của layers.py và của ColumnParallelLinear cùng đoạn «Column and row parallel» "
            "trong README; stub cho sẵn _shard(master, dim, group), hàm tạo shard của rank này từ một "
            "tensor đầy đủ dưới dạng một tham số riêng.",
        ),
        (
            "Construction: self.weight holds rows r·out/t … (r+1)·out/t of master_weight (dim 0) and "
            "self.bias the same slice of master_bias, each an nn.Parameter in the master's dtype; with "
            "bias=False self.bias is None.",
            "Khởi tạo: self.weight giữ các hàng r·out/t … (r+1)·out/t của master_weight (chiều 0) và "
            "self.bias giữ cùng lát đó của master_bias, mỗi cái là một nn.Parameter cùng dtype với master; "
            "với bias=False thì self.bias là None.",
        ),
        (
            "Forward: enter the region with f (copy_to_tp_region; under sequence_parallel, "
            "gather_from_sequence_region), multiply by the local weight and add the local bias (autograd "
            "may differentiate this one), and gather the features with gather_from_tp_region only when "
            "gather_output is set. The mappings put every collective in its place: the layer calls none "
            "itself.",
            "Forward: vào vùng TP bằng f (copy_to_tp_region; khi sequence_parallel thì "
            "gather_from_sequence_region), nhân với trọng số cục bộ và cộng bias cục bộ (ở lớp này autograd "
            "được phép lấy đạo hàm), và chỉ gom các feature bằng gather_from_tp_region khi gather_output "
            "được bật. Các mapping đặt mọi collective vào đúng chỗ: bản thân lớp không gọi collective nào.",
        ),
    ],
    "vocab_parallel_embedding": [
        (
            "Read VocabParallelEmbedding's docstring and the README's 'Vocabulary parallel' paragraph: the "
            "table is split by rows, and num_embeddings is divisible by t.",
            "Đọc docstring của VocabParallelEmbedding và đoạn «Vocabulary parallel» trong README: bảng "
            "embedding được chia theo hàng, và num_embeddings chia hết cho t.",
        ),
        (
            "Rank r holds the ids from start = r·V/t up to start + V/t. An id outside that range must give "
            "a zero row: shift the ids by start, send the outside ones to any valid local row so the lookup "
            "does not fail, look up, then zero the rows that belong to outside ids with a mask.",
            "Rank r giữ các id từ start = r·V/t đến start + V/t. Một id nằm ngoài khoảng đó phải cho ra một "
            "hàng 0: dịch các id đi start, đưa các id nằm ngoài về một hàng cục bộ hợp lệ bất kỳ để phép "
            "tra không lỗi, tra bảng, rồi dùng một mask để đặt về 0 các hàng của id nằm ngoài.",
        ),
        (
            "Sum the partial embeddings over the group with reduce_from_tp_region: exactly one all-reduce "
            "of the output's bytes in forward and none in backward. The zeroed rows get no gradient, and "
            "the lookup's own backward puts each rank's gradient into its own rows.",
            "Cộng các embedding riêng phần trên cả nhóm bằng reduce_from_tp_region: đúng một all-reduce số "
            "byte của đầu ra trong forward và không có gì trong backward. Các hàng đã đặt về 0 không nhận "
            "gradient, và chính backward của phép tra bảng đưa gradient của mỗi rank vào các hàng của nó.",
        ),
    ],
    "vocab_parallel_cross_entropy": [
        (
            "Write the cross-entropy as the README does, loss = log Σ_j exp(z_j − m) − (z_target − m) with "
            "m the maximum over the whole vocabulary, and read the function's docstring: nothing gathered, "
            "no tensor larger than the local logits at 8 bytes per element, logits left unchanged.",
            "Viết cross-entropy như trong README, loss = log Σ_j exp(z_j − m) − (z_target − m) với m là giá "
            "trị lớn nhất trên cả vocabulary, và đọc docstring của hàm: không gom gì, không tensor nào lớn "
            "hơn logits cục bộ tính 8 byte mỗi phần tử, logits giữ nguyên.",
        ),
        (
            "Each term is a reduction over the vocabulary, so each becomes a local reduction plus an "
            "all-reduce: the maximum (ReduceOp.MAX), the sum of exponentials (SUM) and the target's logit, "
            "which only the rank holding that id knows (the others contribute 0, SUM). That is a few "
            "numbers per token; the two sums may share one all-reduce. Any all-gather, gather, all-to-all "
            "or point-to-point message fails the traffic part.",
            "Mỗi thành phần là một phép reduce trên vocabulary, nên mỗi cái trở thành một phép reduce cục "
            "bộ cộng một all-reduce: giá trị lớn nhất (ReduceOp.MAX), tổng các exp (SUM) và logit của "
            "target, thứ chỉ rank giữ id đó mới biết (các rank khác góp 0, SUM). Chỉ vài con số cho mỗi "
            "token; hai tổng có thể dùng chung một all-reduce. Bất kỳ all-gather, gather, all-to-all hay "
            "thông điệp point-to-point nào cũng làm trượt phần traffic.",
        ),
        (
            "Write it as a torch.autograd.Function: forward saves the local softmax, exp(z − m) / Σ, and "
            "where the target falls in this rank's slice; backward returns (softmax − one_hot of the target "
            "on this slice) × the loss's gradient on a new last axis, and None for the other inputs, with "
            "no communication. Work in place only on tensors you made, and never build a one-hot over the "
            "full vocabulary.",
            "Viết nó thành một torch.autograd.Function: forward lưu softmax cục bộ, exp(z − m) / Σ, và vị "
            "trí của target trong lát của rank này; backward trả về (softmax − one_hot của target trên lát "
            "này) × gradient của loss thêm một trục cuối, và None cho các đầu vào khác, không giao tiếp. "
            "Chỉ sửa tại chỗ những tensor do bạn tạo ra, và đừng bao giờ dựng one-hot trên cả vocabulary.",
        ),
    ],
    "row_parallel_linear": [
        (
            "Read RowParallelLinear's docstring: the matmul, the reduction and the bias are one "
            "torch.autograd.Function that you write, with its backward by hand; torch.autograd.grad and "
            "Tensor.backward are banned in this exercise.",
            "Đọc docstring của RowParallelLinear: phép nhân ma trận, phép reduce và bias nằm trong một "
            "torch.autograd.Function do bạn viết, với backward viết tay; torch.autograd.grad và "
            "Tensor.backward bị cấm trong bài tập này.",
        ),
        (
            "Construction: self.weight holds columns r·in/t … (r+1)·in/t of master_weight (dim 1), "
            "self.bias the whole master_bias (or None). Forward: without input_is_parallel scatter the "
            "input first (scatter_to_tp_region), then call your Function with the input, self.weight and "
            "self.bias themselves, not a transposed view or a slice: the graders check that the node "
            "feeding each parameter's gradient is your Function's.",
            "Khởi tạo: self.weight giữ các cột r·in/t … (r+1)·in/t của master_weight (chiều 1), self.bias "
            "giữ toàn bộ master_bias (hoặc None). Forward: nếu không có input_is_parallel thì scatter đầu "
            "vào trước (scatter_to_tp_region), rồi gọi Function của bạn với đầu vào, chính self.weight và "
            "self.bias, không phải một view chuyển vị hay một lát cắt: bộ chấm kiểm tra rằng nút đưa "
            "gradient vào mỗi tham số là nút của Function của bạn.",
        ),
        (
            "The Function's forward: the partial product x · W_rᵀ, all-reduced (under sequence_parallel "
            "reduce-scattered along dim 0), then the bias added once, after the reduction. Its backward: "
            "under sequence_parallel first all-gather the gradient along dim 0; then grad_input = grad · "
            "W_r, grad_weight = gradᵀ · x over the flattened leading dimensions, grad_bias = grad summed "
            "over every dimension but the last. Leave no matmul to autograd anywhere in the layer.",
            "Forward của Function: tích riêng phần x · W_rᵀ, được all-reduce (khi sequence_parallel thì "
            "reduce-scatter theo chiều 0), rồi cộng bias một lần, sau phép reduce. Backward của nó: khi "
            "sequence_parallel thì trước hết all-gather gradient theo chiều 0; rồi grad_input = grad · W_r, "
            "grad_weight = gradᵀ · x trên các chiều đầu đã làm phẳng, grad_bias = tổng của grad trên mọi "
            "chiều trừ chiều cuối. Đừng để lại phép nhân ma trận nào cho autograd ở bất cứ đâu trong lớp.",
        ),
    ],
    "parallel_mlp": [
        (
            "Read blocks.py's docstring and the README's 'Blocks' paragraph; the single-device MLPBlock in "
            "graders/training/gpt.py is the block you must equal, and state is its state_dict().",
            "Đọc docstring của blocks.py và đoạn «Blocks» trong README; MLPBlock chạy trên một thiết bị "
            "trong graders/training/gpt.py là block bạn phải khớp, và state là state_dict() của nó.",
        ),
        (
            "Build from state: self.ln a LayerNorm with state's ln.weight and ln.bias (the stub's "
            "_layer_norm helper), self.fc1 a ColumnParallelLinear from hidden to ffn features without "
            "gather_output, self.fc2 a RowParallelLinear back to hidden with input_is_parallel, both from "
            "the full state tensors, passing group and sequence_parallel on. The names matter: the graders "
            "read ln.*, fc1.* and fc2.* from named_parameters().",
            "Dựng từ state: self.ln là một LayerNorm với ln.weight và ln.bias của state (hàm phụ "
            "_layer_norm có sẵn trong stub), self.fc1 là một ColumnParallelLinear từ hidden sang ffn "
            "feature không có gather_output, self.fc2 là một RowParallelLinear trở về hidden với "
            "input_is_parallel, cả hai từ các tensor đầy đủ trong state, truyền tiếp group và "
            "sequence_parallel. Tên là quan trọng: bộ chấm đọc ln.*, fc1.* và fc2.* từ named_parameters().",
        ),
        (
            "Forward is the single-device formula with dropout under self.training, nothing more: GELU acts "
            "feature by feature on fc1's local features, so the only communication is f before fc1 and g "
            "after fc2 (under sequence parallelism their all-gather and reduce-scatter). Do not all-reduce "
            "the LayerNorm or fc2.bias gradients yourself: under sequence parallelism each rank's part is "
            "what the graders expect.",
            "Forward là đúng công thức của block một thiết bị, với dropout theo self.training, không hơn: "
            "GELU tác động từng feature trên các feature cục bộ của fc1, nên giao tiếp duy nhất là f trước "
            "fc1 và g sau fc2 (khi dùng sequence parallelism là all-gather và reduce-scatter tương ứng). "
            "Đừng tự all-reduce gradient của LayerNorm hay fc2.bias: khi dùng sequence parallelism, phần "
            "riêng của mỗi rank chính là thứ bộ chấm chờ đợi.",
        ),
    ],
    "parallel_attention": [
        (
            "Read the ParallelAttention contract in blocks.py and AttentionBlock in graders/training/gpt.py: "
            "head i uses features i·d … (i+1)·d of q, k and v, with d = hidden / heads, and the attention is "
            "causal.",
            "Đọc hợp đồng của ParallelAttention trong blocks.py và AttentionBlock trong "
            "graders/training/gpt.py: head i dùng các feature i·d … (i+1)·d của q, k và v, với d = hidden "
            "/ heads, và attention là causal.",
        ),
        (
            "Rank r owns heads r·heads/t … (r+1)·heads/t, that is rows r·h/t … (r+1)·h/t of each of q, k "
            "and v. Build one master weight (and bias) for a ColumnParallelLinear named qkv with 3·hidden "
            "outputs, ordered so that its chunk r is [q_r; k_r; v_r] (not [q; k; v], whose chunk r is not "
            "rank r's heads); proj is a RowParallelLinear with input_is_parallel.",
            "Rank r sở hữu các head r·heads/t … (r+1)·heads/t, tức là các hàng r·h/t … (r+1)·h/t của mỗi q, "
            "k và v. Dựng một master weight (và bias) cho một ColumnParallelLinear tên qkv có 3·hidden đầu "
            "ra, sắp xếp sao cho chunk r của nó là [q_r; k_r; v_r] (không phải [q; k; v], vì chunk r của nó "
            "không phải các head của rank r); proj là một RowParallelLinear với input_is_parallel.",
        ),
        (
            "Forward on [s, b, h]: qkv of the LayerNorm's output has 3 · local heads · d features; split it "
            "into q, k and v, reshape each to [b, local heads, s, d], apply causal softmax(q kᵀ / √d) v, go "
            "back to [s, b, local heads · d], then the residual with dropout around proj. Under sequence "
            "parallelism qkv all-gathers the sequence first, so attention always sees the whole sequence, "
            "and the block still communicates once each way.",
            "Forward trên [s, b, h]: qkv của đầu ra LayerNorm có 3 · số head cục bộ · d feature; tách nó "
            "thành q, k và v, reshape mỗi cái thành [b, số head cục bộ, s, d], tính causal softmax(q kᵀ / "
            "√d) v, đưa về [s, b, số head cục bộ · d], rồi residual với dropout quanh proj. Khi dùng "
            "sequence parallelism, qkv all-gather sequence trước, nên attention luôn thấy toàn bộ sequence, "
            "và block vẫn chỉ giao tiếp một lần mỗi chiều.",
        ),
    ],
}
