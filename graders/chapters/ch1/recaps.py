"""Chapter 1's theory recaps, English and Vietnamese (see ``graders.words.hints``)."""

RECAPS: dict[str, tuple[str, str]] = {
    "count_parameters": (
        "A GPT's parameters are its embeddings (vocab·h and positions·h), per block four h×h attention"
        " projections and two h×f MLP matrices with their biases, and the LayerNorms' 2h each.\n"
        "Per block that is about 12h² for f = 4h: a model's size is dominated by layers × 12h².\n"
        "A tied head reuses the token embedding: the same tensor, counted once.\n"
        "Knowing the count is the first line of every memory estimate: bytes = count × bytes per parameter.\n"
        "Graded against sum(p.numel()) of the kit's GPT built from random configs.",
        "Tham số của GPT gồm các embedding (vocab·h và positions·h), mỗi block có bốn phép chiếu attention"
        " h×h và hai ma trận MLP h×f cùng bias của chúng, và mỗi LayerNorm 2h.\n"
        "Mỗi block khoảng 12h² khi f = 4h: kích thước mô hình do layers × 12h² quyết định.\n"
        "Head tied dùng lại token embedding: cùng một tensor, chỉ đếm một lần.\n"
        "Số tham số là dòng đầu tiên của mọi ước lượng bộ nhớ: byte = số tham số × byte mỗi tham số.\n"
        "Bộ chấm so với sum(p.numel()) của mô hình GPT của kit dựng từ cấu hình ngẫu nhiên.",
    ),
    "training_memory": (
        "Training keeps four things per parameter: the parameter, its gradient, the optimizer's state and,"
        " in mixed precision, an fp32 master copy.\n"
        "Mixed-precision Adam: 2 + 2 + 4 (master) + 8 (m, v in fp32) = 16 bytes per parameter, the ZeRO"
        " paper's 16Ψ: a 7.5B model needs 120 GB before any activation.\n"
        "fp32 Adam costs 16 bytes too (4 + 4 + 8); pure bf16 Adam 8, but loses small updates.\n"
        "This model-state memory is what data parallelism replicates on every GPU, and what ZeRO shards.\n"
        "Graded against the nbytes a real training step of the kit's GPT keeps, by role, in every precision.",
        "Huấn luyện giữ bốn thứ cho mỗi tham số: tham số, gradient, state của optimizer và, ở mixed"
        " precision, một bản master fp32.\n"
        "Adam mixed precision: 2 + 2 + 4 (master) + 8 (m, v ở fp32) = 16 byte mỗi tham số, tức 16Ψ của bài"
        " báo ZeRO: mô hình 7.5B cần 120 GB trước khi tính activation.\n"
        "Adam fp32 cũng tốn 16 byte (4 + 4 + 8); Adam bf16 thuần tốn 8, nhưng mất các cập nhật nhỏ.\n"
        "Bộ nhớ trạng thái mô hình này được song song dữ liệu nhân bản trên mọi GPU, và được ZeRO chia nhỏ.\n"
        "Bộ chấm so với số nbytes mà một bước huấn luyện thật của GPT của kit giữ lại, theo vai trò, ở mọi độ"
        " chính xác.",
    ),
    "activation_memory": (
        "Backward needs tensors forward computed: every layer saves its inputs (or outputs) for its"
        " gradient, and these activations grow with batch × sequence.\n"
        "Attention also saves the softmax of every head, heads·b·s² elements: quadratic in the sequence.\n"
        "Selective recomputation (Korthikanti et al., 2022) recomputes only the attention core in backward:"
        " the s² terms disappear for a few percent more compute.\n"
        "Full recomputation checkpoints the whole block and keeps only its input, for one more forward.\n"
        "Graded against the bytes a saved-tensors hook sees in one forward of the kit's block, per mode.",
        "Backward cần các tensor mà forward đã tính: mỗi tầng lưu đầu vào (hoặc đầu ra) cho gradient của"
        " nó, và các activation này tăng theo batch × độ dài chuỗi.\n"
        "Attention còn lưu softmax của mọi head, heads·b·s² phần tử: bậc hai theo độ dài chuỗi.\n"
        "Tính lại chọn lọc (Korthikanti và cộng sự, 2022) chỉ tính lại lõi attention trong backward: các"
        " số hạng s² biến mất với vài phần trăm tính toán thêm.\n"
        "Tính lại toàn bộ checkpoint cả block và chỉ giữ đầu vào của nó, đổi lấy một lần forward nữa.\n"
        "Bộ chấm so với số byte mà saved-tensors hook thấy trong một lần forward của block của kit, theo"
        " từng chế độ.",
    ),
    "read_dist_env": (
        "torchrun starts one process per GPU and tells each where it stands through environment variables.\n"
        "RANK and WORLD_SIZE place it among all processes; LOCAL_RANK and LOCAL_WORLD_SIZE on its node.\n"
        "MASTER_ADDR and MASTER_PORT name the rendezvous store every process meets at.\n"
        "A script that reads them should fail early and clearly when one is missing or inconsistent.\n"
        "Graded on valid environments of several nodes, and on each kind of fault: the ValueError must name"
        " the variable.",
        "torchrun khởi chạy một tiến trình cho mỗi GPU và cho mỗi tiến trình biết vị trí của nó qua các biến"
        " môi trường.\n"
        "RANK và WORLD_SIZE xác định vị trí trong mọi tiến trình; LOCAL_RANK và LOCAL_WORLD_SIZE trên node"
        " của nó.\n"
        "MASTER_ADDR và MASTER_PORT là địa chỉ của store rendezvous nơi mọi tiến trình gặp nhau.\n"
        "Script đọc chúng nên báo lỗi sớm và rõ ràng khi một biến bị thiếu hoặc không nhất quán.\n"
        "Bộ chấm dùng các môi trường hợp lệ nhiều node, và từng loại lỗi: ValueError phải nêu tên biến.",
    ),
    "pick_backend": (
        "torch.distributed talks through a backend: NCCL for CUDA GPUs (NVLink, InfiniBand, GPUDirect),"
        " gloo for the CPU.\n"
        "NCCL only moves CUDA tensors; gloo runs anywhere but far slower between GPUs.\n"
        "A script picks the backend from the device it computes on, so the same code runs on a laptop"
        " and a cluster.\n"
        "init_process_group(backend=...) is where the choice goes.\n"
        "Graded on devices given as strings and as torch.device: cuda, cuda:N, cpu, meta, mps.",
        "torch.distributed giao tiếp qua một backend: NCCL cho GPU CUDA (NVLink, InfiniBand, GPUDirect), gloo"
        " cho CPU.\n"
        "NCCL chỉ truyền tensor CUDA; gloo chạy ở mọi nơi nhưng chậm hơn nhiều giữa các GPU.\n"
        "Script chọn backend theo thiết bị tính toán, để cùng một code chạy được trên laptop lẫn cụm máy.\n"
        "init_process_group(backend=...) là nơi đặt lựa chọn đó.\n"
        "Bộ chấm dùng thiết bị dạng chuỗi và dạng torch.device: cuda, cuda:N, cpu, meta, mps.",
    ),
    "device_for": (
        "On a node with P GPUs torchrun starts P processes; LOCAL_RANK i is the one that owns GPU i.\n"
        "Each process calls torch.cuda.set_device on its own GPU before it allocates anything there.\n"
        "Two processes on the same GPU share its memory and compute, and NCCL refuses them.\n"
        "Without GPUs the same script computes on the CPU with gloo.\n"
        "Graded with torch made to report 0, 1, 2, 4 or 8 GPUs: the device returned for each local rank.",
        "Trên một node có P GPU, torchrun khởi chạy P tiến trình; LOCAL_RANK i là tiến trình sở hữu GPU i.\n"
        "Mỗi tiến trình gọi torch.cuda.set_device với GPU của mình trước khi cấp phát gì trên đó.\n"
        "Hai tiến trình trên cùng một GPU chia nhau bộ nhớ và tính toán, và NCCL từ chối chúng.\n"
        "Không có GPU thì cùng script đó tính toán trên CPU với gloo.\n"
        "Bộ chấm cho torch báo có 0, 1, 2, 4 hoặc 8 GPU: thiết bị trả về cho mỗi local rank.",
    ),
    "first_ddp": (
        "Data parallelism: every process holds the whole model, trains on its own shard of each global"
        " batch, and DDP averages the gradients so every replica takes the same step.\n"
        "DistributedSampler shards the data: the same permutation on every process (seed + epoch), every"
        " world_size-th example each; set_epoch reshuffles each epoch.\n"
        "Every process runs the same script: logging and checkpointing are guarded by rank == 0.\n"
        "The result equals one process trained on the global batches, the union of the shards.\n"
        "Graded by a real torchrun launch of two processes: the rows each fed, what each printed and saved,"
        " and the checkpoint against single-process training.",
        "Song song dữ liệu: mọi tiến trình giữ toàn bộ mô hình, huấn luyện trên phần riêng của mỗi batch"
        " toàn cục, và DDP lấy trung bình gradient để mọi bản sao thực hiện cùng một bước.\n"
        "DistributedSampler chia dữ liệu: cùng một hoán vị trên mọi tiến trình (seed + epoch), mỗi tiến"
        " trình lấy mỗi ví dụ thứ world_size; set_epoch xáo trộn lại mỗi epoch.\n"
        "Mọi tiến trình chạy cùng một script: ghi log và lưu checkpoint được đặt trong điều kiện rank == 0.\n"
        "Kết quả bằng một tiến trình huấn luyện trên các batch toàn cục, tức hợp các phân mảnh.\n"
        "Bộ chấm chạy thật bằng torchrun với hai tiến trình: các hàng mỗi tiến trình dùng, những gì mỗi"
        " tiến trình in và lưu, và so checkpoint với huấn luyện một tiến trình.",
    ),
}
