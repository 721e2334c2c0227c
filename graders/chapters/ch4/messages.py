"""Chapter 4's teaching messages in English and Vietnamese (see :mod:`graders.words.messages`)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    # -- training like one device --------------------------------------------------------------
    "ch4:param server:hint": {
        "en": "the server averages every rank's gradients (its own included) into .grad, steps, and "
        "sends the parameters back; parameters whose .grad is None must stay None on the server.",
        "vi": "server lấy trung bình gradient của mọi rank (kể cả của chính nó) vào .grad, thực hiện "
        "step, rồi gửi các tham số trở lại; tham số nào có .grad là None thì trên server cũng phải giữ "
        "None.",
    },
    "ch4:ddp:hint": {
        "en": "broadcast every parameter from group rank 0 at construction; after "
        "finish_gradient_synchronization() every .grad is the average over the group (None stays None).",
        "vi": "hãy broadcast mọi tham số từ rank 0 của nhóm (group) khi khởi tạo; sau "
        "finish_gradient_synchronization(), mỗi .grad là trung bình trên cả nhóm (None vẫn giữ None).",
    },
    "ch4:vs torch ddp": {
        "en": "rank {rank} (your DDP vs torch.nn.parallel.DistributedDataParallel on the same data)",
        "vi": "rank {rank} (DDP của bạn so với torch.nn.parallel.DistributedDataParallel trên cùng dữ liệu)",
    },
    # -- parameter server ----------------------------------------------------------------------
    "ch4:server load": {
        "en": "with {workers} worker(s), the server (rank {server}) moved {moved} B, {ratio:.1f}x a "
        "worker's {worker} B: a server's traffic grows with the number of workers while a worker's "
        "does not; all-reduce removes that bottleneck.",
        "vi": "Với {workers} worker, server (rank {server}) đã gửi và nhận tổng cộng {moved} B, gấp "
        "{ratio:.1f} lần {worker} B của một worker: lưu lượng của server tăng theo số worker, còn của "
        "một worker thì không; all-reduce loại bỏ nút thắt cổ chai đó.",
    },
    "ch4:star:hint": {
        "en": "workers send their gradients to the server and receive the parameters from it; they "
        "never talk to each other. {load}",
        "vi": "các worker gửi gradient của mình tới server và nhận tham số từ server; chúng không bao "
        "giờ trao đổi trực tiếp với nhau. {load}",
    },
    "ch4:server traffic:hint": {
        "en": "per step a worker sends its gradients once and receives the parameters once "
        "(≤ {per_step} B for this model, whatever the number of ranks). {load}",
        "vi": "mỗi bước, một worker gửi gradient của nó một lần và nhận tham số một lần "
        "(≤ {per_step} B với mô hình này, bất kể có bao nhiêu rank). {load}",
    },
    "ch4:sent to server": {
        "en": "rank {worker}, step {step}: sent {sent} B to the server (rank {server}); its gradients "
        "are {grads} B, and every step the server needs all of them from every worker.",
        "vi": "rank {worker}, bước {step}: đã gửi {sent} B tới server (rank {server}); gradient của nó "
        "là {grads} B, và ở mỗi bước server cần toàn bộ gradient từ mọi worker.",
    },
    "ch4:sent to server:hint": {
        "en": "each worker sends its own gradients to the server once per step. {load}",
        "vi": "mỗi worker gửi gradient của chính nó tới server một lần mỗi bước. {load}",
    },
    "ch4:received from server": {
        "en": "rank {worker}, step {step}: received {received} B from the server (rank {server}); the "
        "updated trainable parameters are {params} B, and every worker needs them every step.",
        "vi": "rank {worker}, bước {step}: đã nhận {received} B từ server (rank {server}); các tham số "
        "huấn luyện được sau khi cập nhật là {params} B, và mọi worker đều cần chúng ở mỗi bước.",
    },
    "ch4:received from server:hint": {
        "en": "after its step the server sends the updated parameters to every worker. {load}",
        "vi": "sau step của mình, server gửi các tham số đã cập nhật tới mọi worker. {load}",
    },
    # -- DDP: buckets, overlap, no_sync ----------------------------------------------------------
    "ch4:buckets": {
        "en": "rank {rank}, step {step}: {count} all-reduce(s) of {got} B; with "
        "bucket_cap_mb={cap}/2**20 the {buckets} bucket(s) are {layout}.",
        "vi": "rank {rank}, bước {step}: {count} lần all-reduce có kích thước {got} B; với "
        "bucket_cap_mb={cap}/2**20 thì phải có {buckets} bucket, lần lượt là {layout}.",
    },
    "ch4:buckets:hint": {
        "en": "walk the trainable parameters in reverse order of module.parameters(), close a bucket "
        "once it holds >= bucket_cap_mb * 2**20 bytes, and all-reduce each bucket once per backward as "
        "one flat buffer.",
        "vi": "hãy duyệt các tham số huấn luyện được theo thứ tự ngược của module.parameters(), đóng "
        "một bucket ngay khi nó chứa >= bucket_cap_mb * 2**20 byte, và all-reduce mỗi bucket một lần "
        "trong mỗi lượt backward dưới dạng một buffer phẳng.",
    },
    "ch4:overlap:hint": {
        "en": "launch a bucket's all-reduce (async_op=True) from the post-accumulate-grad hook of its "
        "last gradient, while backward goes on; finish_gradient_synchronization() only waits.",
        "vi": "hãy khởi chạy all-reduce của một bucket (async_op=True) từ post-accumulate-grad hook của "
        "gradient cuối cùng trong bucket, trong khi backward vẫn đang chạy; "
        "finish_gradient_synchronization() chỉ việc chờ.",
    },
    "ch4:hooks removed": {
        "en": "rank {rank}, step {step}: the graders never saw the gradient of {names} become ready: "
        "their hooks on the parameters were removed.",
        "vi": "rank {rank}, bước {step}: bộ chấm không hề thấy gradient của {names} sẵn sàng: các hook "
        "của bộ chấm trên tham số đã bị gỡ bỏ.",
    },
    "ch4:hooks removed:hint": {
        "en": "leave the parameters' hooks alone; register your own next to them.",
        "vi": "đừng động vào các hook có sẵn trên tham số; hãy đăng ký hook của bạn bên cạnh chúng.",
    },
    "ch4:late bucket": {
        "en": "rank {rank}, step {step}: {late}\nbuckets: {layout}",
        "vi": "rank {rank}, bước {step}: {late}\ncác bucket: {layout}",
    },
    "ch4:all-reduce after backward": {
        "en": "rank {rank}, step {step}: {count} all-reduce(s) after backward returned (at most {most}: "
        "the buckets that cannot complete in backward); the gradients were averaged after backward, not "
        "while it ran.",
        "vi": "rank {rank}, bước {step}: {count} lần all-reduce sau khi backward đã trả về (tối đa "
        "{most}: số bucket không thể hoàn tất trong backward); gradient đã được lấy trung bình sau "
        "backward, chứ không phải trong lúc backward chạy.",
    },
    "ch4:call inside no_sync": {
        "en": "rank {rank}, step {step}: {count} call(s) ({op}, ...) inside no_sync(); accumulation must "
        "not communicate.",
        "vi": "rank {rank}, bước {step}: {count} lời gọi ({op}, ...) bên trong no_sync(); việc tích lũy "
        "gradient không được giao tiếp.",
    },
    "ch4:call inside no_sync:hint": {
        "en": "inside no_sync() the hooks only let gradients accumulate in .grad.",
        "vi": "bên trong no_sync(), các hook chỉ để gradient tích lũy vào .grad.",
    },
    "ch4:all-reduces after no_sync": {
        "en": "rank {rank}, step {step}: {count} all-reduce(s) after no_sync(), {expected} in step 1 "
        "without it; the accumulated gradients travel in the same buckets, one all-reduce each.",
        "vi": "rank {rank}, bước {step}: {count} lần all-reduce sau no_sync(), trong khi bước 1 (không "
        "có no_sync) có {expected}; gradient đã tích lũy đi theo đúng các bucket đó, mỗi bucket một lần "
        "all-reduce.",
    },
    "ch4:no_sync lost overlap": {
        "en": "rank {rank}: step 1 all-reduced during backward, but step {step}, after no_sync(), waited "
        "for finish_gradient_synchronization().",
        "vi": "rank {rank}: bước 1 đã all-reduce trong lúc backward, nhưng bước {step}, sau no_sync(), "
        "lại chờ đến finish_gradient_synchronization().",
    },
    "ch4:no_sync lost overlap:hint": {
        "en": "leaving no_sync() must restore synchronisation, and the hooks' bookkeeping (how many "
        "gradients of a bucket are ready) must not count the backward passes inside no_sync().",
        "vi": "thoát khỏi no_sync() phải khôi phục việc đồng bộ, và phần đếm của các hook (bao nhiêu "
        "gradient của một bucket đã sẵn sàng) không được tính các lượt backward bên trong no_sync().",
    },
    # -- sharded data parallelism: values ------------------------------------------------------
    "ch4:fsdp layout:hint": {
        "en": "flat_param on group rank r is elements [r*S, (r+1)*S) of the trainable parameters "
        "(named_parameters order, tied once) flattened, concatenated and zero-padded to N*S, "
        "S = ceil(total / N); its .grad is that slice of the gradient averaged over the group.",
        "vi": "flat_param trên rank r của nhóm là các phần tử [r*S, (r+1)*S) của các tham số huấn luyện "
        "được (theo thứ tự named_parameters, tham số dùng chung (tied) chỉ tính một lần) sau khi làm "
        "phẳng, nối lại và đệm số 0 cho đủ N*S, với S = ceil(total / N); .grad của nó là đúng lát cắt "
        "đó của gradient đã lấy trung bình trên nhóm.",
    },
    "ch4:no flat_param": {
        "en": "rank {rank}: the wrapper has no flat_param (its shard).",
        "vi": "rank {rank}: wrapper không có flat_param (shard của nó).",
    },
    "ch4:flat_param shape": {
        "en": "rank {rank}: flat_param should have shape ({numel},), got {got}.",
        "vi": "rank {rank}: flat_param phải có shape ({numel},), nhận được {got}.",
    },
    "ch4:frozen parameters": {
        "en": "rank {rank}'s frozen parameters",
        "vi": "các tham số bị đóng băng (frozen) của rank {rank}",
    },
    "ch4:frozen parameters:hint": {
        "en": "frozen parameters stay in the module, unchanged, on every rank.",
        "vi": "các tham số bị đóng băng nằm nguyên trong module, không thay đổi, trên mọi rank.",
    },
    "ch4:gathered parameters": {
        "en": "the parameters gathered from every rank's flat_param",
        "vi": "các tham số ghép lại từ flat_param của mọi rank",
    },
    # -- sharded data parallelism: traffic -----------------------------------------------------
    "ch4:rank step": {"en": "rank {rank}, step {step}", "vi": "rank {rank}, bước {step}"},
    "ch4:gathered too little": {
        "en": "{where}: contributed {gathered} B to all-gathers in {phase}; the other ranks need this "
        "rank's whole shard ({shard} B) to rebuild the parameters.",
        "vi": "{where}: chỉ đóng góp {gathered} B vào các all-gather trong {phase}; các rank khác cần "
        "toàn bộ shard của rank này ({shard} B) để dựng lại tham số.",
    },
    "ch4:reduce-scattered too little": {
        "en": "{where}: reduce-scattered {reduced} B in backward; the flat gradient of the trainable "
        "parameters is {total} B, and every rank's share of it must travel.",
        "vi": "{where}: đã reduce-scatter {reduced} B trong backward; gradient phẳng của các tham số "
        "huấn luyện được là {total} B, và phần của mọi rank đều phải được gửi đi.",
    },
    "ch4:sharded all-reduce": {
        "en": "rank {rank} all-reduced {nbytes} B: every rank then holds the whole averaged gradient, "
        "which is what sharding avoids.",
        "vi": "rank {rank} đã all-reduce {nbytes} B: khi đó mọi rank đều giữ toàn bộ gradient trung "
        "bình, đúng điều mà việc chia shard muốn tránh.",
    },
    "ch4:sharded all-reduce:hint": {
        "en": "reduce-scatter the full flat gradient: rank r receives only the average of its shard.",
        "vi": "hãy reduce-scatter toàn bộ gradient phẳng: rank r chỉ nhận trung bình của shard của nó.",
    },
    "ch4:no all-gather in forward": {
        "en": "{where}: no all-gather in forward.",
        "vi": "{where}: không có all-gather nào trong forward.",
    },
    "ch4:no all-gather in forward:hint": {
        "en": "gather the full parameters in forward.",
        "vi": "hãy all-gather đầy đủ tham số trong forward.",
    },
    "ch4:no all-gather in backward": {
        "en": "{where}: no all-gather during backward.",
        "vi": "{where}: không có all-gather nào trong lúc backward.",
    },
    "ch4:no all-gather in backward:hint": {
        "en": "free the full parameters when forward returns and gather them again when backward needs "
        "them (torch.autograd.graph.saved_tensors_hooks).",
        "vi": "hãy giải phóng tham số đầy đủ khi forward trả về và all-gather lại khi backward cần đến "
        "chúng (torch.autograd.graph.saved_tensors_hooks).",
    },
    "ch4:no reduce-scatter in backward": {
        "en": "{where}: no reduce-scatter of the gradients during backward.",
        "vi": "{where}: không có reduce-scatter gradient nào trong lúc backward.",
    },
    "ch4:gathered too much": {
        "en": "{where}: contributed {gathered} B to all-gathers; gathering the parameters twice "
        "(forward, backward) takes 2 × {shard} B from each rank.",
        "vi": "{where}: đã đóng góp {gathered} B vào các all-gather; all-gather tham số hai lần "
        "(forward, backward) chỉ cần 2 × {shard} B từ mỗi rank.",
    },
    # -- sharded data parallelism: memory (graders/chapters/ch4/memory.py) ----------------------
    "ch4:memory:title": {"en": "ShardedDataParallel, {n} ranks", "vi": "ShardedDataParallel, {n} rank"},
    "ch4:memory:kept": {
        "en": "the shard ({shard:,} bytes), its gradient and optimizer state, and the frozen parameters",
        "vi": "shard ({shard:,} byte), gradient và trạng thái optimizer của nó, cùng các tham số bị "
        "đóng băng",
    },
    "ch4:memory:kept:label": {"en": "kept between steps", "vi": "giữ lại giữa các bước"},
    "ch4:memory:kept:hint": {
        "en": "release the module's own trainable parameters at construction and keep the shard as its "
        "own tensor (a slice of a bigger tensor keeps all of it alive: clone it).",
        "vi": "hãy giải phóng các tham số huấn luyện được của chính module khi khởi tạo và giữ shard "
        "thành một tensor riêng (một lát cắt của tensor lớn hơn sẽ giữ cả tensor đó sống: hãy clone "
        "nó).",
    },
    "ch4:memory:at forward end": {
        "en": "a single device's activations, the shard and its state: nothing gathered",
        "vi": "các activation của một thiết bị đơn, shard và trạng thái của nó: không có gì được gom",
    },
    "ch4:memory:at forward end:label": {"en": "alive when forward ended", "vi": "còn sống khi hết forward"},
    "ch4:memory:at forward end:hint": {
        "en": "autograd saves the weights a layer used: with saved_tensors_hooks, save where a view of "
        "the gathered parameter sits instead of the view, and gather again in backward.",
        "vi": "autograd lưu lại các trọng số mà một layer đã dùng: với saved_tensors_hooks, hãy lưu vị "
        "trí của view trong tham số đã gom thay cho chính view đó, rồi gom lại trong backward.",
    },
    "ch4:memory:gathered in forward": {
        "en": "the flat parameter gathered once ({gathered:,} bytes)",
        "vi": "tham số phẳng được gom một lần ({gathered:,} byte)",
    },
    "ch4:memory:gathered in forward:label": {"en": "gathered in forward", "vi": "gom trong forward"},
    "ch4:memory:gathered in forward:hint": {
        "en": "gather the full flat parameter once per forward.",
        "vi": "hãy gom toàn bộ tham số phẳng một lần mỗi lượt forward.",
    },
    "ch4:memory:gathered in backward": {
        "en": "the flat parameter gathered again once ({gathered:,} bytes)",
        "vi": "tham số phẳng được gom lại một lần ({gathered:,} byte)",
    },
    "ch4:memory:gathered in backward:label": {"en": "gathered in backward", "vi": "gom trong backward"},
    "ch4:memory:gathered in backward:hint": {
        "en": "gather the full flat parameter once for backward, and drop it when the gradient is done.",
        "vi": "hãy gom toàn bộ tham số phẳng một lần cho backward, và bỏ nó đi khi đã tính xong gradient.",
    },
    "ch4:memory:peak in forward": {
        "en": "a single device's activations, the shard and its state, and the gathered flat parameter "
        "once ({gathered:,} bytes)",
        "vi": "các activation của một thiết bị đơn, shard và trạng thái của nó, cùng tham số phẳng đã "
        "gom một lần ({gathered:,} byte)",
    },
    "ch4:memory:peak in forward:label": {"en": "peak in forward", "vi": "đỉnh trong forward"},
    "ch4:memory:peak in forward:hint": {
        "en": "gather the full flat parameter once per forward and drop it when forward returns.",
        "vi": "hãy gom toàn bộ tham số phẳng một lần mỗi lượt forward và bỏ nó đi khi forward trả về.",
    },
}
