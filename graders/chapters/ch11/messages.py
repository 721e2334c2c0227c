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
}
