"""Chapter 4's graded hints and theory recaps, English and Vietnamese (see ``graders.words.hints``)."""

HINTS: dict[str, list[tuple[str, str]]] = {
    "param_server": [
        (
            "param_server_step's docstring lists the server's four steps and which parameters take part; the "
            "README's 'Parameter server' bullet says what the traffic must look like: a star around group "
            "rank 0.",
            "Docstring của param_server_step liệt kê bốn bước của server và những tham số nào tham gia; ý "
            "«Parameter server» trong README cho biết lưu lượng phải trông như thế nào: hình sao quanh rank "
            "0 của nhóm.",
        ),
        (
            "Pack the gradients of the parameters that have one into a single flat tensor per rank (one "
            "message instead of many), and the trainable parameters into another. The server receives one "
            "buffer from each worker, adds them to its own gradients, divides by the group size and writes "
            "the slices back into the .grad tensors.",
            "Gói gradient của các tham số có gradient thành một tensor phẳng duy nhất trên mỗi rank (một "
            "thông điệp thay cho nhiều), và các tham số huấn luyện được thành một tensor khác. Server nhận "
            "từ mỗi worker một bộ đệm, cộng vào gradient của chính nó, chia cho kích thước nhóm rồi chép "
            "từng đoạn về các tensor .grad.",
        ),
        (
            "Divide by N, not N - 1: the server's own gradient counts. Leave .grad as None where it is None: "
            "an optimizer skips a None gradient, but weight decay moves a parameter whose gradient is zero. "
            "Post the server's receives (irecv) before waiting on any; on the workers copy the received "
            "parameters into the existing tensors under torch.no_grad(), in the same flat order the server "
            "packed them.",
            "Chia cho N, không phải N - 1: gradient của chính server cũng được tính. Giữ .grad là None ở "
            "những chỗ nó đang là None: optimizer bỏ qua gradient None, nhưng weight decay vẫn làm thay đổi "
            "một tham số có gradient bằng 0. Server hãy gọi hết các lệnh nhận (irecv) trước khi chờ bất kỳ "
            "lệnh nào; trên các worker, chép tham số nhận được vào chính các tensor sẵn có trong "
            "torch.no_grad(), đúng thứ tự phẳng mà server đã gói.",
        ),
    ],
    "ddp": [
        (
            "Start from the DDP class docstring (training loop and contract) and the README's 'Buckets' "
            "paragraph; check its example by hand: sizes 12, 168, 28 B and a 100 B cap give buckets [12, "
            "168] and [28].",
            "Bắt đầu từ docstring của lớp DDP (vòng lặp huấn luyện và hợp đồng) và đoạn «Buckets» trong "
            "README; hãy tự kiểm tra ví dụ ở đó bằng tay: các kích thước 12, 168, 28 B với giới hạn 100 B "
            "cho ra các bucket [12, 168] và [28].",
        ),
        (
            "Build the buckets once, at construction: walk the trainable parameters in reverse order and "
            "close the open bucket right after the parameter that brings it to the cap. Register a "
            "post-accumulate-grad hook on every trainable parameter that counts the ready gradients of its "
            "bucket; when the count reaches the bucket's size, pack the bucket's gradients into one flat "
            "buffer and start an all-reduce with async_op=True, keeping the handle.",
            "Tạo các bucket một lần, lúc khởi tạo: duyệt các tham số huấn luyện được theo thứ tự ngược và "
            "đóng bucket đang mở ngay sau tham số làm nó đạt giới hạn. Đăng ký một post-accumulate-grad hook "
            "trên mỗi tham số huấn luyện được để đếm số gradient đã sẵn sàng trong bucket của nó; khi đủ, "
            "gói gradient của bucket thành một bộ đệm phẳng và khởi động all-reduce với async_op=True, nhớ "
            "giữ lại handle.",
        ),
        (
            "finish_gradient_synchronization(): launch the buckets that never completed (zeros for missing "
            "gradients), wait on every handle, divide by the group size, copy the slices back into the .grad "
            "tensors that exist (None stays None), and reset the counts. no_sync(): a flag the hooks read, "
            "so that they neither count nor launch inside it, restored on exit. Broadcast every parameter, "
            "frozen ones included, and the buffers in __init__.",
            "finish_gradient_synchronization(): khởi động các bucket chưa bao giờ đủ (điền 0 cho gradient bị "
            "thiếu), chờ mọi handle, chia cho kích thước nhóm, chép từng đoạn về các tensor .grad đang tồn "
            "tại (None vẫn là None), rồi đặt lại bộ đếm. no_sync(): một cờ mà các hook đọc, để bên trong nó "
            "hook không đếm cũng không khởi động gì, và cờ được khôi phục khi thoát. Trong __init__, "
            "broadcast mọi tham số, kể cả tham số bị đóng băng (frozen), và các buffer.",
        ),
    ],
    "fsdp": [
        (
            "The module docstring of fsdp.py fixes the flat layout exactly, and the README's hints name the "
            "two tools you need: torch.autograd.graph.saved_tensors_hooks and a custom "
            "torch.autograd.Function.",
            "Docstring của fsdp.py quy định chính xác bố cục phẳng, và các gợi ý trong README nêu tên hai "
            "công cụ bạn cần: torch.autograd.graph.saved_tensors_hooks và một torch.autograd.Function tự "
            "viết.",
        ),
        (
            "At construction, build the padded flat tensor, keep your slice of it as an nn.Parameter of its "
            "own (a clone, not a view), and remove the trainable parameters from their modules, under every "
            "name a tied weight lives. In forward, all-gather the shards into the full flat tensor through a "
            "custom autograd Function, set each module attribute to a view of it, run the module, then unset "
            "the attributes.",
            "Lúc khởi tạo, dựng tensor phẳng đã đệm, giữ phần của bạn thành một nn.Parameter riêng (một bản "
            "clone, không phải view), và gỡ các tham số huấn luyện được khỏi module của chúng, dưới mọi tên "
            "mà trọng số dùng chung (tied) xuất hiện. Trong forward, all-gather các shard thành tensor phẳng "
            "đầy đủ qua một autograd Function tự viết, gán mỗi thuộc tính của module bằng một view của nó, "
            "chạy module, rồi gỡ các thuộc tính đó đi.",
        ),
        (
            "The Function's backward receives the gradient of the full flat tensor: reduce-scatter it and "
            "divide by N, and it is the gradient of your shard. Autograd would otherwise save views of the "
            "gathered tensor for backward and keep it alive: in saved_tensors_hooks, pack such a view as "
            "where it sits (offset, shape, stride) and, in unpack, all-gather the flat parameter again (once "
            "per backward) and rebuild the view.",
            "backward của Function nhận gradient của cả tensor phẳng: reduce-scatter nó rồi chia cho N, ta "
            "được gradient của shard của bạn. Nếu không, autograd sẽ lưu các view của tensor đã gom cho "
            "backward và giữ nó sống: trong saved_tensors_hooks, pack một view như vậy thành vị trí của nó "
            "(offset, shape, stride), và trong unpack, all-gather lại tham số phẳng (một lần mỗi backward) "
            "rồi dựng lại view.",
        ),
    ],
}

