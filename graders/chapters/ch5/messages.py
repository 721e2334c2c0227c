"""Chapter 5's teaching messages in English and Vietnamese (see :mod:`graders.words.messages`): those
of :mod:`.checks` here, those of the memory promises and the traffic patterns in their own modules.
"""

from __future__ import annotations

from graders.chapters.ch5.infinity.messages import INFINITY_MESSAGES
from graders.chapters.ch5.memory_messages import MEMORY_MESSAGES
from graders.chapters.ch5.traffic_messages import TRAFFIC_MESSAGES

MESSAGES: dict[str, dict[str, str]] = {
    # -- results: training like one device (checks.py) ------------------------------------------
    "ch5:returned nothing": {
        "en": "rank {rank} returned nothing to grade.",
        "vi": "rank {rank} không trả về gì để chấm.",
    },
    "ch5:zero:hint": {
        "en": "average the gradients over the group (sum, then divide by the group size) before stepping.",
        "vi": "hãy lấy trung bình gradient trên nhóm (group) (cộng lại, rồi chia cho kích thước nhóm) "
        "trước khi step.",
    },
    "ch5:zero3:hint": {
        "en": "the gradient of a gathered parameter is reduce-scattered and divided by the group size; "
        "a tied weight is one shard, gathered wherever it is used.",
        "vi": "gradient của một tham số đã gom được reduce-scatter rồi chia cho kích thước nhóm; một "
        "trọng số dùng chung (tied) là một shard, được gom ở bất cứ chỗ nào nó được dùng.",
    },
    "ch5:no grad:hint": {
        "en": "A parameter that gets no gradient may be skipped or stepped with a zero gradient, but "
        "frozen parameters (requires_grad=False) are never updated, and a tied weight is one parameter.",
        "vi": "Một tham số không nhận được gradient có thể được bỏ qua hoặc được step với gradient bằng "
        "0, nhưng các tham số bị đóng băng (requires_grad=False) không bao giờ được cập nhật, và một "
        "trọng số dùng chung (tied) chỉ là một tham số.",
    },
    # -- cross-check with torch's ZeroRedundancyOptimizer ---------------------------------------
    "ch5:vs torch zero": {
        "en": "rank {rank}, your Zero1Optimizer vs torch's ZeroRedundancyOptimizer",
        "vi": "rank {rank}, Zero1Optimizer của bạn so với ZeroRedundancyOptimizer của torch",
    },
    "ch5:vs torch zero:hint": {
        "en": "both start from the same model and average the same gradients.",
        "vi": "cả hai bắt đầu từ cùng một mô hình và lấy trung bình cùng các gradient.",
    },
    "ch5:state vs torch": {
        "en": "over all ranks your Zero1Optimizer holds {ours} bytes of optimizer state; torch's "
        "ZeroRedundancyOptimizer holds {theirs} (yours may exceed it by {allowance} for padding and "
        "parameters without gradient). Some state is replicated across ranks.\n",
        "vi": "tính trên mọi rank, Zero1Optimizer của bạn giữ {ours} byte trạng thái optimizer; "
        "ZeroRedundancyOptimizer của torch giữ {theirs} (của bạn được phép nhiều hơn tối đa {allowance} "
        "do padding và các tham số không có gradient). Một phần trạng thái đang bị lặp lại trên nhiều "
        "rank.\n",
    },
    "ch5:state vs torch:title": {"en": "optimizer state, {n} ranks", "vi": "trạng thái optimizer, {n} rank"},
    "ch5:state vs torch:yours": {"en": "your state", "vi": "trạng thái của bạn"},
    "ch5:state vs torch:torch's": {"en": "torch's state", "vi": "trạng thái của torch"},
    "ch5:state vs torch:hint": {
        "en": "each element's optimizer state lives on exactly one rank.",
        "vi": "trạng thái optimizer của mỗi phần tử chỉ nằm trên đúng một rank.",
    },
    # -- ZeRO-Offload ----------------------------------------------------------------------------
    "ch5:offload:hint": {
        "en": "master = param.float() once; each step master.grad = param.grad.float(), step on the "
        "masters, then param.copy_(master).",
        "vi": "master = param.float() một lần; mỗi bước gán master.grad = param.grad.float(), step trên "
        "các master, rồi param.copy_(master).",
    },
    "ch5:offload:masters per step": {
        "en": "after step {step}: the inner optimizer steps {count} tensor(s); expected one fp32 master "
        "per trained parameter ({n}: {names}), in order.",
        "vi": "sau bước {step}: optimizer bên trong step {count} tensor; cần đúng một master fp32 cho "
        "mỗi tham số được huấn luyện ({n}: {names}), theo đúng thứ tự.",
    },
    "ch5:offload:the masters": {"en": "the fp32 masters", "vi": "các master fp32"},
    "ch5:offload:the model": {"en": "the bf16 model", "vi": "mô hình bf16"},
    "ch5:placement:hint": {
        "en": "the host store holds fp32 copies; the device model stays bf16 and is updated in place.",
        "vi": "kho trên host giữ các bản sao fp32; mô hình trên device vẫn là bf16 và được cập nhật tại "
        "chỗ (in place).",
    },
    "ch5:placement:host:hint": {
        "en": "make each master on the host: p.detach().to(host, torch.float32, copy=True); a copy made "
        "next to the parameter (p.float(), p.clone()) stays on the device. (The graders keep the device "
        "and the host apart even on a machine with only a CPU.)",
        "vi": "hãy tạo mỗi master trên host: p.detach().to(host, torch.float32, copy=True); một bản sao "
        "tạo ngay cạnh tham số (p.float(), p.clone()) sẽ nằm lại trên device. (Bộ chấm vẫn tách riêng "
        "device và host, kể cả trên máy chỉ có CPU.)",
    },
    "ch5:placement:inner steps": {
        "en": "the optimizer built with optimizer_cls stepped {steps} time(s) in {total} training steps: "
        "the step must run in it, on the masters.",
        "vi": "optimizer tạo bằng optimizer_cls đã step {steps} lần trong {total} bước huấn luyện: bước "
        "cập nhật phải chạy trong optimizer đó, trên các master.",
    },
    "ch5:placement:master count": {
        "en": "the inner optimizer steps {count} tensors; expected one master per trained parameter ({n}).",
        "vi": "optimizer bên trong step {count} tensor; cần một master cho mỗi tham số được huấn luyện "
        "({n}).",
    },
    "ch5:placement:master of": {"en": "the master of {name!r}", "vi": "master của {name!r}"},
    "ch5:placement:master dtype": {
        "en": "{where} is {dtype}; master weights are float32.",
        "vi": "{where} có dtype {dtype}; trọng số master phải là float32.",
    },
    "ch5:placement:master on device": {
        "en": "{where} lives on the device, next to the model; the masters live in the host store.",
        "vi": "{where} nằm trên device, cạnh mô hình; các master phải nằm trong kho trên host.",
    },
    "ch5:placement:gradient on device": {
        "en": "the gradient of {where} is on the device; move each gradient to the host "
        "(p.grad.to(host, torch.float32)) before the step.",
        "vi": "gradient của {where} đang nằm trên device; hãy chuyển mỗi gradient sang host "
        "(p.grad.to(host, torch.float32)) trước khi step.",
    },
    "ch5:placement:shares memory": {
        "en": "{where} shares memory with the model's parameter: it must be a copy.",
        "vi": "{where} dùng chung bộ nhớ với tham số của mô hình: nó phải là một bản sao.",
    },
    "ch5:placement:state": {
        "en": "optimizer state of dtype {dtype} on the {where}: the state of fp32 masters is fp32 on the "
        "host.",
        "vi": "trạng thái optimizer có dtype {dtype} nằm trên {where}: trạng thái của các master fp32 phải "
        "là fp32 trên host.",
    },
    "ch5:placement:model dtype": {
        "en": "the model's parameter {name!r} became {dtype}; the device model stays bfloat16.",
        "vi": "tham số {name!r} của mô hình đã thành {dtype}; mô hình trên device phải giữ bfloat16.",
    },
    "ch5:placement:model on host": {
        "en": "the model's parameter {name!r} moved to the host; the model stays on the device.",
        "vi": "tham số {name!r} của mô hình đã bị chuyển sang host; mô hình phải ở lại trên device.",
    },
    "ch5:placement:model not in place": {
        "en": "the model's parameter {name!r} now lives in new memory; copy the master into it in place "
        "(param.copy_(master)) so the device keeps its own buffers.",
        "vi": "tham số {name!r} của mô hình giờ nằm ở vùng nhớ mới; hãy chép master vào nó tại chỗ "
        "(param.copy_(master)) để device giữ nguyên các buffer của mình.",
    },
    # -- the cost model --------------------------------------------------------------------------
    "ch5:stage:hint": {
        "en": "per parameter: 2 bytes of fp16 weights, 2 of fp16 gradients, K of optimizer state; stage 1 "
        "divides the K bytes by N, stage 2 the gradients too, stage 3 everything.",
        "vi": "mỗi tham số: 2 byte trọng số fp16, 2 byte gradient fp16, K byte trạng thái optimizer; "
        "stage 1 chia K byte cho N, stage 2 chia cả gradient, stage 3 chia tất cả.",
    },
    "ch5:comm:hint": {
        "en": "count passes of Φ elements, as the paper does (a ring's (N-1)/N rounded to 1): stages 0-2 "
        "send two per step (2Φ), stage 3 three (parameters gathered in forward and again in backward).",
        "vi": "hãy đếm số lượt truyền Φ phần tử như bài báo (hệ số (N-1)/N của ring làm tròn thành 1): "
        "các stage 0-2 gửi hai lượt mỗi bước (2Φ), stage 3 gửi ba lượt (tham số được gom trong forward "
        "và gom lại trong backward).",
    },
    "ch5:cost:raised": {
        "en": "{what}: raised {raised} for a valid stage.",
        "vi": "{what}: đã raise {raised} với một stage hợp lệ.",
    },
    "ch5:cost:no such stage": {
        "en": "stage {stage} does not exist: expected ValueError, got {got!r}.",
        "vi": "stage {stage} không tồn tại: cần ValueError, nhận được {got!r}.",
    },
    "ch5:cost:memory": {"en": "GB per GPU", "vi": "số GB mỗi GPU"},
    "ch5:tiers:what": {"en": "memory per tier", "vi": "bộ nhớ mỗi tầng"},
    "ch5:tiers:tier": {
        "en": "GB of model states per rank on the {tier} tier",
        "vi": "số GB trạng thái mô hình mỗi rank ở tầng {tier}",
    },
    "ch5:tiers:shape": {
        "en": "expected a dict with the keys 'gpu', 'cpu' and 'nvme' (GB on each tier), got {got!r}.",
        "vi": "cần một dict có các khóa 'gpu', 'cpu' và 'nvme' (số GB ở mỗi tầng), nhận được {got!r}.",
    },
    "ch5:tiers:no such offload": {
        "en": "offload {offload!r} does not exist: expected ValueError, got {got!r}.",
        "vi": "offload {offload!r} không tồn tại: cần ValueError, nhận được {got!r}.",
    },
    "ch5:tiers:hint": {
        "en": "per parameter: 2 bytes of fp16 parameters, 2 of fp16 gradients, K + 4 of fp32 optimizer "
        "states; ZeRO-Offload keeps the fp16 parameters and a 1/N partition of the gradients on the GPU, "
        "ZeRO-Infinity puts every partition on one tier (see the README's table).",
        "vi": "mỗi tham số: 2 byte tham số fp16, 2 byte gradient fp16, K + 4 byte trạng thái optimizer fp32; "
        "ZeRO-Offload giữ tham số fp16 và 1/N gradient trên GPU, ZeRO-Infinity đặt mọi phần (partition) "
        "lên một tầng (xem bảng trong README).",
    },
    "ch5:cost:memory unit": {"en": "GB per GPU (1 GB = 1e9 bytes)", "vi": "số GB mỗi GPU (1 GB = 1e9 byte)"},
    "ch5:cost:comm": {"en": "elements sent per GPU", "vi": "số phần tử mỗi GPU gửi"},
    "ch5:cost:comm unit": {
        "en": "elements sent per GPU per step",
        "vi": "số phần tử mỗi GPU gửi trong mỗi bước",
    },
    "ch5:cost:paper": {
        "en": "the ZeRO paper gives {printed} GB per GPU for stage {stage} (7.5B parameters, 64 GPUs, "
        "K = 12); your function gives {value!r}.",
        "vi": "bài báo ZeRO cho {printed} GB mỗi GPU ở stage {stage} (7.5B tham số, 64 GPU, K = 12); hàm "
        "của bạn cho {value!r}.",
    },
    **MEMORY_MESSAGES,
    **TRAFFIC_MESSAGES,
    **INFINITY_MESSAGES,
}
