"""The shared table of teaching messages (:data:`SHARED`), English and Vietnamese.

Keys said by the kit's shared judgements: comparisons (:mod:`graders.judge.checks`), traffic
(:mod:`graders.comm.assertions`, :mod:`graders.comm.overlap`), training histories and memory promises
(:mod:`graders.training`), and what the worker world reports (its own module,
:mod:`graders.words.world_messages`). Chapter keys live in ``graders/chapters/chN/messages.py``.
"""

from __future__ import annotations

from graders.words.world_messages import WORLD

_CHECKS: dict[str, dict[str, str]] = {
    # -- graders/judge/checks.py: values against the reference --------------------------------------
    "expected value": {
        "en": "{what}: expected {expected}, got {got}.",
        "vi": "{what}: cần {expected}, nhận được {got}.",
    },
    "expected shape": {
        "en": "{what}: expected shape {expected}, got {got}.",
        "vi": "{what}: cần shape {expected}, nhận được {got}.",
    },
    "expected dtype": {
        "en": "{what}: expected dtype {expected}, got {got}.",
        "vi": "{what}: cần dtype {expected}, nhận được {got}.",
    },
    "wrong values": {
        "en": "{what}: wrong values at {bad} of {numel} positions; first at index {index}: expected "
        "{expected!r}, got {got!r}.",
        "vi": "{what}: sai giá trị ở {bad} trên {numel} vị trí; vị trí sai đầu tiên là chỉ số {index}: cần "
        "{expected!r}, nhận được {got!r}.",
    },
    "preview window": {
        "en": "  flat positions {start}..{stop} of {numel}, first mismatch at {at}:\n",
        "vi": "  các vị trí phẳng {start}..{stop} trên {numel}, chỗ sai đầu tiên ở {at}:\n",
    },
    "preview": {
        "en": "  expected {expected}\n  got      {got}",
        "vi": "  cần       {expected}\n  nhận được {got}",
    },
    "modified input": {
        "en": "{what} was modified, but the function must leave its input unchanged.",
        "vi": "{what} đã bị thay đổi, nhưng hàm phải giữ nguyên đầu vào.",
    },
    "modified input:hint": {
        "en": "work on a copy (tensor.clone()) or on freshly allocated buffers.",
        "vi": "hãy làm việc trên một bản sao (tensor.clone()) hoặc trên buffer mới cấp phát.",
    },
    "expected a number": {
        "en": "{what}: expected a number, got {got!r}.",
        "vi": "{what}: cần một số, nhận được {got!r}.",
    },
    "describe:tensor": {
        "en": "a {dtype} tensor of shape {shape}",
        "vi": "một tensor {dtype} có shape {shape}",
    },
    "describe:object": {"en": "a {type}", "vi": "một đối tượng {type}"},
}

