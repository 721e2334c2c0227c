"""Chapter 11's teaching messages in English and Vietnamese (see :mod:`graders.messages`)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "ch11:world size": {
        "en": "world_size is {got}; the layout has {expected} ranks (the product of the five sizes).",
        "vi": "world_size là {got}; layout có {expected} rank (tích của năm kích thước).",
    },
    "ch11:coords": {
        "en": "coords({rank}) is {got}; expected {expected}.",
        "vi": "coords({rank}) là {got}; mong đợi {expected}.",
    },
    "ch11:rank": {
        "en": "rank(**{coords}) is {got}; it must give back {rank}.",
        "vi": "rank(**{coords}) là {got}; nó phải trả lại {rank}.",
    },
    "ch11:coords:hint": {
        "en": "the first dimension of order varies fastest: peel the coordinates off with divmod, size by"
        " size, in the order's sequence; rank() multiplies them back with growing strides.",
        "vi": "chiều đầu tiên của order thay đổi nhanh nhất: tách các toạ độ bằng divmod, từng kích thước"
        " một, theo thứ tự của order; rank() nhân ngược lại với các bước nhảy tăng dần.",
    },
    "ch11:groups": {
        "en": "groups({dims!r}) is {got}; expected {expected}.",
        "vi": "groups({dims!r}) là {got}; mong đợi {expected}.",
    },
    "ch11:groups:hint": {
        "en": "a group of some dimensions holds the ranks that agree on every other coordinate; list each"
        " group's ranks sorted, and the groups by their first rank.",
        "vi": "một group của vài chiều gồm các rank có cùng mọi toạ độ khác; liệt kê các rank của mỗi group"
        " theo thứ tự tăng, và các group theo rank đầu tiên của chúng.",
    },
    "ch11:order:hint": {
        "en": "this layout has its own order: read the sizes in that order (the first varies fastest), not"
        " in tp-cp-ep-dp-pp's.",
        "vi": "layout này có order riêng: đọc các kích thước theo order đó (chiều đầu tiên thay đổi nhanh"
        " nhất), không theo tp-cp-ep-dp-pp.",
    },
    "ch11:no group": {
        "en": "on rank {rank}, build_groups returned no group for {entry!r}.",
        "vi": "trên rank {rank}, build_groups không trả về group nào cho {entry!r}.",
    },
    "ch11:membership": {
        "en": "on rank {rank}, the group returned for {entry!r} holds the ranks {got}; expected {expected}.",
        "vi": "trên rank {rank}, group trả về cho {entry!r} gồm các rank {got}; mong đợi {expected}.",
    },
    "ch11:unusable": {
        "en": "on rank {rank}, an all-reduce of the ranks inside the group of {entry!r} gave {got};"
        " expected {expected}.",
        "vi": "trên rank {rank}, all-reduce các rank bên trong group của {entry!r} cho {got}; mong đợi"
        " {expected}.",
    },
    "ch11:build:hint": {
        "en": "new_group is collective: every rank calls it for every group of every entry, in the same"
        " order, and keeps the one it is in.",
        "vi": "new_group là thao tác tập thể: mọi rank gọi nó cho mọi group của mọi entry, theo cùng thứ"
        " tự, và giữ lại group chứa mình.",
    },
    "ch11:crossing keys": {
        "en": "groups_crossing_nodes returned {got}; it returns a dict with one entry per dimension (tp, cp,"
        " ep, dp, pp).",
        "vi": "groups_crossing_nodes trả về {got}; nó phải trả về một dict có một mục cho mỗi chiều (tp,"
        " cp, ep, dp, pp).",
    },
    "ch11:crossing": {
        "en": "the {dim} groups that cross nodes are {got}; expected {expected}.",
        "vi": "các group {dim} vượt qua nhiều node là {got}; mong đợi {expected}.",
    },
    "ch11:crossing:hint": {
        "en": "rank r runs on node r // gpus_per_node: a group crosses when its ranks are on more than one"
        " node; keep them as layout.groups lists them.",
        "vi": "rank r chạy trên node r // gpus_per_node: một group vượt node khi các rank của nó nằm trên"
        " nhiều hơn một node; giữ chúng theo cách layout.groups liệt kê.",
    },
    "ch11:not an order": {
        "en": "best_order returned {got}; it returns an order string naming tp, cp, ep, dp and pp once each.",
        "vi": "best_order trả về {got}; nó phải trả về một chuỗi order nêu tp, cp, ep, dp và pp mỗi thứ một"
        " lần.",
    },
    "ch11:best order": {
        "en": "with order {order!r} the groups crossing nodes are {got} (tp, cp, ep, dp, pp); another order"
        " gets {best}.",
        "vi": "với order {order!r}, số group vượt node là {got} (tp, cp, ep, dp, pp); một order khác đạt"
        " {best}.",
    },
    "ch11:best order:hint": {
        "en": "compare orders by their crossing groups, tp first, then cp, ep, dp and pp; trying all 120"
        " orders is cheap.",
        "vi": "so sánh các order theo số group vượt node, tp trước, rồi cp, ep, dp và pp; thử cả 120 order"
        " là rẻ.",
    },
    "ch11:not a number": {
        "en": "returned {got}; it returns a number.",
        "vi": "trả về {got}; hàm phải trả về một số.",
    },
    "ch11:memory": {
        "en": "memory_per_gpu is {got} B; the model of planner.py's docstring gives {expected} B.",
        "vi": "memory_per_gpu là {got} B; mô hình trong docstring của planner.py cho {expected} B.",
    },
    "ch11:memory:hint": {
        "en": "Ψ shards the shared weights over tp·pp and the experts over tp·pp·ep; the ZeRO stage divides"
        " 12, 14 or all 16 bytes by dp; the first stage holds min(pp, m) micro-batches of activations,"
        " layers/pp of them each.",
        "vi": "Ψ chia trọng số dùng chung theo tp·pp và các expert theo tp·pp·ep; stage ZeRO chia 12, 14"
        " hoặc cả 16 byte cho dp; stage đầu giữ activation của min(pp, m) micro-batch, mỗi cái layers/pp"
        " tầng.",
    },
    "ch11:time": {
        "en": "step_time is {got} s; the model of planner.py's docstring gives {expected} s.",
        "vi": "step_time là {got} s; mô hình trong docstring của planner.py cho {expected} s.",
    },
    "ch11:time:hint": {
        "en": "compute is stretched by the bubble (1 + (pp − 1)/m); each communication term uses NVLink when"
        " its group fits in a node (tp, tp·cp, tp·cp·dp ≤ gpus_per_node) and InfiniBand otherwise.",
        "vi": "phần tính toán bị kéo dài bởi bubble (1 + (pp − 1)/m); mỗi số hạng giao tiếp dùng NVLink khi"
        " group của nó vừa trong một node (tp, tp·cp, tp·cp·dp ≤ gpus_per_node) và InfiniBand nếu không.",
    },
    "ch11:plan refused": {
        "en": "plan raised ValueError ({why}), but a plan fits: the best takes {best} s per step.",
        "vi": "plan báo ValueError ({why}), nhưng có plan vừa bộ nhớ: plan tốt nhất mất {best} s mỗi bước.",
    },
    "ch11:plan invalid": {
        "en": "plan returned {got}, which is not a valid plan of this cluster and model.",
        "vi": "plan trả về {got}, không phải một plan hợp lệ cho cụm máy và mô hình này.",
    },
    "ch11:plan too big": {
        "en": "the plan needs {gb} GB per GPU; the GPUs have {limit} GB.",
        "vi": "plan cần {gb} GB mỗi GPU; GPU chỉ có {limit} GB.",
    },
    "ch11:plan slow": {
        "en": "the plan's step takes {time} s; the best plan's takes {best} s (more than {slack} faster).",
        "vi": "mỗi bước của plan mất {time} s; plan tốt nhất mất {best} s (nhanh hơn quá {slack}).",
    },
    "ch11:plan:hint": {
        "en": "try every valid split: tp, cp and pp among the divisors of the world (dp is what is left), ep"
        " among dp's, micro_batch among the divisors of global_batch / dp, every ZeRO stage; keep the"
        " fastest that fits.",
        "vi": "thử mọi cách chia hợp lệ: tp, cp và pp trong các ước của world (dp là phần còn lại), ep trong"
        " các ước của dp, micro_batch trong các ước của global_batch / dp, mọi stage ZeRO; giữ plan nhanh"
        " nhất vừa bộ nhớ.",
    },
    "ch11:plan accepted": {
        "en": "plan returned {got}, but no plan fits this model in these GPUs: it raises ValueError.",
        "vi": "plan trả về {got}, nhưng không plan nào đưa được mô hình này vào các GPU: hàm phải báo"
        " ValueError.",
    },
    "ch11:infeasible:hint": {
        "en": "when the search finds no feasible plan, raise ValueError saying the model does not fit; never"
        " return the least-bad plan.",
        "vi": "khi tìm không ra plan khả thi, hãy báo ValueError nói rằng mô hình không vừa; đừng bao giờ trả"
        " về plan ít tệ nhất.",
    },
}