RECAPS: dict[str, tuple[str, str]] = {
    "param_server": (
        "One synchronous step: group rank 0 receives every worker's gradients, averages them with its own "
        "into .grad, steps the only optimizer, and sends the parameters back.\n"
        "The average of N equal shares' gradients is the global batch's gradient: 3 steps must match one "
        "device.\n"
        "Only send/recv: the trace is a star around the server. Per step each worker sends all its "
        "gradients and receives all trainable parameters (at most 2 × model bytes + 256 B), whatever N.\n"
        "The server moves N - 1 times that: the bottleneck that all-reduce removes.\n"
        "A .grad that is None stays None (and sends nothing); frozen parameters never change.\n"
        "Usual mistakes: dividing by N - 1, zeroing a None gradient, global ranks inside a subgroup.",
        "Một bước đồng bộ: rank 0 của nhóm nhận gradient của mọi worker, lấy trung bình cùng gradient của "
        "chính nó vào .grad, chạy optimizer duy nhất, rồi gửi tham số về.\n"
        "Trung bình gradient của N phần dữ liệu bằng nhau là gradient của cả batch: 3 bước phải khớp với "
        "một thiết bị.\n"
        "Chỉ dùng send/recv: vết (trace) có hình sao quanh server. Mỗi bước, mỗi worker gửi hết gradient và "
        "nhận hết tham số huấn luyện được (tối đa 2 × số byte mô hình + 256 B), dù N bằng bao nhiêu.\n"
        "Server phải chuyển gấp N - 1 lần như thế: đó là điểm nghẽn mà all-reduce loại bỏ.\n"
        "Một .grad đang là None thì vẫn là None (và không gửi gì); tham số đóng băng (frozen) không bao giờ "
        "đổi.\n"
        "Lỗi thường gặp: chia cho N - 1, biến gradient None thành 0, dùng rank toàn cục trong nhóm con.",
    ),
    "ddp": (
        "DDP keeps a full replica per rank and averages the gradients with all-reduce during backward, so "
        "every rank takes the step one device would take.\n"
        "At construction it broadcasts every parameter (frozen ones too) and buffer from group rank 0.\n"
        "Buckets: trainable parameters in reverse order, closed at >= bucket_cap_mb · 2**20 bytes; "
        "'buckets' compares the all-reduce sizes exactly.\n"
        "Overlap: a bucket is launched from the hook of its last gradient, before the next gradient "
        "accumulates; finish_gradient_synchronization() only launches the buckets that could not complete, "
        "and waits.\n"
        "no_sync(): no call at all inside it; the next backward all-reduces the accumulated sums, one per "
        "bucket.\n"
        "A ring all-reduce costs each rank 2(N - 1)/N of the gradient bytes: no rank is special.\n"
        "Usual mistakes: no division by N, hooks counted inside no_sync(), every bucket launched after "
        "backward.",
        "DDP giữ một bản sao đầy đủ trên mỗi rank và lấy trung bình gradient bằng all-reduce ngay trong "
        "backward, để mọi rank thực hiện đúng bước mà một thiết bị sẽ làm.\n"
        "Lúc khởi tạo, DDP broadcast mọi tham số (kể cả tham số đóng băng) và buffer từ rank 0 của nhóm.\n"
        "Bucket: tham số huấn luyện được theo thứ tự ngược, đóng khi đạt >= bucket_cap_mb · 2**20 byte; "
        "phần 'buckets' so sánh chính xác kích thước các all-reduce.\n"
        "Overlap: một bucket được khởi động từ hook của gradient cuối cùng của nó, trước khi gradient kế "
        "tiếp được tích lũy; finish_gradient_synchronization() chỉ khởi động các bucket không thể đủ, rồi "
        "chờ.\n"
        "no_sync(): bên trong không có lời gọi giao tiếp nào; backward kế tiếp all-reduce tổng đã tích lũy, "
        "mỗi bucket một lần.\n"
        "Ring all-reduce tốn ở mỗi rank 2(N - 1)/N số byte gradient: không rank nào đặc biệt.\n"
        "Lỗi thường gặp: quên chia cho N, hook vẫn đếm trong no_sync(), khởi động mọi bucket sau backward.",
    ),
    "fsdp": (
        "Each rank keeps 1/N of the trainable parameters in one flat parameter: named_parameters order, "
        "tied once, flattened, zero-padded to N·S with S = ceil(total / N); rank r keeps [r·S, (r + 1)·S).\n"
        "Forward all-gathers the full flat parameter, runs the module on views of it, frees it; backward "
        "gathers it again and reduce-scatters the averaged gradient into flat_param.grad.\n"
        "Memory, every live storage counted: between steps the shard, its gradient and state, the frozen "
        "parameters; nothing gathered when forward returns; one gathered flat parameter at the peak of "
        "forward.\n"
        "Traffic: an all-gather of the whole shard in forward and again in backward, a reduce-scatter of "
        "the whole flat gradient, no all-reduce: 3 × (N - 1)/N of the parameter bytes against DDP's 2.\n"
        "Usual mistakes: the shard kept as a view (it keeps the whole tensor alive), autograd saving "
        "gathered views, an all-reduce, the tie between embedding and LM head lost.",
        "Mỗi rank giữ 1/N số tham số huấn luyện được trong một tham số phẳng: thứ tự named_parameters, tied "
        "chỉ tính một lần, làm phẳng, đệm 0 đến N·S với S = ceil(total / N); rank r giữ [r·S, (r + 1)·S).\n"
        "Forward all-gather tham số phẳng đầy đủ, chạy module trên các view của nó rồi giải phóng; backward "
        "gom lại lần nữa và reduce-scatter gradient trung bình vào flat_param.grad.\n"
        "Bộ nhớ, tính mọi storage còn sống: giữa các bước chỉ có shard, gradient và trạng thái optimizer "
        "của nó, cùng các tham số đóng băng; khi forward trả về không còn gì đã gom; ở đỉnh của forward chỉ "
        "một tham số phẳng đã gom.\n"
        "Lưu lượng: một all-gather cả shard trong forward và một lần nữa trong backward, một reduce-scatter "
        "cả gradient phẳng, không all-reduce: 3 × (N - 1)/N số byte tham số, so với 2 của DDP.\n"
        "Lỗi thường gặp: giữ shard dưới dạng view (giữ sống cả tensor), autograd lưu các view đã gom, dùng "
        "all-reduce, làm mất liên kết tied giữa embedding và LM head.",
    ),
}
