"""Chapter 1's teaching messages in English and Vietnamese (see :mod:`graders.words.messages`)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "ch1:not an int": {
        "en": "{what} is {got}; it is a number of bytes or of elements, an int.",
        "vi": "{what} là {got}; nó phải là một số byte hoặc số phần tử, một int.",
    },
    # -- count_parameters
    "ch1:count": {
        "en": "count_parameters returned {got}; the kit's GPT of this config has {expected} parameters"
        " ({parts}).",
        "vi": "count_parameters trả về {got}; mô hình GPT của kit với cấu hình này có {expected} tham số"
        " ({parts}).",
    },
    "ch1:count:hint": {
        "en": "count every layer of model_memory.py's docstring: two embeddings, per block four linear layers"
        " of hidden × hidden and two of hidden × ffn_hidden, each with its bias, and two LayerNorms (weight"
        " and bias), then the final LayerNorm and the head (no bias).",
        "vi": "đếm mọi tầng trong docstring của model_memory.py: hai embedding, mỗi block có bốn tầng linear"
        " hidden × hidden và hai tầng hidden × ffn_hidden, mỗi tầng có bias, và hai LayerNorm (weight và"
        " bias), rồi LayerNorm cuối và head (không bias).",
    },
    "ch1:count:tied:hint": {
        "en": "with tied=True the head is the token embedding itself: its weights are counted once, as"
        " sum(p.numel() for p in model.parameters()) does.",
        "vi": "với tied=True, head chính là token embedding: trọng số của nó chỉ được đếm một lần, như"
        " sum(p.numel() for p in model.parameters()) làm.",
    },
    # -- training_memory
    "ch1:ledger none": {
        "en": "training_memory returned None; it returns a Ledger.",
        "vi": "training_memory trả về None; hàm phải trả về một Ledger.",
    },
    "ch1:ledger:hint": {
        "en": "build Ledger(params=..., grads=..., optimizer_states=..., master_weights=...) with bytes.",
        "vi": "tạo Ledger(params=..., grads=..., optimizer_states=..., master_weights=...) bằng số byte.",
    },
    "ch1:ledger field": {
        "en": "Ledger.{field} is {got} B; a real training step kept {measured} B of it for {n} parameters.",
        "vi": "Ledger.{field} là {got} B; một bước huấn luyện thật giữ {measured} B cho {n} tham số.",
    },
    "ch1:ledger:params:hint": {
        "en": "parameters are float32 (4 bytes) in fp32, bfloat16 (2 bytes) in mixed precision and in bf16.",
        "vi": "tham số là float32 (4 byte) ở fp32, bfloat16 (2 byte) ở mixed precision và ở bf16.",
    },
    "ch1:ledger:grads:hint": {
        "en": "a gradient has its parameter's dtype: 4 bytes per element in fp32, 2 otherwise.",
        "vi": "gradient có cùng dtype với tham số: 4 byte mỗi phần tử ở fp32, 2 byte ở các trường hợp khác.",
    },
    "ch1:ledger:optimizer_states:hint": {
        "en": "Adam keeps two tensors per parameter, SGD with momentum one, plain SGD none; they are float32"
        " in fp32 and in mixed precision (the optimizer steps the fp32 masters), bfloat16 in bf16.",
        "vi": "Adam giữ hai tensor cho mỗi tham số, SGD có momentum một, SGD thuần không có; chúng là float32"
        " ở fp32 và ở mixed precision (optimizer cập nhật các master fp32), bfloat16 ở bf16.",
    },
    "ch1:ledger:master_weights:hint": {
        "en": "only mixed precision keeps a master copy: 4 bytes (float32) per parameter.",
        "vi": "chỉ mixed precision giữ bản master: 4 byte (float32) cho mỗi tham số.",
    },
    "ch1:ledger:total:hint": {
        "en": "mixed-precision Adam: 2 (bf16 parameter) + 2 (bf16 gradient) + 4 (fp32 master) + 8 (m and v in"
        " fp32) = 16 bytes per parameter; total is the sum of the four fields.",
        "vi": "Adam mixed precision: 2 (tham số bf16) + 2 (gradient bf16) + 4 (master fp32) + 8 (m và v ở"
        " fp32) = 16 byte mỗi tham số; total là tổng của bốn trường.",
    },
    "ch1:sixteen bytes": {
        "en": "Ledger.total is {total} B for {n} parameters; mixed-precision Adam costs the ZeRO paper's 16"
        " bytes per parameter, {n} × 16.",
        "vi": "Ledger.total là {total} B cho {n} tham số; Adam mixed precision tốn 16 byte mỗi tham số như"
        " bài báo ZeRO, tức {n} × 16.",
    },
    # -- activation_memory
    "ch1:activations": {
        "en": "activation_memory returned {got} B; one block's forward saved {expected} B for backward"
        " (recompute={recompute!r}), measured with a saved-tensors hook.",
        "vi": "activation_memory trả về {got} B; forward của một block đã lưu {expected} B cho backward"
        " (recompute={recompute!r}), đo bằng saved-tensors hook.",
    },
    "ch1:activations:none:hint": {
        "en": "walk the block in model_memory.py's docstring and add every tensor it saves: two LayerNorms"
        " (input, and mean and rstd of [s, b, 1]), the linear layers' inputs (q, k, v share one), the"
        " copies of q, k and v, the bool mask [s, s], the softmax output [b, heads, s, s], GELU's input"
        " and output, and the dropout masks when dropout > 0.",
        "vi": "đi qua block trong docstring của model_memory.py và cộng mọi tensor nó lưu: hai LayerNorm"
        " (đầu vào, và mean, rstd có shape [s, b, 1]), đầu vào của các tầng linear (q, k, v dùng chung một),"
        " các bản sao của q, k, v, mask kiểu bool [s, s], đầu ra softmax [b, heads, s, s], đầu vào và đầu"
        " ra của GELU, và các mask dropout khi dropout > 0.",
    },
    "ch1:activations:selective:hint": {
        "en": "selective recomputation keeps everything outside the attention core and, for the core, only"
        " q, k and v: the s × s terms (the softmax output and the mask) and the core's copies are gone.",
        "vi": "tính lại chọn lọc giữ mọi thứ bên ngoài lõi attention và, với lõi, chỉ giữ q, k và v: các số"
        " hạng s × s (đầu ra softmax và mask) và các bản sao trong lõi không còn nữa.",
    },
    "ch1:activations:full:hint": {
        "en": "full recomputation checkpoints the whole block: autograd keeps only the block's input.",
        "vi": "tính lại toàn bộ checkpoint cả block: autograd chỉ giữ đầu vào của block.",
    },
    # -- read_dist_env
    "ch1:env raised": {
        "en": "read_dist_env raised {type}: {message} on a valid environment.",
        "vi": "read_dist_env báo {type}: {message} trên một môi trường hợp lệ.",
    },
    "ch1:env field": {
        "en": "DistEnv.{field} is {got}; expected {expected}.",
        "vi": "DistEnv.{field} là {got}; mong đợi {expected}.",
    },
    "ch1:env:hint": {
        "en": "RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE and MASTER_PORT are ints (int() of the text),"
        " MASTER_ADDR stays a string; other variables in env are ignored.",
        "vi": "RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE và MASTER_PORT là int (int() của chuỗi),"
        " MASTER_ADDR giữ nguyên là chuỗi; các biến khác trong env được bỏ qua.",
    },
    "ch1:env accepted": {
        "en": "read_dist_env accepted an environment where {wrong} is wrong; it must raise ValueError.",
        "vi": "read_dist_env chấp nhận một môi trường mà {wrong} sai; hàm phải báo ValueError.",
    },
    "ch1:env error type": {
        "en": "read_dist_env raised {type}; a wrong environment raises ValueError (KeyError is accepted"
        " for a missing variable).",
        "vi": "read_dist_env báo {type}; môi trường sai phải báo ValueError (KeyError được chấp nhận khi"
        " thiếu biến).",
    },
    "ch1:env unnamed": {
        "en": "read_dist_env's error says {message!r}, which does not name {wrong}: say which variable is"
        " wrong.",
        "vi": "thông báo lỗi của read_dist_env là {message!r}, không nêu tên {wrong}: hãy nói biến nào sai.",
    },
    "ch1:env names all": {
        "en": "read_dist_env's error says {message!r}: it names more variables than the one at fault"
        " ({wrong}) and the one it was compared with.",
        "vi": "thông báo lỗi của read_dist_env là {message!r}: nó nêu nhiều biến hơn biến sai ({wrong}) và"
        " biến được so sánh với nó.",
    },
    "ch1:env errors:hint": {
        "en": "check each variable is present, is an integer, and fits: 0 ≤ RANK < WORLD_SIZE, 0 ≤ LOCAL_RANK"
        " < LOCAL_WORLD_SIZE ≤ WORLD_SIZE, sizes ≥ 1, MASTER_ADDR not empty, 1 ≤ MASTER_PORT ≤ 65535; put the"
        " variable's name in the message.",
        "vi": "kiểm tra từng biến có mặt, là số nguyên, và hợp lệ: 0 ≤ RANK < WORLD_SIZE, 0 ≤ LOCAL_RANK <"
        " LOCAL_WORLD_SIZE ≤ WORLD_SIZE, các kích thước ≥ 1, MASTER_ADDR không rỗng, 1 ≤ MASTER_PORT ≤ 65535;"
        " ghi tên biến vào thông báo lỗi.",
    },
    # -- pick_backend, device_for
    "ch1:backend": {
        "en": "pick_backend returned {got}; expected {expected}.",
        "vi": "pick_backend trả về {got}; mong đợi {expected}.",
    },
    "ch1:backend:hint": {
        "en": "NCCL runs collectives between CUDA GPUs; every other device (CPU, meta, mps) uses gloo."
        " torch.device(device).type gives the kind of a string or a device.",
        "vi": "NCCL chạy collective giữa các GPU CUDA; mọi thiết bị khác (CPU, meta, mps) dùng gloo."
        " torch.device(device).type cho biết loại của một chuỗi hay một device.",
    },
    "ch1:not a device": {
        "en": "device_for returned {got}; it returns a torch.device.",
        "vi": "device_for trả về {got}; hàm phải trả về một torch.device.",
    },
    "ch1:device": {
        "en": "device_for returned torch.device({got!r}); expected torch.device({expected!r}).",
        "vi": "device_for trả về torch.device({got!r}); mong đợi torch.device({expected!r}).",
    },
    "ch1:device:hint": {
        "en": "with CUDA available (torch.cuda.is_available()) local rank i computes on GPU i,"
        " torch.device('cuda', i); without, on the CPU.",
        "vi": "khi có CUDA (torch.cuda.is_available()), local rank i tính toán trên GPU i,"
        " torch.device('cuda', i); khi không có, trên CPU.",
    },
    # -- first_ddp.py
    "ch1:ddp rows": {
        "en": "rank {rank}'s model was called on {got}; it is called on a batch of rows of --data's x.",
        "vi": "mô hình của rank {rank} được gọi với {got}; nó phải được gọi với một batch các hàng x của"
        " --data.",
    },
    "ch1:ddp unknown rows": {
        "en": "rank {rank}'s model was fed rows that are not examples of --data: feed the DataLoader's x as"
        " it is.",
        "vi": "mô hình của rank {rank} nhận các hàng không phải ví dụ của --data: đưa x của DataLoader vào"
        " nguyên như vậy.",
    },
    "ch1:ddp rows:hint": {
        "en": "each step feeds model(x) with the x of the DataLoader's batch (float32, [batch, features]).",
        "vi": "mỗi bước gọi model(x) với x của batch từ DataLoader (float32, [batch, features]).",
    },
    "ch1:ddp steps differ": {
        "en": "the processes ran {counts} training forward passes: every process runs the same steps,"
        " each all-reducing its gradients with the others.",
        "vi": "các tiến trình chạy {counts} lượt forward huấn luyện: mọi tiến trình chạy cùng số bước, mỗi"
        " bước all-reduce gradient với các tiến trình khác.",
    },
    "ch1:ddp not ddp": {
        "en": "rank {rank}'s forward passes went through {outer}, not torch's DistributedDataParallel.",
        "vi": "các lượt forward của rank {rank} đi qua {outer}, không phải DistributedDataParallel của"
        " torch.",
    },
    "ch1:ddp:hint": {
        "en": "wrap the model in torch.nn.parallel.DistributedDataParallel on every process and call the"
        " wrapper: its backward averages the gradients over the processes, so every process takes the"
        " step one process would take on the union of their batches.",
        "vi": "bọc mô hình bằng torch.nn.parallel.DistributedDataParallel trên mọi tiến trình và gọi lớp"
        " bọc: backward của nó lấy trung bình gradient trên các tiến trình, nên mọi tiến trình thực hiện"
        " đúng bước mà một tiến trình sẽ thực hiện trên hợp các batch của chúng.",
    },
    "ch1:ddp no checkpoint": {
        "en": "rank 0 found no checkpoint at --out ({out}) when the script ended.",
        "vi": "rank 0 không thấy checkpoint ở --out ({out}) khi script kết thúc.",
    },
    "ch1:ddp checkpoint keys": {
        "en": "the checkpoint holds {got}; expected the model's state dict with the keys {expected}.",
        "vi": "checkpoint chứa {got}; mong đợi state dict của mô hình với các khóa {expected}.",
    },
    "ch1:ddp checkpoint:hint": {
        "en": "after the last epoch rank 0 saves model.module.state_dict() with torch.save to --out: the"
        " wrapped model's keys, not DDP's (which start with 'module.').",
        "vi": "sau epoch cuối, rank 0 lưu model.module.state_dict() bằng torch.save vào --out: các khóa của"
        " mô hình được bọc, không phải của DDP (bắt đầu bằng 'module.').",
    },
    "ch1:ddp weight": {
        "en": "{name} of {whose}",
        "vi": "{name} của {whose}",
    },
    "ch1:ddp saved": {
        "en": "the checkpoint rank 0 saved",
        "vi": "checkpoint mà rank 0 đã lưu",
    },
    "ch1:ddp replica": {
        "en": "rank {rank}'s DDP replica",
        "vi": "bản sao DDP của rank {rank}",
    },
    "ch1:ddp unreadable checkpoint": {
        "en": "the file at --out is not a checkpoint torch.load reads ({why}).",
        "vi": "file ở --out không phải checkpoint mà torch.load đọc được ({why}).",
    },
    "ch1:ddp hooks removed": {
        "en": "rank {rank}'s script removed torch's global module hooks, through which the grader sees the"
        " training: leave torch's hook tables alone.",
        "vi": "script của rank {rank} đã xoá các global module hook của torch, nơi bộ chấm quan sát việc"
        " huấn luyện: đừng đụng vào bảng hook của torch.",
    },
    "ch1:ddp not synced": {
        "en": "rank {rank}'s step {step} all-reduced {got} B of gradients through DDP; every step averages"
        " the whole gradient, {expected} B, in its backward.",
        "vi": "bước {step} của rank {rank} đã all-reduce {got} B gradient qua DDP; mỗi bước phải lấy trung"
        " bình toàn bộ gradient, {expected} B, trong backward.",
    },
    "ch1:ddp sync:hint": {
        "en": "call loss.backward() on the output of the DDP-wrapped model, outside model.no_sync(): that"
        " backward is where DDP all-reduces the gradients, bucket by bucket.",
        "vi": "gọi loss.backward() trên đầu ra của mô hình đã bọc DDP, bên ngoài model.no_sync(): chính"
        " backward đó là nơi DDP all-reduce gradient, theo từng bucket.",
    },
    # -- shards
    "ch1:shards steps": {
        "en": "rank {rank} ran {got} training forward passes; with its share of the data and --batch-size"
        " it runs {per_epoch} per epoch, {expected} in all.",
        "vi": "rank {rank} chạy {got} lượt forward huấn luyện; với phần dữ liệu của nó và --batch-size, nó"
        " chạy {per_epoch} lượt mỗi epoch, tổng cộng {expected}.",
    },
    "ch1:shards sizes": {
        "en": "rank {rank}'s first epoch fed batches of {got} examples; expected {expected}: --batch-size"
        " examples per process and step, from that process's half of the data.",
        "vi": "epoch đầu của rank {rank} dùng các batch {got} ví dụ; mong đợi {expected}: --batch-size ví dụ"
        " cho mỗi tiến trình mỗi bước, lấy từ nửa dữ liệu của tiến trình đó.",
    },
    "ch1:shards:hint": {
        "en": "a DistributedSampler gives each process every world_size-th example of the epoch's"
        " permutation; pass it to the DataLoader as sampler= (and no shuffle=).",
        "vi": "DistributedSampler cho mỗi tiến trình mỗi ví dụ thứ world_size trong hoán vị của epoch; truyền"
        " nó vào DataLoader qua sampler= (và không dùng shuffle=).",
    },
    "ch1:shards overlap": {
        "en": "in epoch {epoch}, example {example} was fed by ranks {ranks} ({count} examples twice): the"
        " processes' shards overlap.",
        "vi": "trong epoch {epoch}, ví dụ {example} được các rank {ranks} dùng ({count} ví dụ bị dùng hai"
        " lần): các phân mảnh dữ liệu của các tiến trình chồng lên nhau.",
    },
    "ch1:shards overlap:hint": {
        "en": "without a DistributedSampler every process iterates over the whole dataset: each example"
        " then counts twice per epoch, and data parallelism gains nothing.",
        "vi": "không có DistributedSampler thì mọi tiến trình duyệt cả tập dữ liệu: mỗi ví dụ được tính hai"
        " lần mỗi epoch, và song song dữ liệu không được lợi gì.",
    },
    "ch1:shards missing": {
        "en": "in epoch {epoch}, no rank fed examples {examples}: the shards must cover the dataset.",
        "vi": "trong epoch {epoch}, không rank nào dùng các ví dụ {examples}: các phân mảnh phải phủ hết tập"
        " dữ liệu.",
    },
    "ch1:shards set_epoch": {
        "en": "epoch {epoch} fed every rank the same examples in the same order as epoch 0: the data is not"
        " reshuffled.",
        "vi": "epoch {epoch} đưa cho mọi rank đúng các ví dụ theo đúng thứ tự như epoch 0: dữ liệu không"
        " được xáo trộn lại.",
    },
    "ch1:shards set_epoch:hint": {
        "en": "DistributedSampler seeds its permutation with seed + epoch: call sampler.set_epoch(epoch) at"
        " the"
        " start of every epoch, or every epoch repeats the first.",
        "vi": "DistributedSampler tạo hoán vị với seed + epoch: hãy gọi sampler.set_epoch(epoch) ở đầu mỗi"
        " epoch, nếu không mọi epoch đều lặp lại epoch đầu.",
    },
    # -- rank 0
    "ch1:rank0 others print": {
        "en": "rank {rank} printed {line!r}: only rank 0 logs.",
        "vi": "rank {rank} in ra {line!r}: chỉ rank 0 được ghi log.",
    },
    "ch1:rank0 others save": {
        "en": "rank {rank} saved {files} with torch.save: only rank 0 saves the checkpoint.",
        "vi": "rank {rank} lưu {files} bằng torch.save: chỉ rank 0 lưu checkpoint.",
    },
    "ch1:rank0 silent": {
        "en": "none of rank 0's {lines} printed line(s) holds epoch {epoch}'s mean loss ({means}: over its"
        " batches, or over the global ones).",
        "vi": "không dòng nào trong {lines} dòng rank 0 in ra chứa loss trung bình của epoch {epoch}"
        " ({means}:"
        " trên các batch của nó, hoặc trên các batch toàn cục).",
    },
    "ch1:rank0 no save": {
        "en": "the checkpoint at {out} is not what rank 0 saved there with torch.save.",
        "vi": "checkpoint ở {out} không phải thứ mà rank 0 đã lưu vào đó bằng torch.save.",
    },
    "ch1:rank0:hint": {
        "en": "every process runs the same script: guard the logging and the checkpoint with"
        " if dist.get_rank() == 0, so the log is not repeated and the file is written once.",
        "vi": "mọi tiến trình chạy cùng một script: đặt việc ghi log và lưu checkpoint trong"
        " if dist.get_rank() == 0, để log không bị lặp và file chỉ được ghi một lần.",
    },
}
