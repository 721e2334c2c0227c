"""Chapter 5's memory-promise messages (:mod:`.memory`), English and Vietnamese; part of
:data:`graders.chapters.ch5.messages.MESSAGES`."""

from __future__ import annotations

MEMORY_MESSAGES: dict[str, dict[str, str]] = {
    "ch5:memory:title": {"en": "ZeRO-{stage}, {n} ranks", "vi": "ZeRO-{stage}, {n} rank"},
    "ch5:memory:keep:hint": {
        "en": "keep nothing of the full model between steps: no full gradients, no copies, in "
        "attributes, globals or closures alike; only this rank's partition, its gradient and its "
        "optimizer state.",
        "vi": "đừng giữ lại gì của toàn bộ mô hình giữa các bước: không gradient đầy đủ, không bản sao, "
        "dù trong thuộc tính, biến toàn cục hay closure; chỉ giữ phân vùng (partition) của rank này, "
        "gradient của nó và trạng thái optimizer của nó.",
    },
    "ch5:memory:state:hint": {
        "en": "build the inner optimizer on this rank's partition only: the state of elements another "
        "rank owns must not exist here, whatever class or container holds it.",
        "vi": "chỉ tạo optimizer bên trong trên phân vùng của rank này: trạng thái của các phần tử thuộc "
        "rank khác không được tồn tại ở đây, dù lớp hay container nào đang giữ nó.",
    },
    "ch5:memory:kept:label": {"en": "kept between steps", "vi": "giữ lại giữa các bước"},
    "ch5:memory:kept partition": {
        "en": "a partition of the parameters, of their gradients and {k} optimizer state(s) per element",
        "vi": "một phân vùng của các tham số, của gradient của chúng và {k} trạng thái optimizer cho mỗi "
        "phần tử",
    },
    "ch5:memory:state:label": {"en": "optimizer state", "vi": "trạng thái optimizer"},
    "ch5:memory:state": {
        "en": "optimizer state for this rank's partition only ({k} per element, and a gradient buffer "
        "kept for the next step)",
        "vi": "trạng thái optimizer chỉ cho phân vùng của rank này ({k} trên mỗi phần tử, và một buffer "
        "gradient giữ lại cho bước sau)",
    },
    "ch5:memory:on the wire:label": {"en": "on the wire in backward", "vi": "đang truyền trong backward"},
    "ch5:memory:on the wire": {
        "en": "one bucket on the wire while the next is launched: at most {wire:,} bytes held by "
        "asynchronous collectives at once",
        "vi": "một bucket đang truyền trong khi bucket tiếp theo được khởi chạy: tối đa {wire:,} byte do "
        "các collective bất đồng bộ giữ cùng lúc",
    },
    "ch5:memory:on the wire:hint": {
        "en": "wait for the previous bucket's reduce-scatter when you launch the next one, not for all of "
        "them when backward ends.",
        "vi": "hãy chờ reduce-scatter của bucket trước khi khởi chạy bucket tiếp theo, chứ không phải chờ "
        "tất cả khi backward kết thúc.",
    },
    "ch5:memory:grads at backward end:label": {
        "en": "gradients at backward end",
        "vi": "gradient khi hết backward",
    },
    "ch5:memory:grads at backward end": {
        "en": "this rank's reduced chunks, the last bucket still on the wire and the gradients of the "
        "buckets that wait for step() ({waiting:,} bytes)",
        "vi": "các chunk đã reduce của rank này, bucket cuối cùng còn đang truyền và gradient của các "
        "bucket đang chờ step() ({waiting:,} byte)",
    },
    "ch5:memory:grads at backward end:hint": {
        "en": "once a bucket is reduce-scattered, set the .grad of its parameters to None and drop its "
        "buffer: only the reduced chunk this rank owns is worth keeping.",
        "vi": "khi một bucket đã được reduce-scatter, hãy đặt .grad của các tham số trong đó về None và "
        "bỏ buffer của nó: chỉ chunk đã reduce mà rank này sở hữu là đáng giữ lại.",
    },
    "ch5:memory:grads in backward:label": {"en": "gradients in backward", "vi": "gradient trong backward"},
    "ch5:memory:grads in backward": {
        "en": "a single device's backward working set (the gradients of activations), plus the rank's "
        "chunks and at most three buckets of {bucket:,} bytes at once",
        "vi": "working set của backward trên một thiết bị đơn (gradient của các activation), cộng các "
        "chunk của rank và tối đa ba bucket {bucket:,} byte cùng lúc",
    },
    "ch5:memory:grads in backward:hint": {
        "en": "free a bucket's gradients as soon as its reduce-scatter is launched, during backward.",
        "vi": "hãy giải phóng gradient của một bucket ngay khi reduce-scatter của nó được khởi chạy, "
        "trong lúc backward.",
    },
    "ch5:memory:kept shards": {
        "en": "the shards of the parameters, of their gradients and of the optimizer state",
        "vi": "các shard của tham số, của gradient và của trạng thái optimizer",
    },
    "ch5:memory:at forward end:label": {"en": "alive when forward ended", "vi": "còn sống khi hết forward"},
    "ch5:memory:at forward end": {
        "en": "a single device's activations, the shards and their state, and at most one gathered layer "
        "({layer:,} bytes)",
        "vi": "các activation của một thiết bị đơn, các shard và trạng thái của chúng, cùng tối đa một "
        "layer đã gom ({layer:,} byte)",
    },
    "ch5:memory:at forward end:hint": {
        "en": "autograd saves the weights a layer used: with saved_tensors_hooks, save a key instead of a "
        "gathered parameter, and gather it again in backward.",
        "vi": "autograd lưu lại các trọng số mà một layer đã dùng: với saved_tensors_hooks, hãy lưu một "
        "khóa (key) thay cho tham số đã gom, rồi gom lại nó trong backward.",
    },
    "ch5:memory:gathered in forward:label": {"en": "gathered in forward", "vi": "gom trong forward"},
    "ch5:memory:gathered in forward": {
        "en": "one layer gathered at a time, or two while the next is prefetched ({two_layers:,} bytes)",
        "vi": "mỗi lần chỉ gom một layer, hoặc hai khi layer tiếp theo đang được prefetch ({two_layers:,} "
        "byte)",
    },
    "ch5:memory:gathered in forward:hint": {
        "en": "gather a layer's parameters in its own forward pre-hook (or prefetch only the next "
        "layer's), and release them after its forward: never the whole model at once.",
        "vi": "hãy gom tham số của một layer trong forward pre-hook của chính nó (hoặc chỉ prefetch tham "
        "số của layer kế tiếp), và giải phóng chúng sau forward của layer đó: không bao giờ gom cả mô "
        "hình cùng lúc.",
    },
    "ch5:memory:gathered in backward:label": {"en": "gathered in backward", "vi": "gom trong backward"},
    "ch5:memory:gathered in backward": {
        "en": "one layer gathered again at a time, or two while the next is prefetched ({two_layers:,} "
        "bytes)",
        "vi": "mỗi lần chỉ gom lại một layer, hoặc hai khi layer tiếp theo đang được prefetch "
        "({two_layers:,} byte)",
    },
    "ch5:memory:gathered in backward:hint": {
        "en": "in backward, gather a layer's parameters when autograd unpacks them and let them go when "
        "its gradient is done: never the whole model at once.",
        "vi": "trong backward, hãy gom tham số của một layer khi autograd unpack chúng và bỏ chúng đi khi "
        "gradient của layer đó đã xong: không bao giờ gom cả mô hình cùng lúc.",
    },
    "ch5:memory:peak in forward:label": {"en": "peak in forward", "vi": "đỉnh trong forward"},
    "ch5:memory:peak in forward": {
        "en": "a single device's activations, the shards and their state, and one layer gathered at a "
        "time, or two while the next is prefetched ({two_layers:,} bytes)",
        "vi": "các activation của một thiết bị đơn, các shard và trạng thái của chúng, và mỗi lần một "
        "layer được gom, hoặc hai khi layer tiếp theo đang được prefetch ({two_layers:,} byte)",
    },
    "ch5:memory:peak in forward:hint": {
        "en": "gather a layer's parameters in its own forward pre-hook and release them after its "
        "forward, never the whole model at once.",
        "vi": "hãy gom tham số của một layer trong forward pre-hook của chính nó và giải phóng chúng sau "
        "forward của layer đó, không bao giờ gom cả mô hình cùng lúc.",
    },
}
