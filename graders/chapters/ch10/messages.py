"""Chapter 10's teaching messages in English and Vietnamese (see :mod:`graders.words.messages`)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    # -- capacity
    "ch10:capacity": {
        "en": "the slots per expert returned by capacity(...)",
        "vi": "số slot mỗi expert mà capacity(...) trả về",
    },
    "ch10:capacity not int": {
        "en": "capacity(...) must return an int (a number of slots), got {got}.",
        "vi": "capacity(...) phải trả về một int (số slot), nhưng nhận được {got}.",
    },
    "ch10:capacity:hint": {
        "en": "capacity = ceil(capacity_factor · tokens · k / experts): the k choices of every token count,"
        " and a fraction of a slot is rounded up, never down.",
        "vi": "capacity = ceil(capacity_factor · tokens · k / experts): tính cả k lựa chọn của mỗi token,"
        " và phần lẻ của một slot được làm tròn lên, không bao giờ làm tròn xuống.",
    },
    # -- the router
    "ch10:routing field": {
        "en": "the router's result has no tensor `{name}` (got {got}): return a Routing with dispatch,"
        " combine, experts, aux_loss and z_loss.",
        "vi": "kết quả của router không có tensor `{name}` (nhận được {got}): hãy trả về một Routing gồm"
        " dispatch, combine, experts, aux_loss và z_loss.",
    },
    "ch10:routing of": {
        "en": "the router's `{name}`",
        "vi": "`{name}` của router",
    },
    "ch10:experts reached": {
        "en": "which experts each token reaches (dispatch, any slot)",
        "vi": "những expert mà mỗi token tới được (dispatch, ở bất kỳ slot nào)",
    },
    "ch10:token weights": {
        "en": "each token's weight for each expert (combine, summed over the slots)",
        "vi": "trọng số của mỗi token cho mỗi expert (combine, cộng trên các slot)",
    },
    "ch10:weight without slot": {
        "en": "combine[{t}, {e}, {c}] is not zero, but token {t} was not dispatched to slot {c} of"
        " expert {e}.",
        "vi": "combine[{t}, {e}, {c}] khác 0, nhưng token {t} không được gửi tới slot {c} của expert {e}.",
    },
    "ch10:routing:hint": {
        "en": "rank each token's experts by logit, best first, and keep the first k; `experts[t]` lists"
        " them in that order.",
        "vi": "xếp hạng các expert của mỗi token theo logit, tốt nhất trước, và giữ k expert đầu;"
        " `experts[t]` liệt kê chúng theo đúng thứ tự đó.",
    },
    "ch10:ties:hint": {
        "en": "these logits tie exactly: among equal logits the lower expert index wins (a stable sort,"
        " descending). torch.topk does not promise which of equal values it returns.",
        "vi": "các logit này bằng nhau tuyệt đối: giữa các logit bằng nhau, expert có chỉ số nhỏ hơn"
        " thắng (sắp xếp ổn định, giảm dần). torch.topk không hứa sẽ trả về phần tử nào trong các giá"
        " trị bằng nhau.",
    },
    "ch10:gates:hint": {
        "en": "a slot's combine weight is its token's gate for that expert: the softmax probability,"
        " divided by the sum over the token's k choices when normalize=True (before any drop).",
        "vi": "trọng số combine của một slot là gate của token cho expert đó: xác suất softmax, chia cho"
        " tổng trên k lựa chọn của token khi normalize=True (trước khi loại bỏ token nào).",
    },
    "ch10:capacity shape:hint": {
        "en": "dispatch is [tokens, experts, capacity]: one slot axis per expert, of length capacity(...).",
        "vi": "dispatch có shape [tokens, experts, capacity]: mỗi expert một trục slot, dài capacity(...).",
    },
    "ch10:too many experts": {
        "en": "token {t} was dispatched to {n} slots, but a token goes to at most k={k} experts.",
        "vi": "token {t} được gửi tới {n} slot, nhưng một token chỉ đi tới tối đa k={k} expert.",
    },
    "ch10:slot shared": {
        "en": "slot {c} of expert {e} holds more than one token.",
        "vi": "slot {c} của expert {e} chứa nhiều hơn một token.",
    },
    "ch10:slot hole": {
        "en": "expert {e}'s slot {c} is used while an earlier slot is empty: slots fill from 0, in order.",
        "vi": "slot {c} của expert {e} được dùng trong khi một slot trước nó còn trống: các slot được"
        " lấp từ 0, theo thứ tự.",
    },
    "ch10:slots:hint": {
        "en": "give every expert a running count: the next token it keeps goes to slot count, and the"
        " count goes up by one; a token that finds count = capacity is dropped.",
        "vi": "hãy giữ cho mỗi expert một bộ đếm: token tiếp theo nó giữ vào slot có chỉ số bằng bộ đếm,"
        " rồi bộ đếm tăng một; token gặp bộ đếm = capacity thì bị loại.",
    },
    "ch10:priority:hint": {
        "en": "position priority: every token's first choice is served before any second choice, and"
        " within one choice earlier tokens come first; a full expert drops the later ones.",
        "vi": "ưu tiên theo vị trí: lựa chọn thứ nhất của mọi token được phục vụ trước mọi lựa chọn thứ"
        " hai, và trong cùng một lượt lựa chọn, token đứng trước được ưu tiên; expert đã đầy thì loại"
        " các token đến sau.",
    },
    "ch10:load balance": {
        "en": "tokens kept per expert (cap: slots per expert, drop: choices that found their expert full):",
        "vi": "số token mỗi expert giữ (cap: số slot mỗi expert, drop: số lựa chọn gặp expert đã đầy):",
    },
    "ch10:loss not scalar": {
        "en": "the router's `{name}` must be a scalar tensor, got {got}.",
        "vi": "`{name}` của router phải là một tensor vô hướng (scalar), nhưng nhận được {got}.",
    },
    "ch10:loss value": {
        "en": "the router's `{name}`",
        "vi": "`{name}` của router",
    },
    "ch10:uniform aux": {
        "en": "the aux loss of perfectly uniform routing (it must be exactly 1)",
        "vi": "aux loss của một phân phối định tuyến hoàn toàn đều (phải đúng bằng 1)",
    },
    "ch10:aux:hint": {
        "en": "Switch aux loss = E · Σ_e f_e · P_e: f_e the fraction of all tokens · k choices that picked"
        " e (counted before capacity), P_e the mean probability of e over the tokens.",
        "vi": "aux loss của Switch = E · Σ_e f_e · P_e: f_e là tỉ lệ trong tổng tokens · k lựa chọn đã"
        " chọn e (đếm trước khi áp capacity), P_e là xác suất trung bình của e trên các token.",
    },
    "ch10:z:hint": {
        "en": "ST-MoE z-loss = the mean over tokens of logsumexp(logits)²: it keeps the logits small.",
        "vi": "z-loss của ST-MoE = trung bình trên các token của logsumexp(logits)²: nó giữ cho logit nhỏ.",
    },
    "ch10:loss no grad": {
        "en": "the router's losses cannot be differentiated ({why}).",
        "vi": "không lấy đạo hàm được các loss của router ({why}).",
    },
    "ch10:loss weight grad": {
        "en": "the gradient of a·aux_loss + b·z_loss with respect to the router's weight",
        "vi": "gradient của a·aux_loss + b·z_loss theo trọng số của router",
    },
    "ch10:loss grad:hint": {
        "en": "compute both losses from the differentiable probabilities and logits; only f_e, a count,"
        " carries no gradient.",
        "vi": "hãy tính cả hai loss từ xác suất và logit khả vi; chỉ có f_e, một phép đếm, là không mang"
        " gradient.",
    },
    "ch10:combine no grad": {
        "en": "the combine weights cannot be differentiated ({why}): the router would never learn.",
        "vi": "không lấy đạo hàm được các trọng số combine ({why}): router sẽ không bao giờ học được.",
    },
    "ch10:router weight grad": {
        "en": "the gradient of the router's weight",
        "vi": "gradient của trọng số router",
    },
    "ch10:tokens grad": {
        "en": "the gradient of the tokens",
        "vi": "gradient của các token",
    },
    "ch10:router grad:hint": {
        "en": "the gradient reaches the router only through the gates: keep the softmax probabilities in"
        " the graph (the expert indices and the capacity mask carry none).",
        "vi": "gradient chỉ tới được router qua các gate: hãy giữ xác suất softmax trong đồ thị tính toán"
        " (chỉ số expert và mặt nạ capacity không mang gradient).",
    },
    # -- the layer
    "ch10:layer output": {
        "en": "the MoE layer's output",
        "vi": "đầu ra của lớp MoE",
    },
    "ch10:layer:hint": {
        "en": "gather each expert's slots with dispatch, run expert e on its slots only, and add every"
        " token's outputs weighted by combine; a token every expert dropped comes out as zeros.",
        "vi": "gom các slot của mỗi expert bằng dispatch, chạy expert e chỉ trên các slot của nó, rồi cộng"
        " các đầu ra của mỗi token theo trọng số combine; token bị mọi expert loại thì ra toàn số 0.",
    },
    "ch10:layer backward:hint": {
        "en": "build the output from the tokens and the experts with differentiable operations: an expert's"
        " gradient comes only from the tokens it was given.",
        "vi": "hãy dựng đầu ra từ các token và các expert bằng những phép toán khả vi: gradient của một"
        " expert chỉ đến từ những token nó được giao.",
    },
    "ch10:combine grad:hint": {
        "en": "the router learns through the combine weights: multiply the expert outputs by combine"
        " itself, not by a detached copy or by dispatch.",
        "vi": "router học qua các trọng số combine: hãy nhân đầu ra của expert với chính combine, không"
        " phải một bản đã detach hay với dispatch.",
    },
    "ch10:expert grad": {
        "en": "rank {rank}'s gradient of expert {e}'s {name}",
        "vi": "gradient của {name} thuộc expert {e} trên rank {rank}",
    },
    "ch10:no backward": {
        "en": "rank {rank}: the gradient could not be back-propagated through the output ({why}).",
        "vi": "rank {rank}: không thể lan truyền ngược gradient qua đầu ra ({why}).",
    },
    "ch10:no backward:hint": {
        "en": "return (output, routing), where output has the tokens' shape and dtype and a grad_fn.",
        "vi": "hãy trả về (output, routing), trong đó output có shape và dtype của các token và có grad_fn.",
    },
    # -- expert parallelism
    "ch10:experts held": {
        "en": "rank {rank} holds {held} experts in `self.experts`; with this group each rank holds {per}.",
        "vi": "rank {rank} giữ {held} expert trong `self.experts`; với nhóm này mỗi rank giữ {per}.",
    },
    "ch10:experts held:hint": {
        "en": "keep only this rank's experts, r·E/p … (r+1)·E/p, in self.experts, in order.",
        "vi": "chỉ giữ các expert của rank này, r·E/p … (r+1)·E/p, trong self.experts, theo thứ tự.",
    },
    "ch10:rank output": {
        "en": "rank {rank}'s output",
        "vi": "đầu ra của rank {rank}",
    },
    "ch10:rank tokens grad": {
        "en": "the gradient of rank {rank}'s tokens",
        "vi": "gradient của các token trên rank {rank}",
    },
    "ch10:rank router grad": {
        "en": "rank {rank}'s router gradient",
        "vi": "gradient của router trên rank {rank}",
    },
    "ch10:expert parallel:hint": {
        "en": "every rank's output must equal the single-device layer on that rank's own tokens: route"
        " locally, send each kept token to its expert's rank, and bring each result back to the slot it"
        " came from.",
        "vi": "đầu ra trên mỗi rank phải bằng lớp MoE một thiết bị chạy trên chính các token của rank đó:"
        " định tuyến tại chỗ, gửi mỗi token được giữ tới rank của expert của nó, rồi đưa mỗi kết quả về"
        " đúng slot nó đã rời đi.",
    },
    "ch10:router replicated:hint": {
        "en": "the router is replicated: its gradient on a rank comes from that rank's own tokens only"
        " (the data-parallel sync averages it later).",
        "vi": "router được nhân bản: gradient của nó trên một rank chỉ đến từ các token của chính rank đó"
        " (bước đồng bộ data-parallel sẽ lấy trung bình sau).",
    },
    "ch10:summed expert grad:hint": {
        "en": "an expert sees the tokens of every rank: its gradient is the sum of what all of them sent"
        " it, which the backward of the dispatch all-to-all (the reverse all-to-all) delivers.",
        "vi": "một expert thấy token của mọi rank: gradient của nó là tổng những gì tất cả các rank gửi"
        " tới, và backward của all-to-all phân phối (all-to-all ngược chiều) mang chúng về.",
    },
    "ch10:touched remote expert": {
        "en": "rank {rank}'s results are not finite: it used an expert another rank holds (on this rank"
        " those experts were filled with NaN).",
        "vi": "kết quả của rank {rank} không hữu hạn: nó đã dùng một expert thuộc rank khác (trên rank"
        " này các expert đó được điền NaN).",
    },
    "ch10:parameters held": {
        "en": "rank {rank}'s module holds {held} parameter elements; the router and this rank's own"
        " experts are {want} ({per_expert} per expert): a rank of expert parallelism stores only its"
        " share of the experts.",
        "vi": "module trên rank {rank} giữ {held} phần tử tham số; router và các expert của riêng rank"
        " này chỉ có {want} ({per_expert} mỗi expert): một rank trong expert parallelism chỉ lưu phần"
        " expert của nó.",
    },
    "ch10:more than the rows": {
        "en": "rank {rank} handed its collectives {sent} B in one direction ({got}), more than the rows"
        " routed to and from its experts and a few small numbers allow ({limit} B): expert parallelism moves"
        " tokens, never the experts' weights.",
        "vi": "rank {rank} đã đưa cho các collective {sent} B trong một chiều ({got}), nhiều hơn mức mà"
        " các hàng được định tuyến tới và từ các expert của nó cùng vài con số nhỏ cho phép ({limit} B):"
        " expert parallelism di chuyển token, không bao giờ di chuyển trọng số của expert.",
    },
    "ch10:local experts:hint": {
        "en": "each rank runs its own experts only; the tokens of other ranks' experts travel there by"
        " all-to-all, and their results come back the same way.",
        "vi": "mỗi rank chỉ chạy các expert của chính nó; token dành cho expert của rank khác đi tới đó"
        " bằng all-to-all, và kết quả quay về cũng bằng đường đó.",
    },
    "ch10:forward traffic": {
        "en": "rank {rank}'s forward communicated {got}. Expected: first the split sizes (at most {counts} B,"
        " one int64 per expert), then two all-to-alls over the group: the dispatch, between {out[0]} and"
        " {out[1]} rows of {row_bytes} B (the kept rows that leave the rank, up to all kept rows), and the"
        " return, between {back[0]} and {back[1]} rows (the rows this rank's experts received).",
        "vi": "forward của rank {rank} đã giao tiếp {got}. Mong đợi: trước hết là kích thước các phần"
        " (split size, tối đa {counts} B, mỗi expert một int64), rồi hai all-to-all trên nhóm: all-to-all"
        " phân phối, từ {out[0]} đến {out[1]} hàng {row_bytes} B (các hàng được giữ rời khỏi rank, tối đa"
        " là mọi hàng được giữ), và all-to-all trả về, từ {back[0]} đến {back[1]} hàng (các hàng mà expert"
        " của rank này nhận được).",
    },
    "ch10:forward traffic:hint": {
        "en": "exchange the split sizes with one all_to_all_single of counts, then send exactly the kept"
        " tokens (no padding to the capacity) and return exactly what came in.",
        "vi": "trao đổi split size bằng một all_to_all_single các bộ đếm, rồi gửi đúng các token được giữ"
        " (không đệm tới capacity) và trả về đúng những gì đã nhận.",
    },
    "ch10:backward traffic": {
        "en": "rank {rank}'s backward communicated {got}. Expected exactly two all-to-alls over the group,"
        " the forward's in reverse: the returned rows' gradients ({out[0]} to {out[1]} rows of {row_bytes}"
        " B), then the dispatched rows' gradients ({back[0]} to {back[1]} rows), and nothing else.",
        "vi": "backward của rank {rank} đã giao tiếp {got}. Mong đợi đúng hai all-to-all trên nhóm, ngược"
        " chiều với forward: gradient của các hàng được trả về ({out[0]} đến {out[1]} hàng {row_bytes} B),"
        " rồi gradient của các hàng đã phân phối ({back[0]} đến {back[1]} hàng), và không gì khác.",
    },
    "ch10:backward traffic:hint": {
        "en": "the backward of an all-to-all is the all-to-all with the split sizes swapped; the forward's"
        " sizes are known, so backward exchanges none.",
        "vi": "backward của một all-to-all là all-to-all với split size hoán đổi; kích thước đã biết từ"
        " forward, nên backward không cần trao đổi lại.",
    },
    # -- the groups and the gradients
    "ch10:groups:hint": {
        "en": "ranks are laid out expert-parallel fastest, g = d·ep + e: the ranks holding the same"
        " experts are strided by ep.",
        "vi": "các rank được xếp với chiều expert-parallel thay đổi nhanh nhất, g = d·ep + e: các rank giữ"
        " cùng expert cách nhau ep.",
    },
    "ch10:groups wrong": {
        "en": "expert_data_parallel_ranks returned {got}, expected {expected}.",
        "vi": "expert_data_parallel_ranks trả về {got}, mong đợi {expected}.",
    },
    "ch10:groups raised": {
        "en": "expert_data_parallel_ranks raised ValueError ({error}) for a valid world.",
        "vi": "expert_data_parallel_ranks báo ValueError ({error}) cho một world hợp lệ.",
    },
    "ch10:groups invalid": {
        "en": "a world that is not ep × dp must raise ValueError; expert_data_parallel_ranks returned {got}.",
        "vi": "một world không bằng ep × dp phải báo ValueError; expert_data_parallel_ranks lại"
        " trả về {got}.",
    },
    "ch10:groups invalid:hint": {
        "en": "check world == ep · dp (both at least 1) before building any group.",
        "vi": "hãy kiểm tra world == ep · dp (cả hai ít nhất là 1) trước khi dựng nhóm nào.",
    },
    "ch10:local expert grad": {
        "en": "rank {rank}'s gradient of its expert {j}'s {name}",
        "vi": "gradient của {name} thuộc expert {j} của rank {rank}",
    },
    "ch10:dense sync:hint": {
        "en": "the router is replicated on every data-parallel rank: all-reduce its gradient over all of"
        " them and divide by their number.",
        "vi": "router được nhân bản trên mọi rank data-parallel: hãy all-reduce gradient của nó trên tất cả"
        " các rank đó và chia cho số rank.",
    },
    "ch10:expert sync:hint": {
        "en": "an expert's gradient is all-reduced over the ranks that hold the same expert (its"
        " expert-data-parallel group) and divided by the number of all data-parallel ranks, as the"
        " dense ones are: each already sums its expert-parallel group's tokens.",
        "vi": "gradient của một expert được all-reduce trên các rank giữ cùng expert đó (nhóm"
        " expert-data-parallel của nó) rồi chia cho tổng số rank data-parallel, như các tham số dense:"
        " mỗi gradient đã cộng sẵn token của cả nhóm expert-parallel.",
    },
    "ch10:sync traffic": {
        "en": "rank {rank} all-reduced {got} (calls: {calls}); expected {expected}: the router over every"
        " data-parallel rank, the experts over their expert-data-parallel group only, and nothing else.",
        "vi": "rank {rank} đã all-reduce {got} (các lời gọi: {calls}); mong đợi {expected}: router trên mọi"
        " rank data-parallel, các expert chỉ trên nhóm expert-data-parallel của chúng, và không gì khác.",
    },
    "ch10:sync traffic:hint": {
        "en": "an expert's gradient must not travel to ranks that hold other experts: summing it there"
        " mixes different experts, and costs ep times the bytes.",
        "vi": "gradient của một expert không được đi tới các rank giữ expert khác: cộng ở đó sẽ trộn lẫn"
        " các expert khác nhau, và tốn gấp ep lần số byte.",
    },
}
