"""Chapter 6's graded hints and theory recaps, English and Vietnamese (see ``graders.hints``)."""

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
            "graders/models.py is the block you must equal, and state is its state_dict().",
            "Đọc docstring của blocks.py và đoạn «Blocks» trong README; MLPBlock chạy trên một thiết bị "
            "trong graders/models.py là block bạn phải khớp, và state là state_dict() của nó.",
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
            "Read the ParallelAttention contract in blocks.py and AttentionBlock in graders/models.py: head "
            "i uses features i·d … (i+1)·d of q, k and v, with d = hidden / heads, and the attention is "
            "causal.",
            "Đọc hợp đồng của ParallelAttention trong blocks.py và AttentionBlock trong graders/models.py: "
            "head i dùng các feature i·d … (i+1)·d của q, k và v, với d = hidden / heads, và attention là "
            "causal.",
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

RECAPS: dict[str, tuple[str, str]] = {
    "copy_to_tp_region": (
        "f enters the tensor-parallel region: every rank holds the whole x, and each rank's slice of the "
        "model uses all of it.\n"
        "Forward is the identity (a copy, no communication); backward all-reduces the gradient, since each "
        "rank produced only its share of x's gradient.\n"
        "It is g's conjugate: identity one way, all-reduce the other.\n"
        "Graded: output, input unchanged and input gradient on 1-4 ranks and subgroups; the trace shows "
        "nothing in forward and exactly one all-reduce of the gradient's bytes, on the group, in backward.\n"
        "Usual mistakes: all-reducing in forward, a backward that returns the gradient unsummed, the "
        "default group instead of group, no None returned for the group argument.",
        "f đi vào vùng tensor parallel: mọi rank giữ toàn bộ x, và lát mô hình của mỗi rank dùng tất cả x.\n"
        "Forward là identity (một bản sao, không giao tiếp); backward all-reduce gradient, vì mỗi rank chỉ "
        "tạo ra phần đóng góp của nó vào gradient của x.\n"
        "Nó là liên hợp (conjugate) của g: một chiều là identity, chiều kia là all-reduce.\n"
        "Bộ chấm: đầu ra, đầu vào giữ nguyên và gradient của đầu vào trên 1-4 rank và nhóm con; trace không "
        "có gì trong forward và đúng một all-reduce số byte của gradient, trên nhóm, trong backward.\n"
        "Lỗi thường gặp: all-reduce trong forward, backward trả về gradient chưa được cộng, dùng nhóm mặc "
        "định thay cho group, không trả về None cho tham số group.",
    ),
    "reduce_from_tp_region": (
        "g leaves the region: each rank holds a partial sum (a row-parallel product) and the value is their "
        "sum.\n"
        "Forward all-reduces once over the group; backward is the identity: after the all-reduce every rank "
        "holds the same value, so the gradient reaching each rank is already the whole one.\n"
        "Together f and g put one all-reduce in forward and one in backward of a tensor-parallel block.\n"
        "Graded: output, input unchanged, input gradient; exactly one all-reduce of x's bytes in forward, "
        "nothing in backward.\n"
        "Usual mistakes: all-reducing x in place (the caller's input changes), all-reducing the gradient "
        "again in backward (t times too large).",
        "g rời khỏi vùng TP: mỗi rank giữ một tổng riêng phần (tích của lớp row-parallel) và giá trị thật "
        "là tổng của chúng.\n"
        "Forward all-reduce một lần trên cả nhóm; backward là identity: sau all-reduce mọi rank giữ cùng "
        "một giá trị, nên gradient đến mỗi rank đã là gradient đầy đủ.\n"
        "f và g cùng nhau đặt một all-reduce trong forward và một trong backward của một block tensor "
        "parallel.\n"
        "Bộ chấm: đầu ra, đầu vào giữ nguyên, gradient của đầu vào; đúng một all-reduce số byte của x trong "
        "forward, không có gì trong backward.\n"
        "Lỗi thường gặp: all-reduce x tại chỗ (đầu vào của người gọi bị đổi), all-reduce gradient thêm một "
        "lần trong backward (lớn gấp t lần).",
    ),
    "scatter_to_tp_region": (
        "Splits the last (feature) dimension into t equal chunks: group rank r keeps chunk r.\n"
        "Forward communicates nothing; backward rebuilds the whole input's gradient by all-gathering the "
        "ranks' gradient chunks along the last dimension, in group-rank order.\n"
        "A row-parallel layer whose input is not yet split uses it.\n"
        "Graded: values both ways; the trace: nothing in forward, one all-gather of the local gradient's "
        "bytes in backward.\n"
        "Usual mistakes: the global rank instead of the group rank, chunks along dim 0, "
        "all_gather_into_tensor's output (laid along dim 0) read as if concatenated along the last "
        "dimension.",
        "Chia chiều cuối cùng (chiều feature) thành t chunk bằng nhau: rank r trong nhóm giữ chunk r.\n"
        "Forward không giao tiếp; backward dựng lại gradient của toàn bộ đầu vào bằng cách all-gather các "
        "chunk gradient của các rank theo chiều cuối cùng, theo thứ tự rank trong nhóm.\n"
        "Lớp row-parallel có đầu vào chưa được chia sẽ dùng nó.\n"
        "Bộ chấm: giá trị cả hai chiều; trace: không có gì trong forward, một all-gather số byte của "
        "gradient cục bộ trong backward.\n"
        "Lỗi thường gặp: dùng rank toàn cục thay cho rank trong nhóm, chia theo chiều 0, đọc đầu ra của "
        "all_gather_into_tensor (xếp theo chiều 0) như thể nó được nối theo chiều cuối cùng.",
    ),
    "gather_from_tp_region": (
        "The scatter's mirror: forward all-gathers every rank's tensor and concatenates along the last "
        "dimension in group-rank order; backward keeps chunk r of the gradient, without communication.\n"
        "A column-parallel layer with gather_output uses it to hand the next layer the whole features.\n"
        "Graded: values both ways; the trace: one all-gather of the local tensor's bytes in forward, "
        "nothing in backward.\n"
        "A group of one rank is the identity both ways.\n"
        "Usual mistakes: concatenating along dim 0, summing in backward (the chunks are disjoint, no rank's "
        "gradient is a partial sum), a zero-padded all-reduce instead of an all-gather (t times the bytes).",
        "Ảnh gương của phép scatter: forward all-gather tensor của mọi rank và nối theo chiều cuối cùng "
        "theo thứ tự rank trong nhóm; backward giữ chunk r của gradient, không giao tiếp.\n"
        "Lớp column-parallel với gather_output dùng nó để trao cho lớp sau toàn bộ các feature.\n"
        "Bộ chấm: giá trị cả hai chiều; trace: một all-gather số byte của tensor cục bộ trong forward, "
        "không có gì trong backward.\n"
        "Nhóm chỉ có một rank thì là identity cả hai chiều.\n"
        "Lỗi thường gặp: nối theo chiều 0, cộng trong backward (các chunk rời nhau, gradient của không rank "
        "nào là tổng riêng phần), all-reduce một tensor đệm 0 thay cho all-gather (gấp t lần số byte).",
    ),
    "scatter_to_sequence_region": (
        "The sequence region splits the first dimension of Megatron's [s, b, h] activations: group rank r "
        "keeps rows r·s/t … (r+1)·s/t of the sequence.\n"
        "Forward keeps chunk r without communication; backward all-gathers the gradient chunks along dim 0.\n"
        "A sequence-parallel model starts with it: LayerNorm and dropout then run on 1/t of the tokens.\n"
        "Graded: values both ways; the trace: nothing in forward, one all-gather of the local gradient's "
        "bytes in backward.\n"
        "Usual mistakes: splitting the last dimension, the gradient gathered out of group-rank order.",
        "Vùng sequence chia chiều đầu tiên của activation [s, b, h] kiểu Megatron: rank r trong nhóm giữ "
        "các hàng r·s/t … (r+1)·s/t của sequence.\n"
        "Forward giữ chunk r, không giao tiếp; backward all-gather các chunk gradient theo chiều 0.\n"
        "Một mô hình sequence parallel bắt đầu bằng nó: sau đó LayerNorm và dropout chỉ chạy trên 1/t số "
        "token.\n"
        "Bộ chấm: giá trị cả hai chiều; trace: không có gì trong forward, một all-gather số byte của "
        "gradient cục bộ trong backward.\n"
        "Lỗi thường gặp: chia theo chiều cuối cùng, gom gradient sai thứ tự rank trong nhóm.",
    ),
    "gather_from_sequence_region": (
        "Leaves the sequence region for the TP region: forward all-gathers the sequence chunks along dim 0.\n"
        "Every rank then feeds the whole sequence into its own slice of the next layer, so the gradient of "
        "chunk r is the sum over the group of every rank's gradient of chunk r.\n"
        "Backward is therefore a reduce-scatter along dim 0: not a split (gather_from_tp_region's "
        "backward), not an all-reduce.\n"
        "It replaces f in a sequence-parallel column layer; an all-gather plus a reduce-scatter carry the "
        "bytes of one all-reduce.\n"
        "Graded: values both ways; one all-gather of the chunk's bytes in forward, one reduce-scatter of "
        "the whole gradient's bytes in backward.\n"
        "Usual mistakes: a split in backward (the other ranks' contributions are lost), an all-reduce then "
        "a slice (twice the traffic).",
        "Rời vùng sequence để vào vùng TP: forward all-gather các chunk sequence theo chiều 0.\n"
        "Sau đó mỗi rank đưa toàn bộ sequence vào lát riêng của nó ở lớp tiếp theo, nên gradient của chunk "
        "r là tổng trên cả nhóm các gradient của chunk r từ mọi rank.\n"
        "Vì thế backward là một reduce-scatter theo chiều 0: không phải phép cắt (như backward của "
        "gather_from_tp_region), cũng không phải all-reduce.\n"
        "Nó thay cho f trong lớp column sequence parallel; một all-gather cộng một reduce-scatter mang số "
        "byte của một all-reduce.\n"
        "Bộ chấm: giá trị cả hai chiều; một all-gather số byte của chunk trong forward, một reduce-scatter "
        "toàn bộ số byte của gradient trong backward.\n"
        "Lỗi thường gặp: cắt lát trong backward (mất phần đóng góp của các rank khác), all-reduce rồi cắt "
        "lát (gấp đôi lưu lượng).",
    ),
    "reduce_scatter_to_sequence_region": (
        "The sequence-parallel g: each rank holds a partial sum of the whole sequence (a row layer's "
        "product) and keeps only chunk r of the total along dim 0.\n"
        "Forward is one reduce-scatter; backward its conjugate, one all-gather of the gradient chunks along "
        "dim 0.\n"
        "With gather_from_sequence_region it turns a block's two all-reduces into all-gathers and "
        "reduce-scatters of the same bytes, and leaves the activations between blocks split by t.\n"
        "Graded: values both ways, input unchanged; one reduce-scatter of x's bytes in forward, one "
        "all-gather of the chunk's bytes in backward.\n"
        "Usual mistakes: an all-reduce followed by a slice (the trace shows it), the wrong chunk kept, x "
        "modified in place.",
        "g của sequence parallelism: mỗi rank giữ một tổng riêng phần của toàn bộ sequence (tích của lớp "
        "row) và chỉ giữ chunk r của tổng theo chiều 0.\n"
        "Forward là một reduce-scatter; backward là liên hợp của nó, một all-gather các chunk gradient theo "
        "chiều 0.\n"
        "Cùng với gather_from_sequence_region, nó biến hai all-reduce của một block thành các all-gather và "
        "reduce-scatter có cùng số byte, và để activation giữa các block được chia cho t.\n"
        "Bộ chấm: giá trị cả hai chiều, đầu vào giữ nguyên; một reduce-scatter số byte của x trong forward, "
        "một all-gather số byte của chunk trong backward.\n"
        "Lỗi thường gặp: all-reduce rồi cắt lát (trace sẽ cho thấy), giữ sai chunk, sửa x tại chỗ.",
    ),
    "column_parallel_linear": (
        "y = x Wᵀ + b with W [out, in] split by rows: rank r computes output features r·out/t … (r+1)·out/t "
        "from the whole input.\n"
        "Entering: f (copy_to_tp_region), so that backward sums the ranks' shares of x's gradient; under "
        "sequence parallelism x is a sequence chunk and gather_from_sequence_region all-gathers it.\n"
        "Leaving: with gather_output the features are all-gathered; without, the output stays split for a "
        "row-parallel layer.\n"
        "Graded: weight shard, output, input gradient, weight and bias gradient shards against nn.Linear on "
        "the full weight; the trace: in forward only the gathers, in backward exactly one all-reduce (a "
        "reduce-scatter under sequence parallelism) of the whole input gradient's bytes; 'dtensor': the "
        "same local values as torch's ColwiseParallel.\n"
        "Usual mistakes: splitting the columns, a bias when bias=False, no f (the input gradient stays a "
        "partial sum), an all-reduce of the output.",
        "y = x Wᵀ + b với W [out, in] chia theo hàng: rank r tính các feature đầu ra r·out/t … (r+1)·out/t "
        "từ toàn bộ đầu vào.\n"
        "Đi vào: f (copy_to_tp_region), để backward cộng phần đóng góp của các rank vào gradient của x; khi "
        "dùng sequence parallelism, x là một chunk sequence và gather_from_sequence_region all-gather nó.\n"
        "Đi ra: với gather_output các feature được all-gather; không có nó, đầu ra giữ nguyên dạng chia cho "
        "một lớp row-parallel.\n"
        "Bộ chấm: shard trọng số, đầu ra, gradient của đầu vào, các shard gradient của trọng số và bias so "
        "với nn.Linear trên trọng số đầy đủ; trace: trong forward chỉ có các phép gom, trong backward đúng "
        "một all-reduce (reduce-scatter khi dùng sequence parallelism) toàn bộ số byte gradient của đầu "
        "vào; phần 'dtensor': cùng giá trị cục bộ với ColwiseParallel của torch.\n"
        "Lỗi thường gặp: chia theo cột, có bias khi bias=False, thiếu f (gradient của đầu vào vẫn là tổng "
        "riêng phần), all-reduce đầu ra.",
    ),
    "vocab_parallel_embedding": (
        "The embedding table [V, h] split by rows: rank r holds ids r·V/t … (r+1)·V/t.\n"
        "Each rank looks up the ids it holds, every other id gives a zero row, and summing the partial "
        "embeddings (reduce_from_tp_region) gives every rank the whole lookup.\n"
        "Backward needs no communication: the output gradient is already whole on every rank, and the "
        "lookup's backward puts it into the rank's own rows.\n"
        "Graded: output and weight gradient shard against F.embedding on the full table; the trace: exactly "
        "one all-reduce of the output's bytes in forward, nothing in backward.\n"
        "Usual mistakes: an id outside the shard looked up (an index error, or another row's values), ids "
        "masked but not the rows they looked up, ids not shifted by the shard's start.",
        "Bảng embedding [V, h] chia theo hàng: rank r giữ các id r·V/t … (r+1)·V/t.\n"
        "Mỗi rank tra các id nó giữ, id khác cho ra hàng 0, và cộng các embedding riêng phần "
        "(reduce_from_tp_region) cho mọi rank kết quả tra đầy đủ.\n"
        "Backward không cần giao tiếp: gradient của đầu ra đã đầy đủ trên mọi rank, và backward của phép "
        "tra bảng đưa nó vào các hàng của chính rank đó.\n"
        "Bộ chấm: đầu ra và shard gradient của trọng số so với F.embedding trên bảng đầy đủ; trace: đúng "
        "một all-reduce số byte của đầu ra trong forward, không có gì trong backward.\n"
        "Lỗi thường gặp: tra một id nằm ngoài shard (lỗi chỉ số, hoặc lấy giá trị của hàng khác), che id "
        "nhưng không che các hàng đã tra, không dịch id theo điểm bắt đầu của shard.",
    ),
    "vocab_parallel_cross_entropy": (
        "The loss of every token from logits split over the vocabulary: loss = log Σ_j exp(z_j − m) − "
        "(z_target − m), m the maximum over the whole vocabulary.\n"
        "Each rank reduces over its own slice and one all-reduce per quantity finishes the job: MAX for m, "
        "SUM for Σ exp and for the target's logit (0 on the ranks that do not hold it).\n"
        "The gradient on rank r's slice is (softmax − one_hot(target)) × the loss's gradient, from the "
        "slice alone: no communication in backward.\n"
        "Graded: the loss on every rank and the logits' gradient slice against "
        "F.cross_entropy(reduction='none'), logits unchanged.\n"
        "Traffic: at most 4 numbers per token at 8 bytes, at least 2 per token at the logits' size; no "
        "all-gather, gather, all-to-all or point-to-point.\n"
        "Memory: no storage larger than the local logits at 8 bytes per element, on 3-4 ranks, so the full "
        "logits never fit.\n"
        "Usual mistakes: each rank's own maximum (the ranks' sums no longer add up), gathering the logits, "
        "exp of unshifted logits (overflow), logits modified in place, a full-vocabulary one-hot.",
        "Loss của mọi token từ logits được chia theo vocabulary: loss = log Σ_j exp(z_j − m) − (z_target − "
        "m), m là giá trị lớn nhất trên cả vocabulary.\n"
        "Mỗi rank reduce trên lát của mình và mỗi đại lượng một all-reduce là xong: MAX cho m, SUM cho Σ "
        "exp và cho logit của target (bằng 0 trên các rank không giữ nó).\n"
        "Gradient trên lát của rank r là (softmax − one_hot(target)) × gradient của loss, chỉ từ lát đó: "
        "backward không giao tiếp.\n"
        "Bộ chấm: loss trên mọi rank và lát gradient của logits so với F.cross_entropy(reduction='none'), "
        "logits giữ nguyên.\n"
        "Lưu lượng: tối đa 4 con số mỗi token tính 8 byte, tối thiểu 2 con số mỗi token theo kích thước "
        "phần tử của logits; không all-gather, gather, all-to-all hay point-to-point.\n"
        "Bộ nhớ: không storage nào lớn hơn logits cục bộ tính 8 byte mỗi phần tử, trên 3-4 rank, nên logits "
        "đầy đủ không bao giờ lọt.\n"
        "Lỗi thường gặp: mỗi rank dùng giá trị lớn nhất riêng (tổng của các rank không còn cộng được), gom "
        "logits, exp của logits chưa dịch (tràn số), sửa logits tại chỗ, one-hot trên cả vocabulary.",
    ),
    "row_parallel_linear": (
        "y = x Wᵀ + b with W split by columns: rank r multiplies its in/t input features by its columns, "
        "and the sum over the group of the partial products is x Wᵀ.\n"
        "Forward: scatter the input unless input_is_parallel; one all-reduce of the partial products (a "
        "reduce-scatter along dim 0 under sequence parallelism, which needs input_is_parallel); the whole "
        "bias added once, after the sum.\n"
        "Backward by hand in your torch.autograd.Function: grad_input = grad · W_r, grad_weight = gradᵀ · "
        "x, grad_bias = grad summed over the leading dimensions; under sequence parallelism all-gather the "
        "gradient first.\n"
        "Graded 'backward': no autograd matmul node in the graph (MmBackward0, AddmmBackward0, "
        "LinearBackward0, ...), and the weight's and the bias's gradients come straight from your Function.\n"
        "Also graded: values as for the column layer; one all-reduce or reduce-scatter in forward, in "
        "backward only the all-gathers the input needs; the same local values as torch's RowwiseParallel.\n"
        "Under sequence parallelism each rank's bias.grad is its part: the graders check that the sum over "
        "the group is the full gradient.\n"
        "Usual mistakes: the bias added before the reduction (t times the bias), the bias outside the "
        "Function, a transposed weight passed in, a matmul outside the Function.",
        "y = x Wᵀ + b với W chia theo cột: rank r nhân in/t feature đầu vào của nó với các cột của nó, và "
        "tổng trên cả nhóm các tích riêng phần là x Wᵀ.\n"
        "Forward: scatter đầu vào trừ khi input_is_parallel; một all-reduce các tích riêng phần (khi dùng "
        "sequence parallelism là reduce-scatter theo chiều 0, đòi hỏi input_is_parallel); toàn bộ bias được "
        "cộng một lần, sau phép cộng.\n"
        "Backward viết tay trong torch.autograd.Function của bạn: grad_input = grad · W_r, grad_weight = "
        "gradᵀ · x, grad_bias = tổng của grad trên các chiều đầu; khi dùng sequence parallelism thì "
        "all-gather gradient trước.\n"
        "Phần 'backward': đồ thị không có nút matmul nào của autograd (MmBackward0, AddmmBackward0, "
        "LinearBackward0, ...), và gradient của trọng số và của bias đến thẳng từ Function của bạn.\n"
        "Cũng được chấm: giá trị như lớp column; một all-reduce hoặc reduce-scatter trong forward, trong "
        "backward chỉ các all-gather mà đầu vào cần; cùng giá trị cục bộ với RowwiseParallel của torch.\n"
        "Khi dùng sequence parallelism, bias.grad của mỗi rank là phần riêng của nó: bộ chấm kiểm tra rằng "
        "tổng trên cả nhóm bằng gradient đầy đủ.\n"
        "Lỗi thường gặp: cộng bias trước phép reduce (gấp t lần bias), bias nằm ngoài Function, truyền vào "
        "trọng số đã chuyển vị, phép nhân ma trận nằm ngoài Function.",
    ),
    "parallel_mlp": (
        "Megatron's MLP: fc1 column parallel (ffn/t features per rank), GELU on the local features, fc2 row "
        "parallel; nothing is communicated in between.\n"
        "Without sequence parallelism: one all-reduce in forward (g after fc2) and one in backward (f "
        "before fc1), each of the [s, b, h] activation's bytes.\n"
        "With sequence parallelism x and the output are [s/t, b, h] chunks; LayerNorm, dropout and the "
        "residual run on the chunk; an all-gather before fc1 and a reduce-scatter after fc2 replace the "
        "all-reduce, with their conjugates in backward.\n"
        "Memory: with sequence parallelism a rank saves for backward at least (1 − 1/t) · 2 activations "
        "fewer bytes (LayerNorm's input, dropout's mask) and keeps (1 − 1/t) of one fewer; without it no "
        "more than one device.\n"
        "Graded: output, input gradient and every parameter's gradient (shards put together; ln.* and "
        "fc2.bias summed over the group under sequence parallelism) against the single-device MLPBlock, and "
        "the exact collectives each way.\n"
        "Usual mistakes: names other than ln, fc1, fc2; gathering fc1's output; all-reducing the "
        "LayerNorm's gradients inside the block; LayerNorm on the gathered sequence.",
        "MLP của Megatron: fc1 là column parallel (ffn/t feature mỗi rank), GELU trên các feature cục bộ, "
        "fc2 là row parallel; ở giữa không giao tiếp gì.\n"
        "Không dùng sequence parallelism: một all-reduce trong forward (g sau fc2) và một trong backward (f "
        "trước fc1), mỗi cái bằng số byte của activation [s, b, h].\n"
        "Dùng sequence parallelism: x và đầu ra là các chunk [s/t, b, h]; LayerNorm, dropout và residual "
        "chạy trên chunk; một all-gather trước fc1 và một reduce-scatter sau fc2 thay cho all-reduce, cùng "
        "các phép liên hợp của chúng trong backward.\n"
        "Bộ nhớ: khi dùng sequence parallelism, mỗi rank lưu cho backward ít hơn ít nhất (1 − 1/t) · 2 "
        "activation (đầu vào của LayerNorm, mask của dropout) và giữ ít hơn (1 − 1/t) của một activation; "
        "khi không dùng thì không nhiều hơn một thiết bị.\n"
        "Bộ chấm: đầu ra, gradient của đầu vào và gradient của mọi tham số (ghép các shard lại; ln.* và "
        "fc2.bias được cộng trên cả nhóm khi dùng sequence parallelism) so với MLPBlock trên một thiết bị, "
        "và đúng các collective ở mỗi chiều.\n"
        "Lỗi thường gặp: đặt tên khác ln, fc1, fc2; gom đầu ra của fc1; all-reduce gradient của LayerNorm "
        "bên trong block; chạy LayerNorm trên sequence đã gom.",
    ),
    "parallel_attention": (
        "Heads split across ranks: rank r computes heads r·heads/t … (r+1)·heads/t over the whole sequence, "
        "and a head needs nothing from the others.\n"
        "q, k and v are one column-parallel layer qkv whose rows on rank r are [q_r; k_r; v_r], so the "
        "block enters the TP region once; proj is row parallel with input_is_parallel.\n"
        "Causal softmax attention scaled by 1/√d, d = hidden / heads, as AttentionBlock in "
        "graders/models.py.\n"
        "Communication as in the MLP: one all-reduce each way, or with sequence parallelism an all-gather "
        "before qkv and a reduce-scatter after proj (and their conjugates); attention always sees the whole "
        "sequence.\n"
        "Graded: output, input gradient and every parameter's gradient (qkv's shards split back into q, k, "
        "v; ln.* and proj.bias summed over the group under sequence parallelism), and the exact "
        "collectives.\n"
        "Usual mistakes: [q; k; v] stacked whole (its chunk r is not rank r's heads), three column layers "
        "(three f's in backward), heads taken from the wrong features, no causal mask.",
        "Các head được chia cho các rank: rank r tính các head r·heads/t … (r+1)·heads/t trên toàn bộ "
        "sequence, và một head không cần gì từ các head khác.\n"
        "q, k và v là một lớp column-parallel duy nhất tên qkv, các hàng của nó trên rank r là [q_r; k_r; "
        "v_r], nên block chỉ vào vùng TP một lần; proj là row parallel với input_is_parallel.\n"
        "Attention causal với softmax, chia tỉ lệ 1/√d, d = hidden / heads, như AttentionBlock trong "
        "graders/models.py.\n"
        "Giao tiếp như MLP: một all-reduce mỗi chiều, hoặc khi dùng sequence parallelism là một all-gather "
        "trước qkv và một reduce-scatter sau proj (cùng các phép liên hợp); attention luôn thấy toàn bộ "
        "sequence.\n"
        "Bộ chấm: đầu ra, gradient của đầu vào và gradient của mọi tham số (shard của qkv được tách lại "
        "thành q, k, v; ln.* và proj.bias được cộng trên cả nhóm khi dùng sequence parallelism), và đúng "
        "các collective.\n"
        "Lỗi thường gặp: xếp nguyên [q; k; v] (chunk r của nó không phải các head của rank r), ba lớp "
        "column riêng (ba f trong backward), lấy head từ sai feature, thiếu mask causal.",
    ),
}
