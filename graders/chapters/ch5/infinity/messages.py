"""Chapter 5's messages for ZeRO-Infinity (:mod:`.infinity_checks`), in English and Vietnamese."""

from __future__ import annotations

INFINITY_MESSAGES: dict[str, dict[str, str]] = {
    # -- paging ------------------------------------------------------------------------------
    "ch5:infinity:stray files": {
        "en": "rank {rank}, after step {step}: the drive holds {names}, which belong to no partition "
        "(files are named part<k>.<what>, k from 0 to {parts} - 1).",
        "vi": "rank {rank}, sau bước {step}: ổ đĩa chứa {names}, không thuộc phân vùng (partition) nào "
        "(tên file có dạng part<k>.<gì đó>, k từ 0 đến {parts} - 1).",
    },
    "ch5:infinity:names:hint": {
        "en": "name every file of partition k part{k}.<what>, temporary ones too (part{k}.<what>.tmp), "
        "and rename each temporary file onto its own before the step ends.",
        "vi": "đặt tên mọi file của phân vùng k là part{k}.<gì đó>, kể cả file tạm (part{k}.<gì đó>.tmp), "
        "và đổi tên mỗi file tạm thành file thật của nó trước khi bước kết thúc.",
    },
    "ch5:infinity:on drive": {
        "en": "rank {rank}, after step {step}: partition {k}'s files hold {held} bytes; its master and "
        "{states} optimizer state(s) per element take {want} bytes ({elements} elements × 4 bytes × "
        "(1 + {states})), plus a few bytes of scalars at most.",
        "vi": "rank {rank}, sau bước {step}: các file của phân vùng {k} chứa {held} byte; master và "
        "{states} trạng thái optimizer mỗi phần tử của nó chiếm {want} byte ({elements} phần tử × 4 byte "
        "× (1 + {states})), cộng thêm nhiều nhất vài byte cho các số vô hướng.",
    },
    "ch5:infinity:on drive:hint": {
        "en": "the drive holds the whole fp32 state of the shard after every step: each partition's master "
        "and every tensor of its optimizer state, once each, and nothing else.",
        "vi": "sau mỗi bước, ổ đĩa giữ toàn bộ trạng thái fp32 của shard: master của mỗi phân vùng và mọi "
        "tensor trạng thái optimizer của nó, mỗi thứ một lần, không gì khác.",
    },
    "ch5:infinity:read twice": {
        "en": "rank {rank}, step {step}: {names} read more than once in one step.",
        "vi": "rank {rank}, bước {step}: {names} được đọc nhiều hơn một lần trong một bước.",
    },
    "ch5:infinity:unread": {
        "en": "rank {rank}, step {step}: {names} never read in this step, so the step did not use what the "
        "drive holds.",
        "vi": "rank {rank}, bước {step}: {names} không hề được đọc trong bước này, nên bước này không dùng "
        "những gì ổ đĩa đang giữ.",
    },
    "ch5:infinity:reads:hint": {
        "en": "each step reads every file of every partition once, into tensors you allocate, and keeps "
        "nothing of the state in memory from one step to the next.",
        "vi": "mỗi bước đọc mọi file của mọi phân vùng đúng một lần, vào các tensor do bạn cấp phát, và "
        "không giữ lại gì của trạng thái trong bộ nhớ từ bước này sang bước sau.",
    },
    "ch5:infinity:not written back": {
        "en": "rank {rank}, step {step}: {names} not written in this step: the drive keeps an older "
        "step's values.",
        "vi": "rank {rank}, bước {step}: {names} không được ghi trong bước này: ổ đĩa giữ giá trị của một "
        "bước cũ hơn.",
    },
    "ch5:infinity:written twice": {
        "en": "rank {rank}, step {step}: {names} written more than once in one step.",
        "vi": "rank {rank}, bước {step}: {names} được ghi nhiều hơn một lần trong một bước.",
    },
    "ch5:infinity:writes:hint": {
        "en": "after stepping a partition, write its master and every state tensor back once (to a "
        "temporary name, then replace).",
        "vi": "sau khi step một phân vùng, ghi master và mọi tensor trạng thái của nó trở lại đúng một lần "
        "(vào một tên tạm, rồi replace).",
    },
    # -- prefetch ----------------------------------------------------------------------------
    "ch5:infinity:no step seen": {
        "en": "rank {rank}, step {step}: no step of optimizer_cls was seen on partition {k}'s master (the "
        "tensor the drive filled from part{k}.master, or a view of it).",
        "vi": "rank {rank}, bước {step}: không thấy lần step nào của optimizer_cls trên master của phân "
        "vùng {k} (tensor mà ổ đĩa đã nạp từ part{k}.master, hoặc một view của nó).",
    },
    "ch5:infinity:step:hint": {
        "en": "step each partition, in order, with optimizer_cls([master], **hparams) built over the tensor "
        "the drive filled, its state the one read from the drive.",
        "vi": "step từng phân vùng, theo thứ tự, bằng optimizer_cls([master], **hparams) dựng trên chính "
        "tensor mà ổ đĩa đã nạp, với trạng thái là trạng thái đọc từ ổ đĩa.",
    },
    "ch5:infinity:next unread": {
        "en": "rank {rank}, step {step}: partition {k} is never read.",
        "vi": "rank {rank}, bước {step}: phân vùng {k} không bao giờ được đọc.",
    },
    "ch5:infinity:read late": {
        "en": "rank {rank}, step {step}: {names} (partition {k} + 1) not read with read_async before "
        "partition {k} was stepped: the optimizer waits for the drive instead of computing meanwhile.",
        "vi": "rank {rank}, bước {step}: {names} (phân vùng {k} + 1) không được đọc bằng read_async trước "
        "khi step phân vùng {k}: optimizer phải chờ ổ đĩa thay vì tính toán trong lúc đó.",
    },
    "ch5:infinity:waited early": {
        "en": "rank {rank}, step {step}: {names} (partition {k} + 1) awaited before partition {k}'s step "
        "ended: the read and the step did not overlap.",
        "vi": "rank {rank}, bước {step}: {names} (phân vùng {k} + 1) bị chờ trước khi step của phân vùng "
        "{k} kết thúc: việc đọc và việc step không chồng lên nhau.",
    },
    "ch5:infinity:prefetch:hint": {
        "en": "once partition k is in memory, issue read_async for every file of partition k+1, then step "
        "and write back k, and only then wait() for k+1.",
        "vi": "khi phân vùng k đã ở trong bộ nhớ, gọi read_async cho mọi file của phân vùng k+1, rồi step và "
        "ghi lại k, và chỉ sau đó mới wait() cho k+1.",
    },
    # -- memory ------------------------------------------------------------------------------
    "ch5:infinity:resident": {
        "en": "rank {rank}, step {step}: {peak} bytes of tensors the drive read or wrote were alive at "
        "once; two partitions' masters and state take {limit}.",
        "vi": "rank {rank}, bước {step}: {peak} byte tensor mà ổ đĩa đã đọc hoặc ghi cùng sống một lúc; "
        "master và trạng thái của hai phân vùng chiếm {limit}.",
    },
    "ch5:infinity:memory:title": {
        "en": "ZeRO-Infinity on {n} rank(s)",
        "vi": "ZeRO-Infinity trên {n} rank",
    },
    "ch5:infinity:kept": {
        "en": "between steps the optimizer keeps two partitions' buffers at most, nothing else",
        "vi": "giữa các bước, optimizer giữ nhiều nhất bộ đệm của hai phân vùng, không gì khác",
    },
    "ch5:infinity:tampered": {
        "en": "graded code changed the drive's own bookkeeping ({names}): nothing it logged can be trusted.",
        "vi": "mã được chấm đã sửa sổ sách của chính ổ đĩa ({names}): không gì nó ghi lại còn đáng tin.",
    },
    "ch5:infinity:result:hint": {
        "en": "average the gradients over the group, and step each partition with the state read from the "
        "drive, its step counter included (a counter that restarts changes Adam's bias correction).",
        "vi": "lấy trung bình gradient trên nhóm, và step mỗi phân vùng với trạng thái đọc từ ổ đĩa, kể cả "
        "bộ đếm bước (một bộ đếm bắt đầu lại từ đầu sẽ làm sai hiệu chỉnh độ lệch của Adam).",
    },
    "ch5:infinity:memory:hint": {
        "en": "drop your references to partition k's tensors once they are written back (before reading "
        "k+2), keep no copy of the state in memory, and between steps keep two partitions' buffers at "
        "most.",
        "vi": "bỏ mọi tham chiếu tới các tensor của phân vùng k ngay khi chúng đã được ghi lại (trước khi "
        "đọc k+2), không giữ bản sao nào của trạng thái trong bộ nhớ, và giữa các bước chỉ giữ nhiều nhất "
        "bộ đệm của hai phân vùng.",
    },
    # -- ZeRO-3 ------------------------------------------------------------------------------
    "ch5:infinity:zero3:collective": {
        "en": "rank {rank} called {op} with sharded=True: ZeRO-3's module reduces the gradients and gathers "
        "the parameters, the optimizer only steps its shards.",
        "vi": "rank {rank} đã gọi {op} với sharded=True: module ZeRO-3 reduce gradient và gom tham số, "
        "optimizer chỉ step các shard của nó.",
    },
    "ch5:infinity:zero3:hint": {
        "en": "with sharded=True the parameters are this rank's shards and their gradients are reduced and "
        "averaged already: flatten them as they are (no padding), page them through the drive, and copy "
        "the updated values back into the shards in place.",
        "vi": "với sharded=True, các tham số là shard của rank này và gradient của chúng đã được reduce và "
        "lấy trung bình: hãy làm phẳng chúng như vốn có (không đệm), đưa chúng qua ổ đĩa, và chép giá trị "
        "đã cập nhật trở lại các shard tại chỗ.",
    },
    # -- crash -------------------------------------------------------------------------------
    "ch5:infinity:torn": {
        "en": "a write cut off half-way through the step ({raised}) left {names} shorter than the previous "
        "step wrote it: the file is torn, the state lost.",
        "vi": "một lần ghi bị cắt ngang giữa bước ({raised}) khiến {names} ngắn hơn lúc bước trước ghi nó: "
        "file bị rách, trạng thái bị mất.",
    },
    "ch5:infinity:crash:hint": {
        "en": "write each file under a temporary name and replace() it onto its own: a rename is atomic, so "
        "every file holds a whole step's values whenever the crash comes.",
        "vi": "ghi mỗi file dưới một tên tạm rồi replace() nó thành file thật: đổi tên là nguyên tử, nên dù "
        "sự cố xảy ra lúc nào thì mỗi file vẫn giữ trọn giá trị của một bước.",
    },
}