_TRAFFIC: dict[str, dict[str, str]] = {
    # -- graders/comm/overlap.py: a bucket launched after backward moved on ---------------------
    "late bucket": {
        "en": "bucket [{names}] had all its gradients, but {when} only {launched} {collective}(s) had "
        "been launched for the {completed} complete bucket(s): its {collective} waited for backward "
        "instead of overlapping it.",
        "vi": "bucket [{names}] đã có đủ gradient, nhưng {when} mới chỉ có {launched} lần {collective} "
        "được khởi chạy cho {completed} bucket đã đủ gradient: {collective} của nó đã chờ backward thay "
        "vì chạy chồng lấp (overlap) với backward.",
    },
    "late bucket:when accumulating": {
        "en": "when the gradient of {name} began to accumulate",
        "vi": "khi gradient của {name} bắt đầu được tích lũy",
    },
    "late bucket:when backward returned": {"en": "when backward returned", "vi": "khi backward trả về"},
    # -- graders/comm/assertions.py: who talks to whom, how much, in how many rounds ----------------
    "ring:sent off the ring": {
        "en": "rank {rank} sent {count} message(s) to rank {peer}: a ring only talks to its right "
        "neighbour (rank {right}).",
        "vi": "rank {rank} đã gửi {count} thông điệp tới rank {peer}: trong một ring, mỗi rank chỉ gửi cho "
        "hàng xóm bên phải (rank {right}).",
    },
    "ring:sent off the ring:hint": {
        "en": "in group-rank order, rank r sends to (r + 1) % world and receives from (r - 1) % world.",
        "vi": "theo thứ tự rank trong nhóm (group), rank r gửi tới (r + 1) % world và nhận từ "
        "(r - 1) % world.",
    },
    "ring:received off the ring": {
        "en": "rank {rank} received from rank {peer}: a ring only receives from its left neighbour "
        "(rank {left}).",
        "vi": "rank {rank} đã nhận từ rank {peer}: trong một ring, mỗi rank chỉ nhận từ hàng xóm bên trái "
        "(rank {left}).",
    },
    "messages:with data": {"en": "{count} message(s) with data", "vi": "{count} thông điệp có dữ liệu"},
    "messages:and empty": {"en": " and {count} empty one(s)", "vi": " và {count} thông điệp rỗng"},
    "messages:per rank": {
        "en": "rank {rank} sent {seen}; this algorithm takes exactly {expected} with data.",
        "vi": "rank {rank} đã gửi {seen}; thuật toán này cần đúng {expected} thông điệp có dữ liệu.",
    },
    "messages:in total": {
        "en": "{seen} were sent in total; a tree over {n} ranks sends exactly {expected} with data.",
        "vi": "tổng cộng đã gửi {seen}; một cây (tree) trên {n} rank gửi đúng {expected} thông điệp có "
        "dữ liệu.",
    },
    "bytes:sent at most": {
        "en": "rank {rank} sent {sent} bytes; the algorithm needs at most {limit}.",
        "vi": "rank {rank} đã gửi {sent} byte; thuật toán chỉ cần tối đa {limit}.",
    },
    "bytes:sent at least": {
        "en": "rank {rank} sent {sent} bytes; the others cannot get their results unless it sends at "
        "least {need}.",
        "vi": "rank {rank} đã gửi {sent} byte; các rank khác không thể có kết quả nếu nó không gửi ít "
        "nhất {need}.",
    },
    "bytes:received at least": {
        "en": "rank {rank} received {received} bytes; it cannot have its result unless it receives at "
        "least {need}.",
        "vi": "rank {rank} đã nhận {received} byte; nó không thể có kết quả nếu không nhận ít nhất {need}.",
    },
    "bytes:sent to each": {
        "en": "rank {src} sent {sent} bytes to rank {dst}, which needs at least {need} from it.",
        "vi": "rank {src} đã gửi {sent} byte tới rank {dst}, trong khi rank {dst} cần ít nhất {need} byte "
        "từ nó.",
    },
    "calls:exactly": {
        "en": "in {direction}, rank {rank} called {got}; the lesson needs exactly {expected}, and nothing "
        "else.",
        "vi": "trong {direction}, rank {rank} đã gọi {got}; bài học chỉ cần đúng {expected}, và không gì "
        "khác.",
    },
    "calls:other group": {
        "en": " The calls must run on the group {group}, not on {other}.",
        "vi": " Các lời gọi phải chạy trên nhóm {group}, không phải trên {other}.",
    },
    "bytes:moved at most": {
        "en": "rank {rank} sent and received {moved} B in all; it needs at most {limit} B.",
        "vi": "rank {rank} đã gửi và nhận tổng cộng {moved} B; nó chỉ cần tối đa {limit} B.",
    },
    "rounds at most": {
        "en": "the data needed {rounds} communication rounds to reach every rank; a binomial tree needs "
        "at most {bound}.",
        "vi": "dữ liệu cần {rounds} vòng truyền thông để tới được mọi rank; một cây nhị thức (binomial "
        "tree) chỉ cần tối đa {bound}.",
    },
    "self message": {
        "en": "rank {rank} sent a message to itself; copy locally instead.",
        "vi": "rank {rank} đã gửi một thông điệp cho chính nó; hãy sao chép cục bộ thay vì gửi.",
    },
    "star:sent": {
        "en": "rank {rank} sent {nbytes} B to rank {peer}: in this pattern every message goes to or comes "
        "from rank {hub}.",
        "vi": "rank {rank} đã gửi {nbytes} B tới rank {peer}: trong mô hình này mọi thông điệp đều đi tới "
        "hoặc đến từ rank {hub}.",
    },
    "star:received": {
        "en": "rank {rank} received {nbytes} B from rank {peer}: in this pattern every message goes to or "
        "comes from rank {hub}.",
        "vi": "rank {rank} đã nhận {nbytes} B từ rank {peer}: trong mô hình này mọi thông điệp đều đi tới "
        "hoặc đến từ rank {hub}.",
    },
}

