"""Chapter 5's communication-pattern messages (:mod:`.traffic`), English and Vietnamese; part
of :data:`graders.chapters.ch5.messages.MESSAGES`."""

from __future__ import annotations

TRAFFIC_MESSAGES: dict[str, dict[str, str]] = {
    "ch5:steps incomplete": {
        "en": "rank {rank}: the training loop did not complete {steps} steps.",
        "vi": "rank {rank}: vòng lặp huấn luyện chưa hoàn thành đủ {steps} bước.",
    },
    "ch5:at sites": {"en": " (at {sites})", "vi": " (tại {sites})"},
    "ch5:all-reduce": {
        "en": "rank {rank}, step {step}: {count} all-reduce(s) of {nbytes} bytes{where}; {stage} never "
        "all-reduces the gradients.",
        "vi": "rank {rank}, bước {step}: {count} lần all-reduce, tổng cộng {nbytes} byte{where}; {stage} "
        "không bao giờ all-reduce gradient.",
    },
    "ch5:all-reduce:zero1:hint": {
        "en": "a rank needs only the averaged gradient of the elements it owns: reduce-scatter the "
        "gradients; an all-reduce sends the whole average to every rank.",
        "vi": "một rank chỉ cần gradient trung bình của các phần tử nó sở hữu: hãy reduce-scatter "
        "gradient; all-reduce sẽ gửi toàn bộ giá trị trung bình tới mọi rank.",
    },
    "ch5:all-reduce:zero2:hint": {
        "en": "an all-reduce leaves the whole gradient on every rank; reduce-scatter leaves each rank only "
        "the chunk it owns, which is what stage 2 saves.",
        "vi": "all-reduce để lại toàn bộ gradient trên mọi rank; reduce-scatter chỉ để lại cho mỗi rank "
        "chunk mà nó sở hữu, và đó chính là phần stage 2 tiết kiệm được.",
    },
    "ch5:all-reduce:zero3:hint": {
        "en": "reduce-scatter each gradient into the shards; an all-reduce keeps full gradients.",
        "vi": "hãy reduce-scatter từng gradient vào các shard; all-reduce giữ lại gradient đầy đủ.",
    },
    "ch5:no all-gather in step": {
        "en": "rank {rank}, step {step}: {name}.step() issued no all-gather; every rank must get the other "
        "ranks' updated shards back.",
        "vi": "rank {rank}, bước {step}: {name}.step() không gọi all-gather nào; mọi rank phải nhận lại "
        "các shard đã cập nhật của các rank khác.",
    },
    "ch5:no all-gather in step:hint": {
        "en": "all-gather the updated shards (all_gather_single) and copy them into the parameters.",
        "vi": "hãy all-gather các shard đã cập nhật (all_gather_single) và chép chúng vào tham số.",
    },
    "ch5:wire": {
        "en": "rank {rank}, step {step}: {name} sent {sent:,.0f} bytes ({kinds}); a reduce-scatter of the "
        "gradients plus an all-gather of the parameters sends {limit:,.0f}, the same as data "
        "parallelism's all-reduce.",
        "vi": "rank {rank}, bước {step}: {name} đã gửi {sent:,.0f} byte ({kinds}); một reduce-scatter "
        "gradient cộng một all-gather tham số chỉ gửi {limit:,.0f}, bằng đúng all-reduce của data "
        "parallelism.",
    },
    "ch5:wire:hint": {
        "en": "each rank needs only the averaged gradient of its own shard: reduce-scatter it instead of "
        "all-reducing the whole gradient.",
        "vi": "mỗi rank chỉ cần gradient trung bình của shard của chính nó: hãy reduce-scatter thay vì "
        "all-reduce toàn bộ gradient.",
    },
    "ch5:sent too little": {
        "en": "rank {rank}, step {step}: {sent:,} bytes {what}; at least {least:,} must go.",
        "vi": "rank {rank}, bước {step}: gửi {sent:,} byte {what}; cần gửi đi ít nhất {least:,}.",
    },
    "ch5:group sent too little": {
        "en": "step {step}: the ranks together sent {total:,} bytes {what} ({shares}); every element must "
        "be sent by the rank that owns it: at least {least:,}.",
        "vi": "bước {step}: các rank cộng lại đã gửi {total:,} byte {what} ({shares}); mọi phần tử phải "
        "được gửi bởi rank sở hữu nó: ít nhất {least:,}.",
    },
    "ch5:sent:gradients into reductions": {
        "en": "into reduce-scatters or all-reduces of the gradients",
        "vi": "gradient vào các reduce-scatter hoặc all-reduce",
    },
    "ch5:sent:parameters into all-gathers": {
        "en": "of updated parameters into all-gathers in step()",
        "vi": "tham số đã cập nhật vào các all-gather trong step()",
    },
    "ch5:sent:shards in forward": {
        "en": "of shards into all-gathers in forward",
        "vi": "shard vào các all-gather trong forward",
    },
    "ch5:sent:shards in backward": {
        "en": "of shards into all-gathers in backward",
        "vi": "shard vào các all-gather trong backward",
    },
    "ch5:sent:gradients into reduce-scatters": {
        "en": "of gradients into reduce-scatters in backward",
        "vi": "gradient vào các reduce-scatter trong backward",
    },
    "ch5:gather:hint": {
        "en": "all-gather every updated shard (all_gather_single) and copy the result into the parameters.",
        "vi": "hãy all-gather mọi shard đã cập nhật (all_gather_single) và chép kết quả vào tham số.",
    },
    "ch5:reduce:hint": {
        "en": "every rank hands its whole gradient to the reduction: each rank's chunk needs everyone's.",
        "vi": "mọi rank đều đưa toàn bộ gradient của mình vào phép reduce: chunk của mỗi rank cần phần "
        "đóng góp của tất cả các rank.",
    },
    "ch5:zero2:buckets": {
        "en": "buckets for bucket_cap_mb={cap}: {layout}",
        "vi": "các bucket với bucket_cap_mb={cap}: {layout}",
    },
    "ch5:zero2:bucket without gradient": {
        "en": "[{names}] (has a parameter without gradient)",
        "vi": "[{names}] (có một tham số không có gradient)",
    },
    "ch5:zero2:hint": {
        "en": "reduce-scatter a bucket from a post-accumulate-grad hook as soon as its last gradient "
        "arrives.",
        "vi": "hãy reduce-scatter một bucket từ post-accumulate-grad hook ngay khi gradient cuối cùng của "
        "nó tới.",
    },
    "ch5:zero2:reduce-scatter count": {
        "en": "rank {rank}, step {step}: {during} reduce-scatter(s) during backward and {after} in "
        "step(); expected one per bucket: {in_backward} during backward and {in_step} in step() (for "
        "buckets that miss a gradient).\n{buckets}",
        "vi": "rank {rank}, bước {step}: {during} lần reduce-scatter trong lúc backward và {after} lần "
        "trong step(); cần mỗi bucket một lần: {in_backward} trong lúc backward và {in_step} trong "
        "step() (cho các bucket thiếu một gradient).\n{buckets}",
    },
    "ch5:zero2:reduce-scatter size": {
        "en": "rank {rank}, step {step}: reduce-scatter {position} during backward took {nbytes} "
        "bytes{where}; the bucket backward completes {which} holds {least} bytes of gradients (at most "
        "{most} with padding).\n{buckets}",
        "vi": "rank {rank}, bước {step}: reduce-scatter thứ {position} trong lúc backward có {nbytes} "
        "byte{where}; bucket mà backward hoàn tất {which} chứa {least} byte gradient (tối đa {most} nếu "
        "tính padding).\n{buckets}",
    },
    "ch5:zero2:reduce-scatter size:first": {"en": "first", "vi": "đầu tiên"},
    "ch5:zero2:reduce-scatter size:nth": {
        "en": "in position {position}",
        "vi": "ở vị trí thứ {position}",
    },
    "ch5:zero2:reduce-scatter size:hint": {
        "en": "buckets are fixed at construction, in reverse parameter order; reduce each one as soon as "
        "its last gradient arrives.",
        "vi": "các bucket được cố định khi khởi tạo, theo thứ tự tham số đảo ngược; hãy reduce từng bucket "
        "ngay khi gradient cuối cùng của nó tới.",
    },
    "ch5:hooks removed": {
        "en": "rank {rank}, step {step}: the graders never saw the gradient of {names} become ready: their "
        "hooks on the parameters were removed.",
        "vi": "rank {rank}, bước {step}: bộ chấm không hề thấy gradient của {names} sẵn sàng: các hook của "
        "bộ chấm trên tham số đã bị gỡ bỏ.",
    },
    "ch5:hooks removed:hint": {
        "en": "leave the parameters' hooks alone; register your own next to them.",
        "vi": "đừng động vào các hook có sẵn trên tham số; hãy đăng ký hook của bạn bên cạnh chúng.",
    },
    "ch5:zero2:late bucket": {
        "en": "rank {rank}, step {step}: {late}\n{buckets}",
        "vi": "rank {rank}, bước {step}: {late}\n{buckets}",
    },
    "ch5:zero2:late bucket:hint": {
        "en": "Launch it with async_op=True, so backward goes on while it travels.",
        "vi": "Hãy khởi chạy nó với async_op=True, để backward tiếp tục chạy trong khi dữ liệu đang truyền.",
    },
    "ch5:zero3:all-gathers in forward": {
        "en": "rank {rank}, step {step}: {count} all-gather(s) in forward; ZeRO-3 gathers each layer's "
        "parameters just before that layer runs.",
        "vi": "rank {rank}, bước {step}: {count} lần all-gather trong forward; ZeRO-3 gom tham số của "
        "từng layer ngay trước khi layer đó chạy.",
    },
    "ch5:zero3:all-gathers in forward:hint": {
        "en": "gather in a forward pre-hook of every submodule that owns parameters.",
        "vi": "hãy gom trong forward pre-hook của mọi submodule có tham số.",
    },
    "ch5:zero3:whole model gathered": {
        "en": "rank {rank}, step {step}: an all-gather in forward contributed {nbytes} bytes{where}, more "
        "than this rank's shard of the largest layer ({largest}): the whole model was gathered at once.",
        "vi": "rank {rank}, bước {step}: một all-gather trong forward đã đóng góp {nbytes} byte{where}, "
        "nhiều hơn shard của rank này trong layer lớn nhất ({largest}): cả mô hình đã bị gom cùng lúc.",
    },
    "ch5:zero3:whole model gathered:hint": {
        "en": "gather layer by layer, so that only one layer is ever complete in memory.",
        "vi": "hãy gom từng layer một, để trong bộ nhớ mỗi lúc chỉ có một layer đầy đủ.",
    },
    "ch5:zero3:reduce-scatter in forward": {
        "en": "rank {rank}, step {step}: a reduce-scatter ran during forward.",
        "vi": "rank {rank}, bước {step}: có một reduce-scatter chạy trong lúc forward.",
    },
    "ch5:zero3:no all-gather in backward": {
        "en": "rank {rank}, step {step}: no all-gather during backward. ZeRO-3 frees a layer's parameters "
        "after its forward and gathers them again when backward needs them.",
        "vi": "rank {rank}, bước {step}: không có all-gather nào trong lúc backward. ZeRO-3 giải phóng "
        "tham số của một layer sau forward của nó và gom lại khi backward cần đến chúng.",
    },
    "ch5:zero3:no all-gather in backward:hint": {
        "en": "torch.autograd.graph.saved_tensors_hooks can swap a saved parameter for a key in forward "
        "and gather it again when backward unpacks it.",
        "vi": "torch.autograd.graph.saved_tensors_hooks có thể thay một tham số được lưu bằng một khóa "
        "(key) trong forward và gom lại nó khi backward unpack.",
    },
    "ch5:zero3:no reduce-scatter in backward": {
        "en": "rank {rank}, step {step}: no reduce-scatter during backward; the gradients of the gathered "
        "parameters must be reduce-scattered into the shards.",
        "vi": "rank {rank}, bước {step}: không có reduce-scatter nào trong lúc backward; gradient của các "
        "tham số đã gom phải được reduce-scatter vào các shard.",
    },
    "ch5:zero3:forward gathers:hint": {
        "en": "gather every layer's parameters just before it runs, from every rank's shard.",
        "vi": "hãy gom tham số của mọi layer ngay trước khi nó chạy, từ shard của mọi rank.",
    },
    "ch5:zero3:backward gathers:hint": {
        "en": "backward needs the weights forward saved: gather them again when autograd unpacks them.",
        "vi": "backward cần các trọng số mà forward đã lưu: hãy gom lại chúng khi autograd unpack.",
    },
}
