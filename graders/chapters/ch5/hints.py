"""Chapter 5's graded hints and theory recaps, English and Vietnamese (see ``graders.words.hints``)."""

HINTS: dict[str, list[tuple[str, str]]] = {
    "zero1": [
        (
            "Read the README's 'Sharding' and 'Stage 1' paragraphs and the conventions at the top of "
            "zero.py; do the shard arithmetic (chunk size, padded size, your slice) on paper for 5 elements "
            "on 2 ranks.",
            "Đọc các đoạn «Sharding» và «Stage 1» trong README cùng các quy ước ở đầu zero.py; làm phép tính "
            "shard (kích thước chunk, kích thước sau khi đệm, phần của bạn) trên giấy với 5 phần tử trên 2 "
            "rank.",
        ),
        (
            "At construction, keep the trainable parameters once each (requires_grad, tied once, in the "
            "given order), build their padded flat copy, and make your chunk an nn.Parameter of its own (a "
            "clone, not a view of the model) for optimizer_cls. In step(), flatten the gradients into one "
            "padded buffer, with zeros where p.grad is None.",
            "Lúc khởi tạo, giữ các tham số huấn luyện được, mỗi tham số một lần (requires_grad, tied chỉ một "
            "lần, theo thứ tự đã cho), dựng bản sao phẳng đã đệm của chúng, và biến chunk của bạn thành một "
            "nn.Parameter riêng (một bản clone, không phải view của mô hình) để đưa cho optimizer_cls. Trong "
            "step(), làm phẳng các gradient thành một bộ đệm đã đệm, điền 0 ở chỗ p.grad là None.",
        ),
        (
            "In step(): reduce-scatter the flat gradient into a chunk-sized buffer, divide it by the group "
            "size (the collective only sums), make it the owned shard's .grad, step the inner optimizer, "
            "then all-gather the owned shards into a padded flat buffer and copy the slices back into the "
            "parameters under torch.no_grad(). No all-reduce: it would hand every rank the whole average.",
            "Trong step(): reduce-scatter gradient phẳng vào một bộ đệm cỡ một chunk, chia cho kích thước "
            "nhóm (phép tập thể chỉ cộng), gán nó làm .grad của shard bạn sở hữu, chạy optimizer bên trong, "
            "rồi all-gather các shard vào một bộ đệm phẳng đã đệm và chép từng đoạn về các tham số trong "
            "torch.no_grad(). Không dùng all-reduce: nó trao cho mọi rank toàn bộ trung bình.",
        ),
    ],
    "zero2": [
        (
            "Get ZeRO-1 passing first: stage 2 keeps its shard arithmetic and its step(), and moves the "
            "reduction into backward. Reread the class docstring ('Buckets', 'During backward') and the "
            "README's ZeRO-2 hints.",
            "Hãy làm cho ZeRO-1 đạt trước: giai đoạn 2 giữ nguyên phép tính shard và step() của nó, chỉ "
            "chuyển phép reduce vào trong backward. Đọc lại docstring của lớp (các đoạn «Buckets», «During "
            "backward») và các gợi ý ZeRO-2 trong README.",
        ),
        (
            "Build the buckets at construction, each sharded like ZeRO-1's flat buffer with its own owned "
            "chunk for the inner optimizer, and register a post-accumulate-grad hook on every trained "
            "parameter that counts arrivals per bucket. When a bucket is complete, flatten its gradients, "
            "set their .grad to None, and launch its reduce-scatter with async_op=True.",
            "Tạo các bucket lúc khởi tạo, mỗi bucket được chia shard như bộ đệm phẳng của ZeRO-1, có chunk "
            "riêng cho optimizer bên trong, và đăng ký một post-accumulate-grad hook trên mỗi tham số được "
            "huấn luyện để đếm số gradient đã đến của từng bucket. Khi một bucket đủ, làm phẳng các gradient "
            "của nó, đặt .grad của chúng thành None, rồi khởi động reduce-scatter với async_op=True.",
        ),
        (
            "Memory is the point: when you launch a bucket, wait for the one launched before it and drop its "
            "input buffer, keeping only its reduced chunk (an async collective's input must stay alive until "
            "its wait()). In step(), first launch the buckets that never completed (zeros for the missing "
            "gradients), wait for the last one, divide every chunk by N, step, then all-gather; reset the "
            "counts for the next backward.",
            "Bộ nhớ là mấu chốt: khi khởi động một bucket, hãy chờ bucket được khởi động trước nó và bỏ bộ "
            "đệm đầu vào của bucket đó, chỉ giữ chunk đã reduce (đầu vào của một phép tập thể bất đồng bộ "
            "phải còn sống đến khi wait()). Trong step(), trước hết khởi động các bucket chưa bao giờ đủ "
            "(điền 0 cho gradient bị thiếu), chờ bucket cuối, chia mỗi chunk cho N, chạy optimizer, rồi "
            "all-gather; đặt lại bộ đếm cho backward sau.",
        ),
    ],
    "zero3": [
        (
            "Read the README's 'Stage 3' paragraph, the class docstring and the two ZeRO-3 hints: forward "
            "hooks to gather and release, a small autograd Function, and saved_tensors_hooks.",
            "Đọc đoạn «Stage 3» trong README, docstring của lớp và hai gợi ý ZeRO-3: các forward hook để gom "
            "và giải phóng, một autograd Function nhỏ, và saved_tensors_hooks.",
        ),
        (
            "At construction, shard every parameter (tied once) into an nn.Parameter of its own and delete "
            "the parameters from their modules' _parameters, leaving plain attributes. A forward pre-hook on "
            "each layer sets them to the gathered tensors, a forward hook sets them back to None. Gather "
            "through an autograd Function whose forward all-gathers the shard and whose backward "
            "reduce-scatters the gradient and divides by N: the shard's .grad then fills itself.",
            "Lúc khởi tạo, chia shard mọi tham số (tied chỉ một lần) thành các nn.Parameter riêng và xóa các "
            "tham số khỏi _parameters của module chứa chúng, để lại các thuộc tính thường. Một forward "
            "pre-hook trên mỗi lớp gán chúng bằng các tensor đã gom, một forward hook gán lại None. Gom qua "
            "một autograd Function có forward all-gather shard và backward reduce-scatter gradient rồi chia "
            "cho N: khi đó .grad của shard tự được điền.",
        ),
        (
            "Autograd saves the gathered weight a layer used, which would keep every layer gathered until "
            "backward. Wrap the module's forward in torch.autograd.graph.saved_tensors_hooks: pack "
            "recognises a gathered parameter by its storage and returns a small key (which parameter, size, "
            "stride, offset); unpack all-gathers it again. A tied weight is one shard, gathered by every "
            "layer that uses it.",
            "Autograd lưu trọng số đã gom mà một lớp đã dùng, điều này sẽ giữ mọi lớp ở trạng thái đã gom "
            "cho đến backward. Bọc forward của module trong torch.autograd.graph.saved_tensors_hooks: pack "
            "nhận ra một tham số đã gom qua storage của nó và trả về một khóa nhỏ (tham số nào, size, "
            "stride, offset); unpack all-gather lại nó. Trọng số tied là một shard, được gom bởi mọi lớp "
            "dùng nó.",
        ),
    ],
    "offload": [
        (
            "OffloadOptimizer's docstring lists the casts exactly; the README's 'Placement' paragraph says "
            "how the graders tell the host from the device on a machine with only a CPU.",
            "Docstring của OffloadOptimizer liệt kê chính xác các phép ép kiểu; đoạn «Placement» trong "
            "README giải thích cách bộ chấm phân biệt host với thiết bị (device) trên một máy chỉ có CPU.",
        ),
        (
            "Construction: the trained parameters once each, one fp32 master per parameter made on the host "
            "as a copy, and the inner optimizer built over the masters. step(): each master's .grad is its "
            "parameter's gradient moved to the host as fp32 (None stays None), then the inner step runs on "
            "the host.",
            "Khởi tạo: các tham số được huấn luyện, mỗi tham số một lần, mỗi tham số một master fp32 tạo "
            "trên host dưới dạng bản sao, và optimizer bên trong được dựng trên các master. step(): .grad "
            "của mỗi master là gradient của tham số tương ứng chuyển sang host ở dạng fp32 (None vẫn là "
            "None), rồi optimizer bên trong chạy trên host.",
        ),
        (
            "Name the host whenever you copy to it: p.float() or p.clone() stay on the device. Write back "
            "with an in-place copy into the bf16 parameter under torch.no_grad() (the cast rounds to "
            "nearest), so the model keeps its own tensors. zero_grad() clears both the model's and the "
            "masters' gradients.",
            "Luôn nêu rõ host khi sao chép sang đó: p.float() hay p.clone() vẫn nằm trên thiết bị. Ghi ngược "
            "bằng một phép chép tại chỗ vào tham số bf16 trong torch.no_grad() (ép kiểu làm tròn về giá trị "
            "gần nhất), để mô hình giữ nguyên các tensor của nó. zero_grad() xóa gradient của cả mô hình lẫn "
            "các master.",
        ),
    ],
    "infinity": [
        (
            "Read infinity.py's module docstring and the README's 'ZeRO-Infinity' paragraph: the shard "
            "is ZeRO's, cut into partitions of partition_numel elements; partition k's files are "
            "part{k}.<what>. Draw the step as a timeline: read k, step k, write k, and where the read of "
            "k+1 fits.",
            "Đọc docstring của infinity.py và đoạn «ZeRO-Infinity» trong README: shard là shard của ZeRO, "
            "được cắt thành các phân vùng (partition) gồm partition_numel phần tử; các file của phân vùng "
            "k là part{k}.<gì đó>. Vẽ bước cập nhật thành một dòng thời gian: đọc k, step k, ghi k, và "
            "việc đọc k+1 nằm ở đâu.",
        ),
        (
            "Construction writes each partition's fp32 master (one partition's copy at a time). In step(): "
            "reduce-scatter the averaged gradients, then for each partition wait for its reads, issue "
            "read_async for every file of the next one into fresh tensors, step this one with "
            "optimizer_cls([master]) whose state is the one you read (the first step has none), write each "
            "tensor to part{k}.<what>.tmp and replace() it onto part{k}.<what>, del your references, and "
            "finally all-gather the updated shards into the parameters.",
            "Lúc khởi tạo, ghi master fp32 của từng phân vùng (mỗi lần chỉ sao chép một phân vùng). Trong "
            "step(): reduce-scatter các gradient đã lấy trung bình, rồi với mỗi phân vùng: chờ các lần đọc "
            "của nó, gọi read_async cho mọi file của phân vùng kế tiếp vào các tensor mới, step phân vùng "
            "này bằng optimizer_cls([master]) với trạng thái vừa đọc (bước đầu tiên chưa có trạng thái), "
            "ghi mỗi tensor vào part{k}.<gì đó>.tmp rồi replace() thành part{k}.<gì đó>, del các tham "
            "chiếu, và cuối cùng all-gather các shard đã cập nhật vào các tham số.",
        ),
    ],
    "zero_memory_per_gpu": [
        (
            "The README's table 'Where the memory goes' has one row per stage, and zero_cost.py's docstring "
            "gives the notation; check your function against the paper's 120 / 31.4 / 16.6 / 1.9 GB.",
            "Bảng «Where the memory goes» trong README có một dòng cho mỗi giai đoạn, và docstring của "
            "zero_cost.py cho ký hiệu; hãy đối chiếu hàm của bạn với các số 120 / 31.4 / 16.6 / 1.9 GB của "
            "bài báo.",
        ),
        (
            "Write the three terms per parameter (2 bytes of weights, 2 of gradients, K of optimizer state) "
            "and decide, stage by stage, which of them are divided by N. Stage 1 divides only K; each later "
            "stage divides one more term. GB here is 1e9 bytes, and any stage but the integers 0-3 (1.5 "
            "included) raises ValueError.",
            "Viết ba thành phần cho mỗi tham số (2 byte trọng số, 2 byte gradient, K byte trạng thái "
            "optimizer) và quyết định, theo từng giai đoạn, thành phần nào được chia cho N. Giai đoạn 1 chỉ "
            "chia K; mỗi giai đoạn sau chia thêm một thành phần. GB ở đây là 1e9 byte, và mọi giai đoạn "
            "ngoài các số nguyên 0-3 (kể cả 1.5) phải ném ValueError.",
        ),
    ],
    "zero_comm_volume": [
        (
            "The README's 'Stage 1', 'Stage 2' and 'Stage 3' paragraphs each end with the volume; the API "
            "table says how the paper rounds it.",
            "Mỗi đoạn «Stage 1», «Stage 2» và «Stage 3» trong README đều kết thúc bằng khối lượng truyền "
            "thông; bảng API cho biết bài báo làm tròn nó ra sao.",
        ),
        (
            "Count passes over the parameters: a reduce-scatter or an all-gather of Φ elements is one pass, "
            "Φ (not (N - 1)/N · Φ) in this model, and an all-reduce is two. Stage 3 gathers the parameters "
            "twice (forward and backward). One GPU sends 0; any stage but the integers 0-3 raises "
            "ValueError.",
            "Đếm số lượt đi qua các tham số: một reduce-scatter hay một all-gather Φ phần tử là một lượt, "
            "tính là Φ (không phải (N - 1)/N · Φ) trong mô hình này, còn all-reduce là hai lượt. Giai đoạn 3 "
            "gom tham số hai lần (forward và backward). Một GPU thì gửi 0; mọi giai đoạn ngoài các số nguyên "
            "0-3 phải ném ValueError.",
        ),
    ],
    "offload_memory_per_gpu": [
        (
            "The README's table 'Offload tiers' gives the bytes per parameter of each model state and where "
            "each setup keeps it; zero_cost.py's docstring gives the notation. Check: with ZeRO-Infinity the "
            "three tiers of all N ranks add up to 20 bytes per parameter (K = 12).",
            "Bảng «Offload tiers» trong README cho số byte mỗi tham số của từng trạng thái mô hình và nơi "
            "mỗi cấu hình giữ nó; docstring của zero_cost.py cho ký hiệu. Kiểm tra: với ZeRO-Infinity, ba "
            "tầng của cả N rank cộng lại là 20 byte mỗi tham số (K = 12).",
        ),
        (
            "Write the three model states in bytes first: fp16 parameters 2Φ, fp16 gradients 2Φ, optimizer "
            "states (K + 4)Φ. ZeRO-Offload: GPU = 2Φ + 2Φ/N, CPU = (K + 4)Φ/N. ZeRO-Infinity: all of it "
            "divided by N, on the one tier named. Return GB (divide by 1e9) in a dict with the keys 'gpu', "
            "'cpu', 'nvme', and raise ValueError for an unknown offload.",
            "Viết ba trạng thái mô hình theo byte trước: tham số fp16 2Φ, gradient fp16 2Φ, trạng thái "
            "optimizer (K + 4)Φ. ZeRO-Offload: GPU = 2Φ + 2Φ/N, CPU = (K + 4)Φ/N. ZeRO-Infinity: tất cả chia "
            "cho N, trên đúng tầng được nêu. Trả về GB (chia cho 1e9) trong một dict có các khóa 'gpu', "
            "'cpu', 'nvme', và raise ValueError với offload không biết.",
        ),
    ],
}

