"""Chapter 11's graded hints, English and Vietnamese (see ``graders.hints``); recaps live in ``recaps``."""

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
}
