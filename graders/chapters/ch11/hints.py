"""Chapter 11's graded hints, English and Vietnamese (see ``graders.words.hints``);
recaps live in ``recaps``."""

from graders.chapters.ch11.recaps import RECAPS

__all__ = ["HINTS", "RECAPS"]

HINTS: dict[str, list[tuple[str, str]]] = {
    "rank_layout": [
        (
            "Read topology.py's docstring: the formula of a rank from its coordinates, and the tp = dp = pp"
            " = 2 example with its groups.",
            "Đọc docstring của topology.py: công thức tính rank từ các toạ độ, và ví dụ tp = dp = pp = 2 cùng"
            " các group của nó.",
        ),
        (
            "self.sizes lists the sizes fastest first. coords peels a coordinate off per size with divmod;"
            " rank multiplies them back with a stride that grows by each size.",
            "self.sizes liệt kê các kích thước, nhanh nhất trước. coords tách một toạ độ cho mỗi kích thước"
            " bằng divmod; rank nhân ngược lại với bước nhảy tăng theo từng kích thước.",
        ),
        (
            "For groups(dims), give every rank a key made of its coordinates along the dimensions *not* in"
            " dims: ranks with the same key form one group. Sort each group, then the groups.",
            "Với groups(dims), cho mỗi rank một khoá gồm các toạ độ theo các chiều *không* nằm trong dims:"
            " các rank cùng khoá tạo thành một group. Sắp xếp từng group, rồi sắp xếp các group.",
        ),
    ],
    "build_groups": [
        (
            "Read process_groups.py's docstring: why every rank must call new_group for every group.",
            "Đọc docstring của process_groups.py: vì sao mọi rank phải gọi new_group cho mọi group.",
        ),
        (
            "Loop over dims, then over layout.groups(entry), and call dist.new_group(ranks) each time on"
            " every rank; keep the group whose ranks hold dist.get_rank().",
            "Lặp qua dims, rồi qua layout.groups(entry), và gọi dist.new_group(ranks) mỗi lần trên mọi rank;"
            " giữ lại group có chứa dist.get_rank().",
        ),
    ],
    "groups_crossing_nodes": [
        (
            "Read placement.py's docstring: which node a rank runs on.",
            "Đọc docstring của placement.py: một rank chạy trên node nào.",
        ),
        (
            "For each dimension, keep the groups of layout.groups(dim) whose ranks give more than one value"
            " of rank // gpus_per_node.",
            "Với mỗi chiều, giữ các group trong layout.groups(dim) mà các rank của chúng cho nhiều hơn một"
            " giá trị rank // gpus_per_node.",
        ),
    ],
    "best_order": [
        (
            "Read placement.py's docstring: how two orders compare.",
            "Đọc docstring của placement.py: cách so sánh hai order.",
        ),
        (
            "itertools.permutations gives all 120 orders; count each one's crossing groups with"
            " groups_crossing_nodes, as a tuple (tp, cp, ep, dp, pp), and keep an order with the smallest"
            " tuple.",
            "itertools.permutations cho cả 120 order; đếm số group vượt node của mỗi order bằng"
            " groups_crossing_nodes, dưới dạng tuple (tp, cp, ep, dp, pp), và giữ một order có tuple nhỏ"
            " nhất.",
        ),
    ],
    "memory_per_gpu": [
        (
            "Read planner.py's docstring: Ψ, the states of each ZeRO stage, and the activations of the first"
            " pipeline stage.",
            "Đọc docstring của planner.py: Ψ, trạng thái của từng stage ZeRO, và activation của stage"
            " pipeline đầu tiên.",
        ),
        (
            "Compute Ψ first (shared weights over tp·pp, experts over tp·pp·ep), multiply by the stage's"
            " bytes"
            " per parameter, then add layers/pp layers of activations for min(pp, m) micro-batches, with"
            " m = global_batch / (dp · micro_batch).",
            "Tính Ψ trước (trọng số dùng chung chia cho tp·pp, các expert chia cho tp·pp·ep), nhân với số"
            " byte"
            " mỗi tham số của stage, rồi cộng activation của layers/pp tầng cho min(pp, m) micro-batch, với"
            " m = global_batch / (dp · micro_batch).",
        ),
    ],
    "step_time": [
        (
            "Read planner.py's docstring: one compute term and five communication terms, nothing overlapped.",
            "Đọc docstring của planner.py: một số hạng tính toán và năm số hạng giao tiếp, không chồng lấp.",
        ),
        (
            "Write a helper bw(inside) for the bandwidth in bytes per second and ring(n, x) = 2(n − 1)/n · x;"
            " each term is bytes over the bandwidth of the link its group uses. pp_comm is 0 without a"
            " pipeline.",
            "Viết hàm phụ bw(inside) cho băng thông tính bằng byte mỗi giây và ring(n, x) = 2(n − 1)/n · x;"
            " mỗi"
            " số hạng là số byte chia cho băng thông của đường truyền mà group của nó dùng. pp_comm bằng 0"
            " khi"
            " không có pipeline.",
        ),
    ],
    "plan": [
        (
            "Read planner.py's docstring: what makes a plan valid, feasible, and best.",
            "Đọc docstring của planner.py: điều gì làm một plan hợp lệ, khả thi, và tốt nhất.",
        ),
        (
            "A brute-force search is fast enough: tp, cp and pp over the divisors of the world, dp = world /"
            " (tp·cp·pp), ep over dp's divisors, micro_batch over the divisors of global_batch / dp, and the"
            " four ZeRO stages; skip the invalid and those that do not fit, keep the fastest.",
            "Tìm kiếm vét cạn là đủ nhanh: tp, cp và pp trên các ước của world, dp = world / (tp·cp·pp), ep"
            " trên"
            " các ước của dp, micro_batch trên các ước của global_batch / dp, và bốn stage ZeRO; bỏ qua plan"
            " không hợp lệ và plan không vừa, giữ plan nhanh nhất.",
        ),
        (
            "When nothing fits, raise ValueError: a plan that does not fit would crash with an out-of-memory"
            " error on the cluster, after the job waited in the queue.",
            "Khi không có plan nào vừa, hãy báo ValueError: một plan không vừa sẽ bị lỗi hết bộ nhớ trên cụm"
            " máy, sau khi job đã chờ trong hàng đợi.",
        ),
    ],
    "trainer_3d": [
        (
            "Read framework.py's docstring: which blocks each stage holds, which columns each dp rank takes,"
            " and what train_step returns on which ranks.",
            "Đọc docstring của framework.py: mỗi stage giữ các block nào, mỗi rank dp lấy các cột nào, và"
            " train_step trả về gì trên rank nào.",
        ),
        (
            "Everything is already written in earlier chapters: RankLayout and build_groups give the tp, dp"
            " and pp groups; ParallelAttention and ParallelMLP take a block's state and the tp group;"
            " run_pipeline takes the stage, a schedule, the microbatches and the pp group; Zero1Optimizer"
            " takes the rank's parameters and the dp group.",
            "Mọi thứ đã được viết ở các chương trước: RankLayout và build_groups cho các nhóm tp, dp và pp;"
            " ParallelAttention và ParallelMLP nhận state của một block và nhóm tp; run_pipeline nhận stage,"
            " một schedule, các microbatch và nhóm pp; Zero1Optimizer nhận các parameter của rank và nhóm"
            " dp.",
        ),
        (
            "run_pipeline's stage maps [s, b, h] to [s, b, h]: embed on stage 0 before it (each microbatch's"
            " embedding keeps its graph, so backward reaches the embeddings) and put the final LayerNorm, the"
            " head and the cross-entropy in the loss function of the last stage. The loss of the step is the"
            " mean over dp ranks: one scalar all-reduce in the dp group.",
            "Stage của run_pipeline biến [s, b, h] thành [s, b, h]: làm embedding ở stage 0 trước đó"
            " (embedding của mỗi microbatch giữ graph của nó, để backward đi tới embedding) và đặt LayerNorm"
            " cuối, head và cross-entropy vào hàm loss của stage cuối. Loss của bước là trung bình trên các"
            " rank dp: một all-reduce vô hướng trong nhóm dp.",
        ),
    ],
}