_TRAINING: dict[str, dict[str, str]] = {
    # -- graders/training/history.py: parameters after every step -----------------------------------
    "history:steps": {
        "en": "{who}: expected the parameters after each of {steps} steps, got {history!r:.80}.",
        "vi": "{who}: cần các tham số sau từng bước trong {steps} bước, nhận được {history!r:.80}.",
    },
    "history:named": {
        "en": "{who}, after step {step}: expected named parameters, got {got!r:.80}.",
        "vi": "{who}, sau bước {step}: cần các tham số có tên, nhận được {got!r:.80}.",
    },
    "history:missing": {
        "en": "{who}, after step {step}: no value for parameter(s) {missing}.",
        "vi": "{who}, sau bước {step}: thiếu giá trị của (các) tham số {missing}.",
    },
    "history:parameter": {
        "en": "{who}, after step {step} of {last}: parameter {name!r}",
        "vi": "{who}, sau bước {step}/{last}: tham số {name!r}",
    },
    # -- graders/training/memory_promises.py and ledger.py: memory against the lesson's promise --------
    "live:kept": {"en": "kept alive between two steps", "vi": "còn được giữ giữa hai bước"},
    "live:state": {
        "en": "born in a step and still alive one step later",
        "vi": "được tạo trong một bước và vẫn còn tồn tại ở bước sau",
    },
    "live:at_forward_end": {"en": "alive when forward returned", "vi": "còn tồn tại khi forward trả về"},
    "live:grads_at_backward_end": {
        "en": "born in backward and still alive when it returned",
        "vi": "được tạo trong backward và vẫn còn tồn tại khi backward trả về",
    },
    "live:on_the_wire": {
        "en": "held by asynchronous collectives at once",
        "vi": "do các collective bất đồng bộ giữ cùng một lúc",
    },
    "live:peak": {"en": "alive at the peak of {phase}", "vi": "còn tồn tại tại đỉnh của {phase}"},
    "live:fresh": {
        "en": "born in {phase} and alive at once",
        "vi": "được tạo trong {phase} và cùng tồn tại một lúc",
    },
    "live:gathered": {
        "en": "gathered by all-gathers and alive at once in {phase}",
        "vi": "được các all-gather gom về và cùng tồn tại một lúc trong {phase}",
    },
    "promise:on a rank": {
        "en": "rank {rank}: {got:,} bytes {said}; the promise is {what}: at most {limit:,}.",
        "vi": "rank {rank}: {got:,} byte {said}; cam kết là {what}: tối đa {limit:,}.",
    },
    "promise:in total": {
        "en": "the ranks together have {total:,} bytes {said} ({shares}); the promise is {what}: at most "
        "{limit:,} over all {n} ranks, each element on one rank only.",
        "vi": "các rank cộng lại có {total:,} byte {said} ({shares}); cam kết là {what}: tối đa {limit:,} "
        "trên cả {n} rank, mỗi phần tử chỉ nằm trên một rank.",
    },
    "promise:picture": {"en": "{title}, live memory", "vi": "{title}, bộ nhớ đang dùng"},
    "bars:head": {
        "en": "{title}, bytes per rank   █ measured   ┃ promised limit",
        "vi": "{title}, byte mỗi rank   █ đo được   ┃ giới hạn cam kết",
    },
    "bars:sum": {"en": "sum", "vi": "tổng"},
}

#: what the harness says before any worker runs (graders/plugin/harness.py)
_SUBMISSION: dict[str, dict[str, str]] = {
    "submission:does not compile": {
        "en": "{exercise}: {file} does not compile ({error}).",
        "vi": "{exercise}: {file} không biên dịch được ({error}).",
    },
    "submission:goes around the guard": {
        "en": "{exercise}: the code of {symbol} goes around the graders' guard:\n{listing}",
        "vi": "{exercise}: mã của {symbol} đi vòng qua lớp bảo vệ của bộ chấm:\n{listing}",
    },
    "submission:goes around the guard:hint": {
        "en": "use only the public torch.distributed calls the exercise allows; these constructs are not "
        "accepted in a submission.",
        "vi": "chỉ dùng các lời gọi công khai của torch.distributed mà bài tập cho phép; những cấu trúc này "
        "không được chấp nhận trong bài nộp.",
    },
}

SHARED: dict[str, dict[str, str]] = {**_CHECKS, **_TRAFFIC, **_TRAINING, **_SUBMISSION, **WORLD}
