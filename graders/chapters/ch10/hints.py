"""Chapter 10's graded hints, English and Vietnamese (see ``graders.words.hints``);
recaps live in ``recaps``."""

from graders.chapters.ch10.recaps import RECAPS

__all__ = ["HINTS", "RECAPS"]

HINTS: dict[str, list[tuple[str, str]]] = {
    "capacity": [
        (
            "Read the docstring at the top of router.py: it states the capacity formula, and what a "
            "token's k choices have to do with it.",
            "Đọc docstring ở đầu router.py: nó nêu công thức capacity, và k lựa chọn của mỗi token liên quan "
            "gì tới công thức đó.",
        ),
        (
            "Multiply the factor by the number of choices (tokens times k), divide by the number of "
            "experts, and round any fraction of a slot up, never down or to the nearest; the result is an "
            "int, not a float.",
            "Nhân hệ số với số lựa chọn (tokens nhân k), chia cho số expert, rồi làm tròn lên mọi phần lẻ "
            "của một slot, không làm tròn xuống hay làm tròn gần nhất; kết quả là một int, không phải float.",
        ),
    ],
    "top_k_router": [
        (
            "Read the conventions in router.py's module docstring, one by one: ranking and ties, position "
            "priority, gates, losses; and the Routing dataclass for the shapes each field must have.",
            "Đọc lần lượt từng quy ước trong docstring của module router.py: xếp hạng và trường hợp bằng "
            "nhau, ưu tiên vị trí, gate, loss; và dataclass Routing để biết shape của từng trường.",
        ),
        (
            "Rank the experts by logit with a stable descending sort, so that equal logits keep the lower "
            "index first (torch.topk promises no order among equals), and keep the first k. Gates are read "
            "from the softmax probabilities, which must stay in the graph, and are normalized over the "
            "token's k choices before any drop.",
            "Xếp hạng các expert theo logit bằng một phép sắp xếp ổn định, giảm dần, để các logit bằng nhau "
            "giữ chỉ số nhỏ hơn đứng trước (torch.topk không hứa thứ tự giữa các giá trị bằng nhau), rồi giữ "
            "k expert đầu. Gate được lấy từ xác suất softmax, phải nằm trong đồ thị tính toán, và được chuẩn "
            "hoá trên k lựa chọn của token trước khi loại bỏ token nào.",
        ),
        (
            "For the slots, walk the choices choice-major: all first choices in token order, then all "
            "second choices. Each expert keeps a running count: a choice takes the slot at the count if it "
            "is below the capacity, otherwise it is dropped. A cumulative sum over one-hot choices laid out "
            "in that order gives every position at once. f_e counts the choices before capacity.",
            "Với các slot, duyệt các lựa chọn theo lượt lựa chọn trước: mọi lựa chọn thứ nhất theo thứ tự "
            "token, rồi mọi lựa chọn thứ hai. Mỗi expert giữ một bộ đếm: lựa chọn nhận slot có chỉ số bằng "
            "bộ đếm nếu bộ đếm còn nhỏ hơn capacity, ngược lại thì bị loại. Một tổng tích luỹ (cumsum) trên "
            "các lựa chọn one-hot xếp theo đúng thứ tự đó cho mọi vị trí cùng lúc. f_e đếm các lựa chọn "
            "trước capacity.",
        ),
    ],
    "moe_layer": [
        (
            "Read moe_layer.py's module docstring and the meaning of dispatch and combine in router.py's: "
            "dispatch says which token sits in which slot, combine with what weight.",
            "Đọc docstring của module moe_layer.py và ý nghĩa của dispatch và combine trong docstring của "
            "router.py: dispatch cho biết token nào nằm ở slot nào, combine cho biết với trọng số nào.",
        ),
        (
            "Gather each expert's slots from the tokens with dispatch (an einsum over tokens gives an "
            "[experts, capacity, hidden] tensor), run expert e on its own slots only, and sum every slot's "
            "output back into its token weighted by combine itself (not dispatch, not a detached copy), so "
            "that the router, the tokens and every expert get their gradients. Return the output together "
            "with the routing.",
            "Gom các slot của mỗi expert từ các token bằng dispatch (một einsum trên các token cho tensor "
            "[experts, capacity, hidden]), chạy expert e chỉ trên các slot của nó, rồi cộng đầu ra của mỗi "
            "slot về token của nó theo trọng số chính là combine (không phải dispatch, không phải một bản đã "
            "detach), để router, các token và mọi expert đều nhận gradient. Trả về đầu ra cùng với routing.",
        ),
    ],
    "expert_parallel_moe": [
        (
            "Read the numbered steps in expert_parallel.py's module docstring, and the constructor given: "
            "it keeps this rank's experts and a copy of the router.",
            "Đọc các bước được đánh số trong docstring của module expert_parallel.py, và constructor cho "
            "sẵn: nó giữ các expert của rank này và một bản sao của router.",
        ),
        (
            "Route locally, gather each expert's kept rows (slots fill from 0, so the count of dispatched "
            "tokens per expert says how many), and lay them out expert by expert: the experts of rank 0 "
            "come first, so each rank's share is a contiguous run. Exchange those per-expert counts with one "
            "all_to_all_single of int64 counts, and sum them per rank to get the send and receive split "
            "sizes.",
            "Định tuyến tại chỗ, gom các hàng được giữ của mỗi expert (slot lấp từ 0, nên số token được "
            "dispatch cho mỗi expert cho biết có bao nhiêu hàng), và xếp chúng theo từng expert: các expert "
            "của rank 0 đứng đầu, nên phần của mỗi rank là một đoạn liên tiếp. Trao đổi các bộ đếm theo "
            "expert bằng một all_to_all_single các số int64, rồi cộng theo từng rank để có split size gửi "
            "và nhận.",
        ),
        (
            "The dispatch all-to-all is an autograd Function of your own whose backward is the same "
            "all-to-all with send and receive swapped, sizes kept from forward. Rows arrive source by "
            "source, each source's expert by expert: regroup them per local expert, run it, put the results "
            "back in the same order for the reverse all-to-all, and scatter the returned rows into their "
            "slots (padding with zeros to the capacity only locally) before combining.",
            "All-to-all phân phối là một autograd Function của riêng bạn, có backward là chính all-to-all đó "
            "với gửi và nhận hoán đổi, kích thước giữ lại từ forward. Các hàng tới theo từng nguồn, trong "
            "mỗi nguồn theo từng expert: gom lại theo từng expert cục bộ, chạy nó, xếp kết quả về đúng thứ "
            "tự cũ cho all-to-all ngược chiều, rồi đặt các hàng trả về vào slot của chúng (chỉ đệm 0 tới "
            "capacity tại chỗ) trước khi combine.",
        ),
    ],
    "expert_data_parallel_ranks": [
        (
            "Read groups.py's module docstring and expert_parallel_ranks just above: the layout "
            "g = d·ep + e tells which coordinate changes fastest.",
            "Đọc docstring của module groups.py và hàm expert_parallel_ranks ngay phía trên: bố cục "
            "g = d·ep + e cho biết toạ độ nào thay đổi nhanh nhất.",
        ),
        (
            "Validate first with the same check expert_parallel_ranks uses (a world that is not ep × dp "
            "raises ValueError). Then the ranks holding shard e are e, e+ep, e+2·ep, … up to the world: one "
            "strided range per e, ep groups in all.",
            "Kiểm tra trước bằng cùng phép kiểm tra mà expert_parallel_ranks dùng (world không bằng ep × dp "
            "thì báo ValueError). Sau đó các rank giữ shard e là e, e+ep, e+2·ep, … tới hết world: mỗi e một "
            "dãy cách đều, tổng cộng ep nhóm.",
        ),
    ],
    "all_reduce_moe_gradients": [
        (
            "Read the last paragraph of groups.py's module docstring and the function's own: which group "
            "each kind of parameter is summed over, and what both are divided by.",
            "Đọc đoạn cuối trong docstring của module groups.py và docstring của chính hàm: mỗi loại tham số "
            "được cộng trên nhóm nào, và cả hai được chia cho gì.",
        ),
        (
            "Tell the expert parameters apart by identity (the parameters of moe.experts); every other "
            "parameter with a gradient is dense. All-reduce each gradient in place over its own group, "
            "expert_group for experts and dense_group for the rest, skip those whose grad is None, and "
            "divide all of them by the size of dense_group: the experts' gradients already sum their "
            "expert-parallel group's tokens.",
            "Phân biệt tham số expert theo định danh (các tham số của moe.experts); mọi tham số khác có "
            "gradient là dense. All-reduce tại chỗ mỗi gradient trên nhóm của nó, expert_group cho expert và "
            "dense_group cho phần còn lại, bỏ qua những tham số có grad là None, và chia tất cả cho kích "
            "thước của dense_group: gradient của expert đã cộng sẵn token của nhóm expert-parallel.",
        ),
    ],
}
