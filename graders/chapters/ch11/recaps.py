"""Chapter 11's theory recaps, English and Vietnamese (see ``graders.hints``)."""

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
}
