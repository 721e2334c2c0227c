"""Chapter 11's theory recaps, English and Vietnamese (see ``graders.words.hints``)."""

RECAPS: dict[str, tuple[str, str]] = {
    "rank_layout": (
        "5D parallelism arranges tp · cp · ep · dp · pp processes as a grid: each rank has one coordinate"
        " per dimension.\n"
        "Megatron-Core numbers the grid with tensor parallelism innermost: consecutive ranks differ in tp"
        " first, so a tp group is a block of neighbouring ranks, on one node.\n"
        "A group of some dimensions is the set of ranks that agree on every other coordinate: tp groups,"
        " dp groups, and combined ones such as tp-pp (a model replica).\n"
        "The groups of any dimensions partition the world.\n"
        "Graded on layouts of up to 64 ranks in random orders: coordinates and their round trip, single"
        " and combined groups, against Megatron-Core's convention.",
        "Song song 5D sắp xếp tp · cp · ep · dp · pp tiến trình thành một lưới: mỗi rank có một toạ độ cho"
        " mỗi chiều.\n"
        "Megatron-Core đánh số lưới với song song tensor ở trong cùng: các rank liên tiếp khác nhau ở tp"
        " trước tiên, nên một group tp là một khối rank kề nhau, trên cùng một node.\n"
        "Một group của vài chiều là tập các rank có cùng mọi toạ độ khác: group tp, group dp, và các group"
        " kết hợp như tp-pp (một bản sao mô hình).\n"
        "Các group của bất kỳ tập chiều nào cũng phân hoạch toàn bộ world.\n"
        "Bộ chấm dùng các layout tới 64 rank với order ngẫu nhiên: toạ độ và phép đổi ngược, group đơn và"
        " group kết hợp, theo quy ước của Megatron-Core.",
    ),
    "build_groups": (
        "torch.distributed.new_group is collective: every process of the world takes part in making"
        " every group, even one it is not in.\n"
        "So all ranks walk the same list of groups in the same order; each keeps the group it belongs to.\n"
        "A rank that skips the groups it is not in leaves the others waiting in the store.\n"
        "Megatron's initialize_model_parallel does exactly this for tp, pp, dp, cp, ep and their"
        " combinations.\n"
        "Graded in a real world of up to 8 processes: each returned group's members, and an all-reduce"
        " inside it.",
        "torch.distributed.new_group là thao tác tập thể: mọi tiến trình của world tham gia tạo mọi group,"
        " kể cả group nó không thuộc về.\n"
        "Vì vậy mọi rank duyệt cùng một danh sách group theo cùng thứ tự; mỗi rank giữ group chứa mình.\n"
        "Một rank bỏ qua các group không chứa nó sẽ khiến các rank khác chờ mãi trong store.\n"
        "initialize_model_parallel của Megatron làm đúng như vậy cho tp, pp, dp, cp, ep và các kết hợp.\n"
        "Bộ chấm chạy trong một world thật tới 8 tiến trình: thành viên của mỗi group trả về, và một"
        " all-reduce bên trong nó.",
    ),
    "groups_crossing_nodes": (
        "A node's GPUs talk over NVLink (hundreds of GB/s); nodes talk over InfiniBand, about ten times"
        " slower.\n"
        "torchrun numbers ranks node by node: rank r runs on node r // gpus_per_node.\n"
        "A group whose ranks sit on several nodes pays the slow links for every collective.\n"
        "Tensor parallelism communicates inside every layer, so its groups must stay inside a node.\n"
        "Graded on random layouts and node sizes of 1, 2, 4 and 8: the crossing groups of each dimension.",
        "Các GPU trong một node nói chuyện qua NVLink (hàng trăm GB/s); các node nói chuyện qua"
        " InfiniBand, chậm hơn khoảng mười lần.\n"
        "torchrun đánh số rank theo từng node: rank r chạy trên node r // gpus_per_node.\n"
        "Một group có rank nằm trên nhiều node phải trả giá đường truyền chậm cho mỗi collective.\n"
        "Song song tensor giao tiếp trong mọi tầng, nên group của nó phải nằm trong một node.\n"
        "Bộ chấm dùng layout ngẫu nhiên và node có 1, 2, 4, 8 GPU: các group vượt node của từng chiều.",
    ),
    "best_order": (
        "The order of the dimensions decides which groups are made of neighbouring ranks, hence which"
        " stay inside a node.\n"
        "The busiest dimension should vary fastest: tp, then cp, ep, dp and pp, by how often they"
        " communicate.\n"
        "When tp does not divide a node, another order can still keep more of the busy groups inside.\n"
        "Comparing orders by their crossing groups, busiest first, makes the choice mechanical.\n"
        "Graded on random layouts and node sizes: the returned order's crossing groups must be as few as"
        " the best order's.",
        "Thứ tự các chiều quyết định group nào gồm các rank kề nhau, tức là group nào nằm trong một node.\n"
        "Chiều bận rộn nhất nên thay đổi nhanh nhất: tp, rồi cp, ep, dp và pp, theo tần suất giao tiếp.\n"
        "Khi tp không chia hết số GPU của node, một order khác vẫn có thể giữ được nhiều group bận rộn hơn"
        " trong node.\n"
        "So sánh các order theo số group vượt node, chiều bận nhất trước, khiến việc chọn trở nên máy móc.\n"
        "Bộ chấm dùng layout và kích thước node ngẫu nhiên: order trả về phải có số group vượt node ít như"
        " order tốt nhất.",
    ),
    "memory_per_gpu": (
        "What one GPU holds: its share of the model states and the activations of the micro-batches in"
        " flight.\n"
        "tp and pp divide the weights, ep the experts; ZeRO then divides the optimizer state (stage 1),"
        " the gradients (2) and the parameters (3) by dp.\n"
        "Activations shrink with tp (sequence parallelism) and cp, and 1F1B keeps min(pp, m)"
        " micro-batches of them on the first stage.\n"
        "Recomputation and offloading are left out of this model.\n"
        "Graded on random valid plans of random requests, to a relative 10⁻⁹.",
        "Những gì một GPU giữ: phần trạng thái mô hình của nó và activation của các micro-batch đang chạy."
        "\n"
        "tp và pp chia trọng số, ep chia các expert; sau đó ZeRO chia state của optimizer (stage 1),"
        " gradient (2) và tham số (3) cho dp.\n"
        "Activation giảm theo tp (song song chuỗi) và cp, và 1F1B giữ min(pp, m) micro-batch activation ở"
        " stage đầu.\n"
        "Mô hình này không tính việc tính lại và offload.\n"
        "Bộ chấm dùng các plan hợp lệ ngẫu nhiên của các yêu cầu ngẫu nhiên, sai số tương đối 10⁻⁹.",
    ),
    "step_time": (
        "A step is compute at peak speed, stretched by the pipeline bubble (pp − 1)/m, plus every"
        " communication at the speed of the link it crosses.\n"
        "Tensor parallelism all-reduces activations in every layer: over NVLink it is cheap, across nodes"
        " it dominates.\n"
        "Data parallelism all-reduces the gradients once a step; ZeRO-3 adds half again for gathering the"
        " parameters.\n"
        "Context and expert parallelism move activations in every layer; pipeline parallelism only at"
        " stage boundaries.\n"
        "Graded on random valid plans of random requests, to a relative 10⁻⁹.",
        "Một bước gồm tính toán ở tốc độ đỉnh, bị kéo dài bởi bubble của pipeline (pp − 1)/m, cộng mọi"
        " giao tiếp ở tốc độ của đường truyền mà nó đi qua.\n"
        "Song song tensor all-reduce activation ở mọi tầng: qua NVLink thì rẻ, qua nhiều node thì nó chiếm"
        " phần lớn.\n"
        "Song song dữ liệu all-reduce gradient mỗi bước một lần; ZeRO-3 thêm một nửa nữa để gom tham số.\n"
        "Song song ngữ cảnh và expert truyền activation ở mọi tầng; song song pipeline chỉ ở ranh giới các"
        " stage.\n"
        "Bộ chấm dùng các plan hợp lệ ngẫu nhiên của các yêu cầu ngẫu nhiên, sai số tương đối 10⁻⁹.",
    ),
    "plan": (
        "Choosing tp, cp, pp, dp, ep, the micro-batch and the ZeRO stage is a search: the space is small"
        " enough to try every valid plan.\n"
        "Memory decides what is possible, time what is best: larger tp saves memory but talks in every"
        " layer; more pp saves memory but adds bubble; ZeRO saves memory for some communication.\n"
        "A model that fits nowhere must be refused clearly, before a job is queued.\n"
        "Real planners (Megatron's, DeepSpeed's autotuner) work the same way with measured costs.\n"
        "Graded on clusters and models drawn at random: the plan must fit and be within 10% of the"
        " fastest plan that fits; an impossible request raises ValueError.",
        "Chọn tp, cp, pp, dp, ep, micro-batch và stage ZeRO là một bài toán tìm kiếm: không gian đủ nhỏ để"
        " thử mọi plan hợp lệ.\n"
        "Bộ nhớ quyết định điều gì khả thi, thời gian quyết định điều gì tốt nhất: tp lớn tiết kiệm bộ nhớ"
        " nhưng giao tiếp ở mọi tầng; pp lớn tiết kiệm bộ nhớ nhưng thêm bubble; ZeRO đổi bộ nhớ lấy"
        " một phần giao tiếp.\n"
        "Một mô hình không vừa ở đâu cả phải bị từ chối rõ ràng, trước khi job vào hàng đợi.\n"
        "Các bộ lập kế hoạch thật (của Megatron, autotuner của DeepSpeed) làm tương tự với chi phí đo được.\n"
        "Bộ chấm dùng cụm máy và mô hình ngẫu nhiên: plan phải vừa bộ nhớ và chậm hơn plan nhanh nhất vừa"
        " bộ nhớ không quá 10%; yêu cầu bất khả thi phải báo ValueError.",
    ),
    "trainer_3d": (
        "3D parallelism composes the three axes: tp splits each layer's matrices inside a node, pp splits"
        " the layers into stages, dp replicates the result over the rest, with ZeRO-1 sharding the"
        " optimizer state over the dp group.\n"
        "Each rank holds one stage's tp shard; activations travel between stages by send/recv, the blocks"
        " all-reduce in the tp group, ZeRO-1 reduce-scatters and all-gathers in the dp group.\n"
        "Done right, it computes exactly what one device computes: the same loss at every step.\n"
        "Graded on 4 and 8 processes: the 10-step loss curve against single-device training; each step's"
        " messages and collectives, bounded both ways; and what each rank keeps alive between steps.\n"
        "Usual mistakes: a collective on the default group, summing instead of averaging, a parameter left"
        " out of the optimizer, every rank building the whole model.",
        "Song song 3D kết hợp ba trục: tp chia các ma trận của mỗi tầng trong một node, pp chia các tầng"
        " thành stage, dp nhân bản kết quả trên phần còn lại, với ZeRO-1 chia state optimizer trên nhóm"
        " dp.\n"
        "Mỗi rank giữ shard tp của một stage; activation đi giữa các stage bằng send/recv, các block"
        " all-reduce trong nhóm tp, ZeRO-1 reduce-scatter và all-gather trong nhóm dp.\n"
        "Làm đúng, nó tính đúng những gì một thiết bị tính: cùng loss ở mọi bước.\n"
        "Bộ chấm chạy trên 4 và 8 process: đường loss 10 bước so với huấn luyện một thiết bị; các thông"
        " điệp và collective của mỗi bước, chặn cả hai phía; và những gì mỗi rank giữ giữa các bước.\n"
        "Lỗi thường gặp: collective trên nhóm mặc định, cộng thay vì lấy trung bình, quên một parameter"
        " trong optimizer, mọi rank tạo cả mô hình.",
    ),
}
