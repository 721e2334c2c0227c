"""Chapter 6's teaching messages in English and Vietnamese (see :mod:`graders.words.messages`)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "ch6:output": {
        "en": "rank {rank}'s output",
        "vi": "đầu ra của rank {rank}",
    },
    "ch6:input": {
        "en": "rank {rank}'s input",
        "vi": "đầu vào của rank {rank}",
    },
    "ch6:input grad": {
        "en": "rank {rank}'s input gradient",
        "vi": "gradient của đầu vào trên rank {rank}",
    },
    "ch6:weight shard": {
        "en": "rank {rank}'s weight shard",
        "vi": "shard trọng số của rank {rank}",
    },
    "ch6:weight grad": {
        "en": "rank {rank}'s weight gradient",
        "vi": "gradient của trọng số trên rank {rank}",
    },
    "ch6:bias grad": {
        "en": "rank {rank}'s bias gradient",
        "vi": "gradient của bias trên rank {rank}",
    },
    "ch6:grad of": {
        "en": "rank {rank}'s gradient of {name}",
        "vi": "gradient của {name} trên rank {rank}",
    },
    "ch6:summed grad": {
        "en": "the gradient of {name} summed over the group",
        "vi": "gradient của {name} cộng trên cả nhóm",
    },
    "ch6:combined grad": {
        "en": "the gradient of {name}, put together from the ranks' shards",
        "vi": "gradient của {name}, ghép lại từ các shard của các rank",
    },
    "ch6:forward": {
        "en": "forward",
        "vi": "forward",
    },
    "ch6:backward": {
        "en": "backward",
        "vi": "backward",
    },
    "ch6:no backward": {
        "en": "rank {rank}: the gradient could not be back-propagated through the result ({why}).",
        "vi": "rank {rank}: không thể lan truyền ngược gradient qua kết quả ({why}).",
    },
    "ch6:no backward:hint": {
        "en": "return a tensor that autograd can differentiate: shaped as the contract says, with a grad_fn"
        " (build it inside a torch.autograd.Function, or from operations on the input).",
        "vi": "hãy trả về một tensor mà autograd lấy đạo hàm được: có shape đúng như hợp đồng (contract) "
        "nêu, có grad_fn (dựng nó bên trong một torch.autograd.Function, hoặc từ các phép toán trên đầu "
        "vào).",
    },
    "ch6:copy_to_tp_region:forward:hint": {
        "en": "f's forward is the identity: every rank already holds the whole tensor, so it returns a copy"
        " and communicates nothing.",
        "vi": "forward của f là phép đồng nhất (identity): mọi rank đã giữ toàn bộ tensor, nên nó trả về một "
        "bản sao và không giao tiếp gì.",
    },
    "ch6:copy_to_tp_region:backward:hint": {
        "en": "f's backward all-reduces the gradient: each rank's part of the model produced only its share"
        " of the input's gradient, and the input was used by all of them.",
        "vi": "backward của f all-reduce gradient: phần mô hình trên mỗi rank chỉ tạo ra phần đóng góp của "
        "nó vào gradient của đầu vào, còn đầu vào thì được tất cả các rank dùng.",
    },
    "ch6:reduce_from_tp_region:forward:hint": {
        "en": "g's forward all-reduces the partial sums once over the group.",
        "vi": "forward của g all-reduce các tổng riêng phần (partial sum) một lần trên cả nhóm.",
    },
    "ch6:reduce_from_tp_region:backward:hint": {
        "en": "g's backward is the identity: after the all-reduce every rank holds the same value, so the "
        "gradient reaching each rank is already the whole one; no communication.",
        "vi": "backward của g là identity: sau all-reduce mọi rank giữ cùng một giá trị, nên gradient đến "
        "mỗi rank đã là gradient đầy đủ; không giao tiếp.",
    },
    "ch6:scatter_to_tp_region:forward:hint": {
        "en": "keep chunk r (group rank r) of the last dimension, of t equal chunks; no communication.",
        "vi": "giữ chunk r (rank r trong nhóm) của chiều cuối cùng, trong t chunk bằng nhau; không giao "
        "tiếp.",
    },
    "ch6:scatter_to_tp_region:backward:hint": {
        "en": "the gradient of the whole input is the ranks' gradient chunks put back together along the "
        "last dimension, in group-rank order: one all-gather.",
        "vi": "gradient của toàn bộ đầu vào là các chunk gradient của các rank ghép lại theo chiều cuối "
        "cùng, theo thứ tự rank trong nhóm: một all-gather.",
    },
    "ch6:gather_from_tp_region:forward:hint": {
        "en": "all-gather the ranks' tensors and concatenate them along the last dimension, in group-rank "
        "order.",
        "vi": "all-gather tensor của các rank và nối (concatenate) chúng theo chiều cuối cùng, theo thứ tự "
        "rank trong nhóm.",
    },
    "ch6:gather_from_tp_region:backward:hint": {
        "en": "the gradient of this rank's chunk is chunk r of the gradient's last dimension; no "
        "communication.",
        "vi": "gradient của chunk thuộc rank này là chunk r theo chiều cuối cùng của gradient; không giao "
        "tiếp.",
    },
    "ch6:scatter_to_sequence_region:forward:hint": {
        "en": "keep chunk r of the first (sequence) dimension; no communication.",
        "vi": "giữ chunk r theo chiều đầu tiên (chiều sequence); không giao tiếp.",
    },
    "ch6:scatter_to_sequence_region:backward:hint": {
        "en": "all-gather the gradient chunks along the first (sequence) dimension, in group-rank order.",
        "vi": "all-gather các chunk gradient theo chiều đầu tiên (chiều sequence), theo thứ tự rank trong "
        "nhóm.",
    },
    "ch6:gather_from_sequence_region:forward:hint": {
        "en": "all-gather the sequence chunks along the first dimension, in group-rank order.",
        "vi": "all-gather các chunk sequence theo chiều đầu tiên, theo thứ tự rank trong nhóm.",
    },
    "ch6:gather_from_sequence_region:backward:hint": {
        "en": "every rank used the whole sequence, so the gradient of this rank's chunk is the sum over the"
        " group of that chunk's gradients: one reduce-scatter along the first dimension, not an "
        "all-reduce.",
        "vi": "mọi rank đều dùng toàn bộ sequence, nên gradient của chunk thuộc rank này là tổng trên cả "
        "nhóm các gradient của chunk đó: một reduce-scatter theo chiều đầu tiên, không phải all-reduce.",
    },
    "ch6:reduce_scatter_to_sequence_region:forward:hint": {
        "en": "sum the partial results over the group and keep chunk r of the first dimension: one "
        "reduce-scatter, not an all-reduce followed by a slice.",
        "vi": "cộng các kết quả riêng phần trên cả nhóm và giữ chunk r theo chiều đầu tiên: một "
        "reduce-scatter, không phải all-reduce rồi cắt lát.",
    },
    "ch6:reduce_scatter_to_sequence_region:backward:hint": {
        "en": "each rank's chunk of the sum came from every rank's whole tensor: all-gather the gradient "
        "chunks along the first dimension.",
        "vi": "chunk của tổng trên mỗi rank đến từ toàn bộ tensor của mọi rank: all-gather các chunk "
        "gradient theo chiều đầu tiên.",
    },
    "ch6:column:hint": {
        "en": "rank r keeps rows r·out/t … (r+1)·out/t of the full weight and the same slice of the bias; "
        "enter the region with copy_to_tp_region (gather_from_sequence_region under sequence "
        "parallelism) and gather the output only when gather_output is set.",
        "vi": "rank r giữ các hàng r·out/t … (r+1)·out/t của trọng số đầy đủ và cùng lát đó của bias; vào "
        "vùng TP bằng copy_to_tp_region (gather_from_sequence_region khi dùng sequence parallelism) và chỉ "
        "gom đầu ra khi gather_output được bật.",
    },
    "ch6:row:hint": {
        "en": "rank r keeps columns r·in/t … (r+1)·in/t of the full weight and the whole bias; the partial "
        "products are summed over the group, and the bias is added once, after the sum.",
        "vi": "rank r giữ các cột r·in/t … (r+1)·in/t của trọng số đầy đủ và toàn bộ bias; các tích riêng "
        "phần được cộng trên cả nhóm, và bias được cộng đúng một lần, sau phép cộng đó.",
    },
    "ch6:bias when none": {
        "en": "rank {rank}: the layer was built with bias=False but has a bias; self.bias must be None.",
        "vi": "rank {rank}: lớp được tạo với bias=False nhưng lại có bias; self.bias phải là None.",
    },
    "ch6:partial grads:hint": {
        "en": "under sequence parallelism each rank saw only its chunk of the sequence, so its gradient of "
        "a replicated parameter (LayerNorm, the row layer's bias) is its part of the sum: do not "
        "all-reduce it inside the block, and do not scale it.",
        "vi": "khi dùng sequence parallelism, mỗi rank chỉ thấy chunk sequence của nó, nên gradient của nó "
        "đối với một tham số được nhân bản (LayerNorm, bias của lớp row) chỉ là phần của nó trong tổng: đừng "
        "all-reduce nó bên trong block, và đừng nhân hay chia nó theo tỉ lệ nào.",
    },
    "ch6:column traffic:hint": {
        "en": "forward communicates only where the output is gathered (and, under sequence parallelism, "
        "where the input sequence is all-gathered); backward once, where the input's gradient is "
        "summed: an all-reduce (a reduce-scatter under sequence parallelism).",
        "vi": "forward chỉ giao tiếp ở chỗ gom đầu ra (và, khi dùng sequence parallelism, ở chỗ all-gather "
        "sequence của đầu vào); backward giao tiếp một lần, ở chỗ cộng gradient của đầu vào: một all-reduce "
        "(một reduce-scatter khi dùng sequence parallelism).",
    },
    "ch6:row traffic:hint": {
        "en": "forward sums the partial products once (all-reduce, or reduce-scatter under sequence "
        "parallelism); backward communicates only to rebuild what the input needs: the sequence's "
        "gradient under sequence parallelism, the input's features when the input was not parallel.",
        "vi": "forward cộng các tích riêng phần một lần (all-reduce, hoặc reduce-scatter khi dùng sequence "
        "parallelism); backward chỉ giao tiếp để dựng lại thứ mà đầu vào cần: gradient của cả sequence khi "
        "dùng sequence parallelism, các feature của đầu vào khi đầu vào không song song.",
    },
    "ch6:hand written:hint": {
        "en": "write a torch.autograd.Function that takes the input, the weight and the bias: its forward "
        "multiplies, reduces and adds the bias; its backward returns grad_input = grad · W, "
        "grad_weight = gradᵀ · x and grad_bias = the sum of grad over every dimension but the last.",
        "vi": "hãy viết một torch.autograd.Function nhận đầu vào, trọng số và bias: forward của nó nhân ma "
        "trận, reduce rồi cộng bias; backward của nó trả về grad_input = grad · W, grad_weight = gradᵀ · x "
        "và grad_bias = tổng của grad trên mọi chiều trừ chiều cuối.",
    },
    "ch6:autograd matmul": {
        "en": "rank {rank}: autograd differentiated a matrix product in the layer ({nodes}); the exercise "
        "asks for the backward written by hand.",
        "vi": "rank {rank}: autograd đã tự lấy đạo hàm một phép nhân ma trận trong lớp ({nodes}); bài tập "
        "yêu cầu backward viết tay.",
    },
    "ch6:not hand written": {
        "en": "rank {rank}: the gradient of {name} came from {nodes}, not from your "
        "torch.autograd.Function's backward.",
        "vi": "rank {rank}: gradient của {name} đến từ {nodes}, không phải từ backward của "
        "torch.autograd.Function của bạn.",
    },
    "ch6:autograd on the path": {
        "en": "rank {rank}: between the layer's output and {name}, autograd differentiated {nodes}; "
        "only your torch.autograd.Functions (and views or copies) may stand there, so that their "
        "backward computes the gradient.",
        "vi": "rank {rank}: giữa đầu ra của lớp và {name}, autograd đã tự lấy đạo hàm {nodes}; ở đó chỉ "
        "được có các torch.autograd.Function của bạn (và các view hoặc bản sao), để backward của "
        "chúng tính gradient.",
    },
    "ch6:graph in backward": {
        "en": "rank {rank}: your Function's backward built a graph for autograd (it ran operations "
        "that saved tensors for a backward of their own): write the gradients as plain formulas, "
        "with no autograd inside backward.",
        "vi": "rank {rank}: backward của Function của bạn đã dựng một đồ thị cho autograd (nó chạy các "
        "phép toán lưu tensor cho một backward riêng): hãy viết gradient bằng các công thức thuần, "
        "không dùng autograd bên trong backward.",
    },
    "ch6:gradient not returned": {
        "en": "rank {rank}: {name}.grad is not what your Function's backward returned for it "
        "({verdict}): the gradient must be the one your backward computes, not one put there "
        "another way (a hook, a second graph).",
        "vi": "rank {rank}: {name}.grad không phải là thứ backward của Function của bạn trả về cho nó "
        "({verdict}): gradient phải là gradient do backward của bạn tính, không phải gradient được đặt "
        "vào theo cách khác (một hook, một đồ thị thứ hai).",
    },
    "ch6:dtensor:hint": {
        "en": "torch's ColwiseParallel shards the weight's rows (Shard(0)), RowwiseParallel its columns "
        "(Shard(1)), in rank order: the same layout, the same local values.",
        "vi": "ColwiseParallel của torch chia shard các hàng của trọng số (Shard(0)), RowwiseParallel chia "
        "các cột (Shard(1)), theo thứ tự rank: cùng bố cục, cùng giá trị cục bộ.",
    },
    "ch6:vs dtensor": {
        "en": "rank {rank}'s {name} (yours vs torch's DTensor plan on the same weights)",
        "vi": "{name} của rank {rank} (của bạn so với plan DTensor của torch trên cùng trọng số)",
    },
    "ch6:embedding:hint": {
        "en": "rank r holds rows r·V/t … (r+1)·V/t; an id outside them looks up a zero row, and the partial"
        " embeddings are summed with reduce_from_tp_region.",
        "vi": "rank r giữ các hàng r·V/t … (r+1)·V/t; một id nằm ngoài khoảng đó tra ra một hàng 0, và các "
        "embedding riêng phần được cộng bằng reduce_from_tp_region.",
    },
    "ch6:embedding traffic:hint": {
        "en": "one all-reduce of the embeddings in forward; the backward needs none, since each rank's rows"
        " get their gradient from the gradient it already has.",
        "vi": "forward có một all-reduce các embedding; backward không cần giao tiếp, vì các hàng của mỗi "
        "rank nhận gradient từ chính gradient mà rank đó đã có.",
    },
    "ch6:loss": {
        "en": "rank {rank}'s loss",
        "vi": "loss của rank {rank}",
    },
    "ch6:logits": {
        "en": "rank {rank}'s logits",
        "vi": "logits của rank {rank}",
    },
    "ch6:logits grad": {
        "en": "rank {rank}'s gradient of its logits",
        "vi": "gradient theo logits của rank {rank}",
    },
    "ch6:cross entropy:hint": {
        "en": "loss = log Σ exp(z − max) − (z_target − max): the maximum is an all-reduce with MAX, the sum"
        " of exponentials and the target's logit (known only to the rank that holds it) are sums over"
        " the group; the gradient is softmax − one_hot(target) on this rank's slice.",
        "vi": "loss = log Σ exp(z − max) − (z_target − max): giá trị lớn nhất là một all-reduce với MAX, "
        "tổng các exp và logit của target (chỉ rank giữ nó mới biết) là các tổng trên cả nhóm; gradient là "
        "softmax − one_hot(target) trên lát của rank này.",
    },
    "ch6:cross entropy traffic:hint": {
        "en": "exchange a few numbers per token with all-reduces: the maximum, the sum of exponentials, the"
        " target logit. Gathering the logits costs the whole vocabulary per token.",
        "vi": "trao đổi vài con số cho mỗi token bằng all-reduce: giá trị lớn nhất, tổng các exp, logit của "
        "target. Gom logits thì tốn cả vocabulary cho mỗi token.",
    },
    "ch6:logits gathered": {
        "en": "rank {rank} called {op} with {nbytes} B: the logits must never be gathered.",
        "vi": "rank {rank} đã gọi {op} với {nbytes} B: không bao giờ được gom logits.",
    },
    "ch6:cross entropy too much": {
        "en": "rank {rank} handed its collectives {sent} B for {tokens} token(s); a few numbers per token "
        "need at most {limit} B.",
        "vi": "rank {rank} đã đưa cho các collective {sent} B cho {tokens} token; vài con số mỗi token chỉ "
        "cần tối đa {limit} B.",
    },
    "ch6:cross entropy too little": {
        "en": "rank {rank} handed its collectives {sent} B for {tokens} token(s); the other ranks cannot "
        "know the loss unless each sends at least {least} B.",
        "vi": "rank {rank} đã đưa cho các collective {sent} B cho {tokens} token; các rank khác không thể "
        "biết loss nếu mỗi rank không gửi ít nhất {least} B.",
    },
    "ch6:cross entropy memory": {
        "en": "rank {rank} made a tensor of {bytes} B ({where}); nothing may be larger than this rank's "
        "logits at 8 bytes per element, {limit} B (the full logits are {full} B).",
        "vi": "rank {rank} đã tạo một tensor {bytes} B ({where}); không tensor nào được lớn hơn logits của "
        "rank này tính 8 byte mỗi phần tử, tức {limit} B (logits đầy đủ là {full} B).",
    },
    "ch6:cross entropy memory:hint": {
        "en": "work on this rank's slice of the logits: the maximum, the exponentials and the softmax all "
        "have the slice's shape, and the full vocabulary is never needed.",
        "vi": "hãy làm việc trên lát logits của rank này: giá trị lớn nhất, các exp và softmax đều có shape "
        "của lát, và không bao giờ cần đến cả vocabulary.",
    },
    "ch6:mlp:hint": {
        "en": "fc1 is a ColumnParallelLinear without gather_output and fc2 a RowParallelLinear with "
        "input_is_parallel: GELU works feature by feature, so nothing is communicated between them.",
        "vi": "fc1 là một ColumnParallelLinear không có gather_output và fc2 là một RowParallelLinear với "
        "input_is_parallel: GELU tính theo từng feature, nên giữa hai lớp không cần giao tiếp gì.",
    },
    "ch6:attention:hint": {
        "en": "rank r computes heads r·heads/t … (r+1)·heads/t over the whole sequence: its rows of q, k "
        "and v come from one column-parallel layer (rank r's rows are [q_r; k_r; v_r]), and proj is "
        "row parallel.",
        "vi": "rank r tính các head r·heads/t … (r+1)·heads/t trên toàn bộ sequence: các hàng q, k và v của "
        "nó đến từ một lớp column-parallel duy nhất (các hàng của rank r là [q_r; k_r; v_r]), và proj là row "
        "parallel.",
    },
    "ch6:sequence parallel:hint": {
        "en": "under sequence parallelism x and the output are this rank's chunk of the sequence: LayerNorm"
        " and dropout run on the chunk, the first linear layer all-gathers the sequence and the last "
        "one reduce-scatters it.",
        "vi": "khi dùng sequence parallelism, x và đầu ra là chunk sequence của rank này: LayerNorm và "
        "dropout chạy trên chunk, lớp linear đầu tiên all-gather sequence và lớp cuối cùng reduce-scatter "
        "nó.",
    },
    "ch6:parameter missing": {
        "en": "rank {rank}: the block has no parameter {name} with a gradient; the graders read {expected}.",
        "vi": "rank {rank}: block không có tham số {name} nào có gradient; bộ chấm đọc {expected}.",
    },
    "ch6:names:hint": {
        "en": "name the block's layers as the contract does (ln, fc1, fc2 for the MLP; ln, qkv, proj for "
        "attention), so that each shard can be compared with the single-device block.",
        "vi": "đặt tên các lớp của block đúng như hợp đồng (ln, fc1, fc2 cho MLP; ln, qkv, proj cho "
        "attention), để so được từng shard với block trên một thiết bị.",
    },
    "ch6:block traffic:hint": {
        "en": "a tensor-parallel block communicates once each way: g's all-reduce after the row layer in "
        "forward, f's all-reduce before the column layer in backward.",
        "vi": "một block tensor parallel giao tiếp một lần mỗi chiều: all-reduce của g sau lớp row trong "
        "forward, all-reduce của f trước lớp column trong backward.",
    },
    "ch6:sequence parallel traffic:hint": {
        "en": "each all-reduce becomes an all-gather plus a reduce-scatter of the same bytes on the wire: "
        "all-gather the sequence before the column layer, reduce-scatter after the row layer, and the"
        " conjugates in backward.",
        "vi": "mỗi all-reduce trở thành một all-gather cộng một reduce-scatter, cùng số byte trên đường "
        "truyền: all-gather sequence trước lớp column, reduce-scatter sau lớp row, và các phép liên hợp "
        "(conjugate) của chúng trong backward.",
    },
    "ch6:tp keeps more": {
        "en": "rank {rank} without sequence parallelism measured {tp} B ({meter}) in forward, more than the"
        " whole block on one device, {plain} B.",
        "vi": "rank {rank} khi không dùng sequence parallelism đo được {tp} B ({meter}) trong forward, nhiều "
        "hơn cả block trên một thiết bị, {plain} B.",
    },
    "ch6:sp keeps too much": {
        "en": "rank {rank} with sequence parallelism measured {sp} B ({meter}) in forward, {tp} B without "
        "it; on {n} ranks the LayerNorm's input and the dropout's mask shrink by {n}, so at most "
        "{limit} B.",
        "vi": "rank {rank} khi dùng sequence parallelism đo được {sp} B ({meter}) trong forward, khi không "
        "dùng là {tp} B; trên {n} rank, đầu vào của LayerNorm và mask của dropout nhỏ đi {n} lần, nên tối đa "
        "là {limit} B.",
    },
    "ch6:memory:hint": {
        "en": "under sequence parallelism LayerNorm and dropout run on this rank's chunk of the sequence, "
        "so what they save for backward is 1/t of it; only the all-gathered input of the first linear"
        " layer is whole.",
        "vi": "khi dùng sequence parallelism, LayerNorm và dropout chạy trên chunk sequence của rank này, "
        "nên những gì chúng lưu cho backward chỉ bằng 1/t; chỉ đầu vào đã all-gather của lớp linear đầu tiên "
        "là đầy đủ.",
    },
}