RECAPS: dict[str, tuple[str, str]] = {
    "zero1": (
        "Stage 1 partitions the optimizer state: backward is untouched, and step() needs only the averaged "
        "gradient of the elements a rank owns.\n"
        "Shard: flatten, pad to a multiple of N, rank r owns chunk r (per-parameter or greedy partitions "
        "are accepted too).\n"
        "step(): reduce-scatter the gradients (sum, then divide by N), step an optimizer built over the "
        "owned shard, all-gather the shards into the parameters, in place.\n"
        "Traffic: no all-reduce; at most a reduce-scatter plus an all-gather of the padded partitions, "
        "every rank's whole gradient reduced and every element gathered, every step: what DDP's all-reduce "
        "costs.\n"
        "Memory: between steps the partition, its gradient and its optimizer state; 'crosscheck' compares "
        "with torch's ZeroRedundancyOptimizer.\n"
        "Usual mistakes: a missing 1/N (Adam hides it, SGD with momentum does not), an optimizer over the "
        "full parameters, the shard as a view of the model.",
        "Giai đoạn 1 phân mảnh trạng thái optimizer: backward giữ nguyên, và step() chỉ cần gradient trung "
        "bình của các phần tử mà rank sở hữu.\n"
        "Shard: làm phẳng, đệm đến bội số của N, rank r sở hữu chunk r (chia theo từng tham số hay chia "
        "tham lam cũng được chấp nhận).\n"
        "step(): reduce-scatter gradient (cộng rồi chia cho N), chạy một optimizer dựng trên shard sở hữu, "
        "all-gather các shard vào tham số, tại chỗ.\n"
        "Lưu lượng: không all-reduce; tối đa một reduce-scatter và một all-gather các phân vùng đã đệm, mỗi "
        "bước gradient đầy đủ của mọi rank đều được reduce và mọi phần tử đều được gom: đúng bằng chi phí "
        "all-reduce của DDP.\n"
        "Bộ nhớ: giữa các bước chỉ có phân vùng, gradient và trạng thái optimizer của nó; phần 'crosscheck' "
        "so với ZeroRedundancyOptimizer của torch.\n"
        "Lỗi thường gặp: thiếu phép chia 1/N (Adam che giấu, SGD có momentum thì không), optimizer dựng "
        "trên toàn bộ tham số, shard là view của mô hình.",
    ),
    "zero2": (
        "Stage 2 partitions the gradients too: they are reduce-scattered during backward, bucket by bucket, "
        "and the full gradients are dropped.\n"
        "Buckets: trained parameters in reverse order, closed at >= bucket_cap_mb · 2**20 bytes; a hook "
        "launches a bucket's reduce-scatter (async) as soon as its last gradient arrives and sets its .grad "
        "to None.\n"
        "Keep one bucket on the wire; a bucket that waits for a missing gradient is reduced at the start of "
        "step().\n"
        "Traffic: no all-reduce, one reduce-scatter per bucket of that bucket's size, each launched before "
        "the next gradient is computed; still 2(N - 1)/N · Φ.\n"
        "Memory: when backward ends, only the reduced chunks, the last bucket in flight and the buckets "
        "waiting for a missing gradient; in backward, no more gradient memory than three buckets.\n"
        "Usual mistakes: every bucket's buffer kept until step(), an all-reduce, p.grad left set, a bucket "
        "that waits forever.",
        "Giai đoạn 2 phân mảnh cả gradient: chúng được reduce-scatter ngay trong backward, từng bucket một, "
        "và gradient đầy đủ bị bỏ đi.\n"
        "Bucket: tham số được huấn luyện theo thứ tự ngược, đóng khi đạt >= bucket_cap_mb · 2**20 byte; một "
        "hook khởi động reduce-scatter (bất đồng bộ) của bucket ngay khi gradient cuối của nó đến và đặt "
        ".grad của chúng thành None.\n"
        "Chỉ giữ một bucket trên đường truyền; bucket còn chờ một gradient bị thiếu được reduce ở đầu "
        "step().\n"
        "Lưu lượng: không all-reduce, mỗi bucket một reduce-scatter đúng kích thước bucket, mỗi cái khởi "
        "động trước khi gradient kế tiếp được tính; vẫn là 2(N - 1)/N · Φ.\n"
        "Bộ nhớ: khi backward kết thúc chỉ còn các chunk đã reduce, bucket cuối đang truyền và các bucket "
        "chờ gradient bị thiếu; trong backward, bộ nhớ gradient không quá ba bucket.\n"
        "Lỗi thường gặp: giữ bộ đệm của mọi bucket đến step(), dùng all-reduce, không đặt p.grad về None, "
        "bucket chờ mãi mãi.",
    ),
    "zero3": (
        "Stage 3 partitions the parameters too: a rank keeps only its shard of every parameter, and "
        "parameters() yields only those shards.\n"
        "Forward: just before a layer runs, all-gather its parameters; just after, release them. Backward "
        "gathers them again; each full gradient is reduce-scattered and averaged into the shard's .grad.\n"
        "Three passes, 3(N - 1)/N · Φ per step (1.5 × DDP), in exchange for memory that shrinks as 1/N.\n"
        "Memory: only shards between steps; nothing gathered beyond one layer when forward returns; at most "
        "two layers gathered at once in forward.\n"
        "Traffic: all-gathers layer by layer in forward (none larger than the largest layer's shard), again "
        "in backward, reduce-scatters of every gradient, no all-reduce.\n"
        "Usual mistakes: autograd's saved tensors keeping gathered weights alive, the whole model gathered "
        "at once, a tied weight sharded twice.",
        "Giai đoạn 3 phân mảnh cả tham số: mỗi rank chỉ giữ shard của mình của mọi tham số, và parameters() "
        "chỉ trả về các shard đó.\n"
        "Forward: ngay trước khi một lớp chạy, all-gather tham số của nó; ngay sau đó, giải phóng. Backward "
        "gom chúng lại lần nữa; gradient đầy đủ của mỗi tham số được reduce-scatter và lấy trung bình vào "
        ".grad của shard.\n"
        "Ba lượt, 3(N - 1)/N · Φ mỗi bước (1.5 × DDP), đổi lấy bộ nhớ giảm theo 1/N.\n"
        "Bộ nhớ: giữa các bước chỉ có shard; khi forward trả về, không còn gì đã gom ngoài một lớp; trong "
        "forward tối đa hai lớp được gom cùng lúc.\n"
        "Lưu lượng: all-gather từng lớp trong forward (không lần nào lớn hơn shard của lớp lớn nhất), lại "
        "all-gather trong backward, reduce-scatter mọi gradient, không all-reduce.\n"
        "Lỗi thường gặp: tensor mà autograd lưu giữ sống các trọng số đã gom, gom cả mô hình một lúc, trọng "
        "số tied bị chia shard hai lần.",
    ),
    "offload": (
        "ZeRO-Offload keeps the bf16 model on the device for forward and backward, and moves the fp32 "
        "master weights, the optimizer state and the step itself to the host.\n"
        "Each step the gradients go down as fp32 into the masters' .grad, the inner optimizer steps on the "
        "host, and the masters come back into the bf16 parameters, in place.\n"
        "The result equals mixed-precision training with exactly these casts: master = param.float() once, "
        "master.grad = param.grad.float(), step, param.copy_(master).\n"
        "Placement: masters, their gradients and state fp32 on the host, copies not views; the model bf16 "
        "on the device, keeping its own tensors.\n"
        "Usual mistakes: a master that shares memory with the model, a copy made without naming the host, "
        "new tensors put into the model instead of copying into its own.",
        "ZeRO-Offload giữ mô hình bf16 trên thiết bị cho forward và backward, và chuyển trọng số chính "
        "(master weights) fp32, trạng thái optimizer và chính bước cập nhật sang host.\n"
        "Mỗi bước, gradient được chuyển xuống ở dạng fp32 vào .grad của các master, optimizer bên trong "
        "chạy trên host, rồi các master được chép ngược vào tham số bf16, tại chỗ.\n"
        "Kết quả phải bằng huấn luyện mixed precision với đúng các phép ép kiểu: master = param.float() một "
        "lần, master.grad = param.grad.float(), cập nhật, param.copy_(master).\n"
        "Vị trí: master, gradient và trạng thái của chúng là fp32 trên host, là bản sao chứ không phải "
        "view; mô hình là bf16 trên thiết bị và giữ nguyên các tensor của nó.\n"
        "Lỗi thường gặp: master dùng chung bộ nhớ với mô hình, sao chép mà không nêu host, gán tensor mới "
        "vào mô hình thay vì chép vào tensor sẵn có.",
    ),
    "infinity": (
        "ZeRO-Infinity keeps the fp32 master weights and optimizer state of each rank's shard on NVMe and "
        "pages them through host memory one partition at a time while the optimizer steps.\n"
        "The data parallelism is ZeRO's: gradients are reduce-scattered and averaged, the shard is stepped, "
        "the updated shards are all-gathered into the parameters.\n"
        "Paging: every file read once and written back once per step; prefetch: partition k+1 is read "
        "(read_async) while partition k is stepped.\n"
        "Memory: two partitions at most, nothing kept between steps; crash safety: write to a temporary "
        "name, then rename.\n"
        "Usual mistakes: reading the next partition only after writing the current one, waiting for it at "
        "once, keeping references to a written partition, writing a file in place.",
        "ZeRO-Infinity giữ trọng số chính (master) fp32 và trạng thái optimizer của shard mỗi rank trên "
        "NVMe, và đưa chúng qua bộ nhớ host từng phân vùng một trong lúc optimizer step.\n"
        "Song song dữ liệu là của ZeRO: gradient được reduce-scatter và lấy trung bình, shard được step, "
        "các shard đã cập nhật được all-gather vào các tham số.\n"
        "Phân trang: mỗi file được đọc một lần và ghi lại một lần mỗi bước; đọc trước (prefetch): phân vùng "
        "k+1 được đọc (read_async) trong lúc phân vùng k được step.\n"
        "Bộ nhớ: nhiều nhất hai phân vùng, không giữ gì giữa các bước; an toàn khi sự cố: ghi vào một tên "
        "tạm rồi đổi tên.\n"
        "Lỗi thường gặp: chỉ đọc phân vùng kế tiếp sau khi đã ghi phân vùng hiện tại, chờ nó ngay lập tức, "
        "giữ tham chiếu tới một phân vùng đã ghi, ghi đè file tại chỗ.",
    ),
    "zero_memory_per_gpu": (
        "Model-state memory per GPU, in GB of 1e9 bytes, for Φ parameters trained with mixed-precision Adam "
        "on N GPUs.\n"
        "Per parameter: 2 bytes of fp16 weights, 2 of fp16 gradients, K = 12 of optimizer state (fp32 "
        "master, momentum, variance).\n"
        "Stage 0 (DDP) keeps all 16 bytes on every GPU; stage 1 partitions the optimizer state, stage 2 the "
        "gradients too, stage 3 the parameters too.\n"
        "'paper' checks the ZeRO paper's example, 7.5B parameters on 64 GPUs: 120, 31.4, 16.6 and 1.9 GB.\n"
        "Usual mistakes: GiB instead of GB, the fp16 weights divided in stage 2, no ValueError for stage "
        "1.5.",
        "Bộ nhớ trạng thái mô hình trên mỗi GPU, tính bằng GB (1e9 byte), cho Φ tham số huấn luyện bằng "
        "Adam mixed precision trên N GPU.\n"
        "Mỗi tham số: 2 byte trọng số fp16, 2 byte gradient fp16, K = 12 byte trạng thái optimizer (master "
        "fp32, momentum, variance).\n"
        "Giai đoạn 0 (DDP) giữ đủ 16 byte trên mọi GPU; giai đoạn 1 phân mảnh trạng thái optimizer, giai "
        "đoạn 2 thêm gradient, giai đoạn 3 thêm tham số.\n"
        "Phần 'paper' kiểm tra ví dụ của bài báo ZeRO, 7.5 tỉ tham số trên 64 GPU: 120, 31.4, 16.6 và 1.9 "
        "GB.\n"
        "Lỗi thường gặp: dùng GiB thay cho GB, chia cả trọng số fp16 ở giai đoạn 2, không ném ValueError "
        "với giai đoạn 1.5.",
    ),
    "zero_comm_volume": (
        "Elements each GPU sends per step, as in the ZeRO paper, which rounds a ring's (N - 1)/N to 1: one "
        "pass over the Φ parameters per reduce-scatter or all-gather.\n"
        "Stage 0 all-reduces the gradients (a reduce-scatter plus an all-gather); stages 1 and 2 "
        "reduce-scatter the gradients and all-gather the parameters: the same volume.\n"
        "Stage 3 gathers the parameters in forward and again in backward, and reduce-scatters the "
        "gradients: 1.5 times DDP.\n"
        "Stages 1 and 2 save memory at no extra traffic; stage 3 pays 50% more traffic to keep 1/N of the "
        "parameters.\n"
        "Graded: the formula, 0 on one GPU, ValueError for -1, 4 and 1.5.",
        "Số phần tử mỗi GPU gửi trong một bước, như trong bài báo ZeRO, vốn làm tròn (N - 1)/N của ring "
        "thành 1: mỗi reduce-scatter hay all-gather là một lượt đi qua Φ tham số.\n"
        "Giai đoạn 0 all-reduce gradient (một reduce-scatter và một all-gather); giai đoạn 1 và 2 "
        "reduce-scatter gradient và all-gather tham số: cùng khối lượng.\n"
        "Giai đoạn 3 gom tham số trong forward và lần nữa trong backward, rồi reduce-scatter gradient: gấp "
        "1.5 lần DDP.\n"
        "Giai đoạn 1 và 2 tiết kiệm bộ nhớ mà không tốn thêm lưu lượng; giai đoạn 3 trả thêm 50% lưu lượng "
        "để chỉ giữ 1/N tham số.\n"
        "Bộ chấm: công thức, 0 khi chỉ có một GPU, ValueError cho -1, 4 và 1.5.",
    ),
    "offload_memory_per_gpu": (
        "Offloading moves model states off the GPU; the ZeRO-Infinity paper counts them per parameter: 2 "
        "bytes of fp16 parameters, 2 of fp16 gradients, K + 4 of fp32 optimizer states (20 with K = 12).\n"
        "ZeRO-Offload (ZeRO-2, optimizer on the CPU): the GPU keeps every fp16 parameter and a 1/N partition "
        "of the gradients, the CPU the partition's optimizer states.\n"
        "ZeRO-Infinity (ZeRO-3): every state partitioned, the rank's partitions all on the CPU or all on "
        "NVMe; the GPU keeps only working memory, which is not counted.\n"
        "The answer is GB (1e9 bytes) per rank on each tier: a dict with 'gpu', 'cpu', 'nvme'.\n"
        "Usual mistakes: forgetting the fp32 gradient (K instead of K + 4), partitioning the fp16 parameters "
        "in ZeRO-Offload, leaving ZeRO-Infinity's parameters on the GPU.",
        "Offload chuyển trạng thái mô hình ra khỏi GPU; bài báo ZeRO-Infinity đếm chúng theo từng tham số: "
        "2 byte tham số fp16, 2 byte gradient fp16, K + 4 byte trạng thái optimizer fp32 (20 với K = 12).\n"
        "ZeRO-Offload (ZeRO-2, optimizer trên CPU): GPU giữ mọi tham số fp16 và 1/N gradient, CPU giữ trạng "
        "thái optimizer của phần đó.\n"
        "ZeRO-Infinity (ZeRO-3): mọi trạng thái đều được chia phần, các phần của rank nằm hết trên CPU hoặc "
        "hết trên NVMe; GPU chỉ giữ bộ nhớ làm việc, phần này không được tính.\n"
        "Đáp án là số GB (1e9 byte) mỗi rank ở từng tầng: một dict có 'gpu', 'cpu', 'nvme'.\n"
        "Lỗi thường gặp: quên gradient fp32 (K thay vì K + 4), chia phần tham số fp16 trong ZeRO-Offload, để "
        "tham số của ZeRO-Infinity lại trên GPU.",
    ),
}
