"""Chapter 11's teaching messages in English and Vietnamese (see :mod:`graders.words.messages`)."""

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
    # -- framework.py: the capstone ------------------------------------------------------------------
    "ch11:state changed": {
        "en": "rank {rank} changed the state dict it was handed: copy the weights a rank keeps, never train"
        " the caller's tensors in place.",
        "vi": "rank {rank} đã thay đổi state dict được trao: hãy sao chép các trọng số mà rank giữ, đừng bao"
        " giờ huấn luyện tại chỗ trên tensor của bên gọi.",
    },
    "ch11:state changed:hint": {
        "en": "build each parameter from a copy (.clone(), or the chunk your chapter 6 layers already copy).",
        "vi": "tạo mỗi parameter từ một bản sao (.clone(), hoặc chunk mà các layer chương 6 đã sao chép).",
    },
    "ch11:loss off the last stage": {
        "en": "rank {rank} is on stage {stage}, not the last, yet train_step returned {got}: only the last"
        " stage has the loss; the others return None.",
        "vi": "rank {rank} ở stage {stage}, không phải stage cuối, nhưng train_step trả về {got}: chỉ stage"
        " cuối có loss; các rank khác trả về None.",
    },
    "ch11:loss not a number": {
        "en": "rank {rank}, step {step}: train_step returned {got}; the last stage returns the loss as a"
        " float.",
        "vi": "rank {rank}, bước {step}: train_step trả về {got}; stage cuối trả về loss dưới dạng float.",
    },
    "ch11:loss curve": {
        "en": "rank {rank}, step {step}: the loss is {got}; single-device training gives {expected}.",
        "vi": "rank {rank}, bước {step}: loss là {got}; huấn luyện trên một thiết bị cho {expected}.",
    },
    "ch11:first loss:hint": {
        "en": "the first step's loss is wrong before any update: check which columns each dp rank takes, the"
        " blocks of each stage (s·L/pp onwards), that stage 0 embeds and the last stage applies ln and the"
        " head, and that the loss is averaged over the dp ranks.",
        "vi": "loss của bước đầu đã sai trước mọi cập nhật: kiểm tra các cột mỗi rank dp lấy, các block của"
        " mỗi stage (từ s·L/pp), stage 0 làm embedding và stage cuối áp dụng ln và head, và loss được lấy"
        " trung bình trên các rank dp.",
    },
    "ch11:losses:hint": {
        "en": "the first losses agree and later ones drift: an update is wrong. Every parameter a rank holds"
        " must reach its ZeRO-1 optimizer (embeddings and head included), and gradients must be the mean"
        " over dp ranks and microbatches, not the sum.",
        "vi": "các loss đầu khớp và các loss sau lệch dần: một bước cập nhật sai. Mọi parameter rank giữ phải"
        " đến optimizer ZeRO-1 của nó (kể cả embedding và head), và gradient phải là trung bình trên các"
        " rank dp và các microbatch, không phải tổng.",
    },
    "ch11:send off the pipeline": {
        "en": "rank {rank}, step {step}: a message went to rank {peer}; a stage sends only to its"
        " neighbouring stages {neighbours}.",
        "vi": "rank {rank}, bước {step}: một thông điệp gửi tới rank {peer}; một stage chỉ gửi tới các stage"
        " kề nó {neighbours}.",
    },
    "ch11:pipeline messages": {
        "en": "rank {rank}, step {step}: the {direction} messages to rank {peer} were {got} bytes; expected"
        " {count} of {size} bytes (one per microbatch).",
        "vi": "rank {rank}, bước {step}: các thông điệp {direction} tới rank {peer} là {got} byte; mong đợi"
        " {count} thông điệp {size} byte (mỗi microbatch một).",
    },
    "ch11:pipeline:hint": {
        "en": "hand run_pipeline the pp group: it talks to group ranks s ± 1 of that group, which are the"
        " global ranks tp·dp apart.",
        "vi": "hãy đưa nhóm pp cho run_pipeline: nó trao đổi với group rank s ± 1 của nhóm đó, tức các rank"
        " toàn cục cách nhau tp·dp.",
    },
    "ch11:collective elsewhere": {
        "en": "rank {rank}, step {step}: {op} over ranks {group}; a step's collectives belong to the rank's"
        " tp group (the blocks) and dp group (ZeRO-1) only.",
        "vi": "rank {rank}, bước {step}: {op} trên các rank {group}; các collective của một bước chỉ thuộc"
        " nhóm tp (các block) và nhóm dp (ZeRO-1) của rank.",
    },
    "ch11:groups used:hint": {
        "en": "build the blocks with groups['tp'], ZeRO-1 with groups['dp'], the pipeline with groups['pp']:"
        " the default group (None) is the whole world.",
        "vi": "tạo các block với groups['tp'], ZeRO-1 với groups['dp'], pipeline với groups['pp']: nhóm mặc"
        " định (None) là toàn bộ world.",
    },
    "ch11:tp traffic": {
        "en": "rank {rank}, step {step}: {got} all-reduces in the tp group sending {sent} bytes; expected"
        " {count} all-reduces of {size} bytes ({expected} bytes on a ring): one per block half, microbatch"
        " and direction.",
        "vi": "rank {rank}, bước {step}: {got} all-reduce trong nhóm tp gửi {sent} byte; mong đợi {count}"
        " all-reduce {size} byte ({expected} byte trên ring): mỗi nửa block, microbatch và chiều một lần.",
    },
    "ch11:tp traffic:hint": {
        "en": "each attention and MLP half is one column layer then one row layer (chapter 6): one all-reduce"
        " forward, one backward; the embeddings and the head are replicated and send nothing.",
        "vi": "mỗi nửa attention và MLP là một layer column rồi một layer row (chương 6): một all-reduce"
        " chiều xuôi, một chiều ngược; embedding và head được nhân bản và không gửi gì.",
    },
    "ch11:dp traffic": {
        "en": "rank {rank}, step {step}: the dp group carried {sent} bytes from this rank; ZeRO-1 of its"
        " parameters sends between {least} (reduce-scatter and all-gather) and {most} bytes.",
        "vi": "rank {rank}, bước {step}: nhóm dp mang {sent} byte từ rank này; ZeRO-1 trên các parameter của"
        " nó gửi từ {least} (reduce-scatter và all-gather) đến {most} byte.",
    },
    "ch11:dp traffic:hint": {
        "en": "one Zero1Optimizer over every parameter the rank holds, on groups['dp'], stepped once per"
        " step: not one per microbatch, and not over the whole model.",
        "vi": "một Zero1Optimizer trên mọi parameter rank giữ, trên groups['dp'], chạy một lần mỗi bước:"
        " không phải mỗi microbatch một lần, và không phải trên toàn bộ mô hình.",
    },
    "ch11:memory kept": {
        "en": "rank {rank} keeps {kept} bytes alive between steps; its stage's shard has {elements} elements,"
        " which allows {limit} bytes (parameters, gradients, a flat copy, a 1/dp share of the state).",
        "vi": "rank {rank} giữ {kept} byte giữa các bước; shard của stage nó có {elements} phần tử, cho phép"
        " {limit} byte (parameter, gradient, một bản phẳng, 1/dp phần state).",
    },
    "ch11:memory too little": {
        "en": "rank {rank} keeps only {kept} bytes alive between steps, less than its own parameters"
        " ({least} bytes): the weights it trains live somewhere they should not (the tensors it was handed).",
        "vi": "rank {rank} chỉ giữ {kept} byte giữa các bước, ít hơn chính các parameter của nó ({least}"
        " byte): các trọng số nó huấn luyện nằm ở chỗ không nên (các tensor được trao).",
    },
    "ch11:memory kept:hint": {
        "en": "a rank builds only its stage: its blocks' tp shards, the embeddings on stage 0, the head on"
        " the last; never the whole model, and the optimizer state of its dp share only.",
        "vi": "một rank chỉ tạo stage của nó: shard tp của các block, embedding ở stage 0, head ở stage cuối;"
        " không bao giờ cả mô hình, và chỉ state optimizer của phần dp của nó.",
    },
}
