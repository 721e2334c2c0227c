"""Chapter 7's teaching messages (pipeline schedules, the simulator, the executor) in English and
Vietnamese; see :mod:`graders.words.messages`."""

MESSAGES: dict[str, dict[str, str]] = {
    # -- simulator.py: a schedule's shape -----------------------------------------------------
    "ch7:schedule:not a list": {
        "en": "expected a list with one list of actions per stage, got {got}.",
        "vi": "cần một list gồm một list action cho mỗi stage, nhận được {got}.",
    },
    "ch7:schedule:stage count": {
        "en": "expected {p} lists of actions (one per stage), got {got}.",
        "vi": "cần {p} list action (mỗi stage một list), nhận được {got}.",
    },
    "ch7:schedule:stage not a list": {
        "en": "stage {s}: expected a list of actions, got {got}.",
        "vi": "stage {s}: cần một list action, nhận được {got}.",
    },
    "ch7:schedule:where": {
        "en": "stage {s}, action {i} ({action!r})",
        "vi": "stage {s}, action số {i} ({action!r})",
    },
    "ch7:schedule:not an action": {
        "en": "{where}: an action is a tuple {form}.",
        "vi": "{where}: mỗi action là một tuple {form}.",
    },
    "ch7:schedule:no chunk": {
        "en": "{where}: with {v} chunks every action names its chunk: (kind, mb, chunk).",
        "vi": "{where}: khi có {v} chunk, mỗi action phải ghi rõ chunk của nó: (kind, mb, chunk).",
    },
    "ch7:schedule:kind": {
        "en": '{where}: the kind is "F" or "B", got {kind!r}.',
        "vi": '{where}: kind phải là "F" hoặc "B", nhận được {kind!r}.',
    },
    "ch7:schedule:microbatch": {
        "en": "{where}: the microbatch must be an int in 0..{last}.",
        "vi": "{where}: micro-batch phải là một số nguyên (int) trong khoảng 0..{last}.",
    },
    "ch7:schedule:chunk": {
        "en": "{where}: the chunk must be an int in 0..{last}.",
        "vi": "{where}: chunk phải là một số nguyên (int) trong khoảng 0..{last}.",
    },
    # -- simulator.py: what a schedule gets wrong ----------------------------------------------
    "ch7:twice": {
        "en": "stage {s} runs {actions} more than once.",
        "vi": "stage {s} chạy {actions} hơn một lần.",
    },
    "ch7:missing": {"en": "stage {s} never runs {actions}.", "vi": "stage {s} không hề chạy {actions}."},
    "ch7:and more": {"en": " (and {n} more)", "vi": " (và {n} action khác)"},
    "ch7:backward first": {
        "en": "stage {s} runs {backward} (its action {i}) before {forward} (its action {j}): a backward "
        "needs the activations its own forward stored.",
        "vi": "stage {s} chạy {backward} (action số {i} của nó) trước {forward} (action số {j}): một "
        "backward cần các activation mà chính forward của nó đã lưu.",
    },
    "ch7:message order": {
        "en": "stage {src} sends stage {dst} the {what}s for {sent} in this order, but stage {dst} runs "
        "them as {needed}: messages between two stages arrive in the order they were sent, so its {taker} "
        "would receive the {what} meant for {owner}.",
        "vi": "stage {src} gửi cho stage {dst} các {what} của {sent} theo thứ tự này, nhưng stage {dst} lại "
        "chạy chúng theo thứ tự {needed}: thông điệp giữa hai stage đến đúng theo thứ tự đã gửi, nên "
        "{taker} của nó sẽ nhận nhầm {what} dành cho {owner}.",
    },
    # "ch7:wait:..." are filled by describe_need without say (it runs in workers too)
    "ch7:wait:of microbatch": {"en": "microbatch {mb}", "vi": "micro-batch {mb}"},
    "ch7:wait:of microbatch chunk": {
        "en": "microbatch {mb}, chunk {chunk}",
        "vi": "micro-batch {mb}, chunk {chunk}",
    },
    "ch7:wait:need own": {
        "en": "its own {kind}({of}), which comes later in its list",
        "vi": "{kind}({of}) của chính nó, vốn nằm sau trong list của nó",
    },
    "ch7:wait:need from": {
        "en": "the {what} of {of} from stage {stage}",
        "vi": "{what} của {of} từ stage {stage}",
    },
    "ch7:wait": {
        "en": "at {action} (its action {i}), waiting for {need}",
        "vi": "tại {action} (action số {i} của nó), đang chờ {need}",
    },
    "ch7:stuck": {"en": "stage {s} is stuck {reason}", "vi": "stage {s} bị kẹt {reason}"},
    # -- timeline.py ---------------------------------------------------------------------------
    "ch7:timeline": {
        "en": "timeline ({unit}; {legend}; {idle} = idle):",
        "vi": "dòng thời gian ({unit}; {legend}; {idle} = rảnh):",
    },
    "ch7:timeline:unit": {
        "en": "one column = one forward or backward",
        "vi": "mỗi cột = một forward hoặc một backward",
    },
    "ch7:timeline:unit chunks": {
        "en": "one column = 1/{v} of a stage",
        "vi": "mỗi cột = 1/{v} thời lượng của một stage",
    },
    "ch7:timeline:key": {"en": "Fm = forward of microbatch m", "vi": "Fm = forward của micro-batch m"},
    "ch7:timeline:key chunks": {
        "en": "Fm.c = forward of microbatch m, chunk c",
        "vi": "Fm.c = forward của micro-batch m, chunk c",
    },
    "ch7:timeline:stuck": {"en": "  ⟂ stuck {reason}", "vi": "  ⟂ kẹt {reason}"},
    "ch7:timeline:makespan": {
        "en": "  makespan {makespan} · bubble (idle share) {bubble} = {share:.1%}",
        "vi": "  makespan (thời gian hoàn thành) {makespan} · bubble (tỉ lệ thời gian rảnh) {bubble} = "
        "{share:.1%}",
    },
    # -- checks.py: a schedule -------------------------------------------------------------------
    "ch7:your schedule": {"en": "your schedule", "vi": "lịch (schedule) của bạn"},
    "ch7:your exercise": {"en": "your {exercise}", "vi": "{exercise} của bạn"},
    "ch7:not well formed": {"en": "{what} is not well formed: {problem}", "vi": "{what} sai dạng: {problem}"},
    "ch7:not well formed:hint": {
        "en": 'return a list with one list per stage of ("F"|"B", microbatch) tuples.',
        "vi": 'hãy trả về một list gồm một list cho mỗi stage, chứa các tuple ("F"|"B", microbatch).',
    },
    "ch7:not well formed:hint chunks": {
        "en": 'return a list with one list per stage of ("F"|"B", microbatch) tuples (("F"|"B", microbatch, '
        "chunk) when interleaved).",
        "vi": 'hãy trả về một list gồm một list cho mỗi stage, chứa các tuple ("F"|"B", microbatch) '
        '(("F"|"B", microbatch, chunk) khi interleaved).',
    },
    "ch7:incomplete": {
        "en": "{what} does not run every forward and backward exactly once on every stage:\n  {problems}",
        "vi": "{what} không chạy mỗi forward và mỗi backward đúng một lần trên mọi stage:\n  {problems}",
    },
    "ch7:incomplete:hint": {
        "en": "each stage runs F and B of every microbatch (and chunk) once.",
        "vi": "mỗi stage chạy F và B của mọi micro-batch (và mọi chunk) đúng một lần.",
    },
    "ch7:dependency": {
        "en": "{what} breaks a dependency:\n  {problems}",
        "vi": "{what} vi phạm một phụ thuộc:\n  {problems}",
    },
    "ch7:dependency:hint": {
        "en": "B(s, mb) needs F(s, mb) on the same stage, and the gradient of B(s + 1, mb).",
        "vi": "B(s, mb) cần F(s, mb) trên cùng stage, và gradient do B(s + 1, mb) tính ra.",
    },
    "ch7:point to point": {
        "en": "{what} cannot run on point-to-point messages:\n  {problems}",
        "vi": "{what} không thể chạy bằng thông điệp point-to-point:\n  {problems}",
    },
    "ch7:point to point:hint": {
        "en": "every stage must handle the microbatches (and chunks) in the same order: the forwards in one "
        "order, the backwards in one order, on every stage.",
        "vi": "mọi stage phải xử lý các micro-batch (và chunk) theo cùng một thứ tự: các forward theo một "
        "thứ tự, các backward theo một thứ tự, trên mọi stage.",
    },
    "ch7:deadlock": {
        "en": "{what} deadlocks: run with blocking receives, these stages wait for each other forever:\n  "
        "{waits}",
        "vi": "{what} bị deadlock: khi chạy với lệnh nhận blocking, các stage sau chờ nhau mãi mãi:\n  "
        "{waits}",
    },
    "ch7:deadlock:hint": {
        "en": "a stage can only run F(mb) once the previous stage has run F(mb), and B(mb) once the next "
        "stage has run B(mb): follow the waits above around the cycle.",
        "vi": "một stage chỉ chạy được F(mb) khi stage trước đã chạy F(mb), và B(mb) khi stage sau đã chạy "
        "B(mb): hãy lần theo các chỗ chờ ở trên, đi trọn vòng chờ.",
    },
    "ch7:makespan": {
        "en": "under unit costs (a forward and a backward each take 1 per stage{per_chunk}) your schedule "
        "finishes at time {got}; {name} finishes at {formula} = {want}.",
        "vi": "với chi phí đơn vị (mỗi forward và mỗi backward mất 1 trên mỗi stage{per_chunk}), lịch của "
        "bạn kết thúc ở thời điểm {got}; {name} kết thúc ở {formula} = {want}.",
    },
    "ch7:makespan:per chunk": {"en": ", 1/v per chunk", "vi": ", 1/v cho mỗi chunk"},
    "ch7:makespan:hint": {
        "en": "a slower schedule leaves stages idle longer than needed: compare your order with the "
        "timeline above, where the gaps (·) are idle time.",
        "vi": "lịch chậm hơn khiến các stage rảnh lâu hơn mức cần thiết: hãy so thứ tự của bạn với dòng "
        "thời gian ở trên, nơi các khoảng trống (·) là thời gian rảnh.",
    },
    "ch7:gpipe order": {
        "en": "stage {s} runs {action} (its action {i}) before all its forwards: GPipe runs the forwards of "
        "every microbatch, then every backward.",
        "vi": "stage {s} chạy {action} (action số {i} của nó) khi chưa chạy hết các forward: GPipe chạy "
        "forward của mọi micro-batch, rồi mới chạy các backward.",
    },
    "ch7:gpipe order:hint": {
        "en": "GPipe flushes the pipeline: all m forwards, then all m backwards, on every stage.",
        "vi": "GPipe xả (flush) pipeline: chạy cả m forward, rồi cả m backward, trên mọi stage.",
    },
    "ch7:warmup": {
        "en": "stage {s} runs {before} forward(s) before its first backward; 1F1B warms up with min(p - s - "
        "1, m) = {want} forward(s), and its steady state starts with one more forward (when one is left): "
        "{total} before the first backward.",
        "vi": "stage {s} chạy {before} forward trước backward đầu tiên; 1F1B warm-up với min(p - s - 1, m) "
        "= {want} forward, và giai đoạn ổn định (steady state) bắt đầu bằng thêm một forward (nếu còn): tức "
        "là {total} forward trước backward đầu tiên.",
    },
    "ch7:warmup:hint": {
        "en": "stage s must keep the p - s - 1 stages after it busy until the first gradient comes back.",
        "vi": "stage s phải giữ cho p - s - 1 stage phía sau nó luôn có việc cho tới khi gradient đầu tiên "
        "quay về.",
    },
    "ch7:1f1b peak": {
        "en": "stage {s} holds the activations of {peak} microbatches at once; 1F1B never holds more than p "
        "- s = {bound}.",
        "vi": "stage {s} giữ activation của {peak} micro-batch cùng lúc; 1F1B không bao giờ giữ quá p - s = "
        "{bound}.",
    },
    "ch7:1f1b peak:hint": {
        "en": "after the warm-up every forward is followed by a backward, which frees one microbatch.",
        "vi": "sau warm-up, theo sau mỗi forward là một backward, và backward đó giải phóng một micro-batch.",
    },
    "ch7:alternation": {
        "en": "stage {s} runs {action} (its action {i}) where 1F1B runs {expected}: after {want} warm-up "
        "forward(s) the steady state alternates one forward and one backward, then the cool-down runs the "
        "remaining backwards.",
        "vi": "stage {s} chạy {action} (action số {i} của nó) ở chỗ 1F1B chạy {expected}: sau {want} "
        "forward warm-up, giai đoạn ổn định xen kẽ một forward và một backward, rồi giai đoạn cool-down "
        "chạy nốt các backward còn lại.",
    },
    "ch7:a forward": {"en": "a forward", "vi": "một forward"},
    "ch7:a backward": {"en": "a backward", "vi": "một backward"},
    "ch7:alternation:hint": {
        "en": "stage {s}'s pattern is {pattern}.",
        "vi": "stage {s} phải theo mẫu {pattern}.",
    },
    "ch7:torch interleaved": {
        "en": "torch's ScheduleInterleaved1F1B",
        "vi": "ScheduleInterleaved1F1B của torch",
    },
    "ch7:forwards": {"en": "forwards", "vi": "forward"},
    "ch7:backwards": {"en": "backwards", "vi": "backward"},
    "ch7:interleaved order": {
        "en": "stage {s} runs its {word} in another order than {name}: its {one} #{at} is {mine}, the "
        "reference's is {theirs}.\n  yours:     {ours}\n  reference: {wanted}\n{name}:\n",
        "vi": "stage {s} chạy các {word} theo thứ tự khác với {name}: {one} #{at} của nó là {mine}, của bản "
        "tham chiếu là {theirs}.\n  của bạn:    {ours}\n  tham chiếu: {wanted}\n{name}:\n",
    },
    "ch7:interleaved order:hint": {
        "en": "interleaving is depth-first: p microbatches go through chunk 0, then the same p through "
        "chunk 1, ..., then the next p microbatches; backwards visit the chunks in reverse.",
        "vi": "interleaved đi theo chiều sâu: p micro-batch đi qua chunk 0, rồi cũng p micro-batch đó đi "
        "qua chunk 1, ..., rồi mới đến p micro-batch tiếp theo; các backward đi qua các chunk theo thứ tự "
        "ngược lại.",
    },
    "ch7:interleaved peak": {
        "en": "stage {s} holds {peak} chunk-activations at once; {name} holds at most {bound} there.",
        "vi": "stage {s} giữ cùng lúc {peak} chunk-activation; {name} chỉ giữ nhiều nhất {bound} ở stage "
        "này.",
    },
    "ch7:interleaved peak one chunk": {
        "en": "stage {s} holds {peak} chunk-activations at once; {name} holds at most {bound} there (p - s).",
        "vi": "stage {s} giữ cùng lúc {peak} chunk-activation; {name} chỉ giữ nhiều nhất {bound} ở stage "
        "này (p - s).",
    },
    "ch7:interleaved peak:hint": {
        "en": "warm up with (p - s - 1) * 2 + (v - 1) * p forwards (at most m * v), then alternate.",
        "vi": "hãy warm-up với (p - s - 1) * 2 + (v - 1) * p forward (nhiều nhất m * v), rồi chạy xen kẽ.",
    },
    "ch7:interleaved peak one chunk:hint": {
        "en": "with one chunk, interleaved 1F1B is 1F1B: warm up with min(p - s - 1, m) forwards, then "
        "alternate.",
        "vi": "với một chunk, interleaved 1F1B chính là 1F1B: warm-up với min(p - s - 1, m) forward, rồi "
        "chạy xen kẽ.",
    },
    # -- checks.py: the bubble ---------------------------------------------------------------------
    "ch7:bubble formula": {
        "en": "bubble fraction (idle share of the total time)",
        "vi": "tỉ lệ bubble (phần thời gian rảnh trên tổng thời gian)",
    },
    "ch7:bubble formula:hint": {
        "en": "each stage idles p - 1 forward+backward slots (their 1/v with v chunks) out of m + p - 1: "
        "divide the idle time by the total time, not by the useful time.",
        "vi": "mỗi stage rảnh p - 1 ô forward+backward (1/v số đó khi có v chunk) trên tổng m + p - 1 ô: "
        "hãy chia thời gian rảnh cho tổng thời gian, không phải cho thời gian làm việc có ích.",
    },
    "ch7:bubble measured": {
        "en": "your bubble fraction vs. the idle share measured on torch's {name} schedule (simulated, "
        "backward = 2 × forward: {measured})",
        "vi": "tỉ lệ bubble của bạn so với tỉ lệ thời gian rảnh đo được trên lịch {name} của torch (mô "
        "phỏng, backward = 2 × forward: {measured})",
    },
    "ch7:bubble measured:hint": {
        "en": "the idle share does not depend on how long a forward or a backward takes.",
        "vi": "tỉ lệ thời gian rảnh không phụ thuộc vào việc một forward hay một backward mất bao lâu.",
    },
    # -- checks.py: the executor ---------------------------------------------------------------------
    "ch7:gradient of": {
        "en": "stage {s} (rank {rank}): gradient of {name}",
        "vi": "stage {s} (rank {rank}): gradient của {name}",
    },
    "ch7:gradient:hint": {
        "en": "the gradient is that of the mean of the microbatch losses: scale each microbatch's loss by 1 "
        "/ num_microbatches, receive a gradient for exactly the output you sent, and backpropagate each "
        "microbatch through the graph of its own forward.",
        "vi": "gradient cần tính là gradient của trung bình loss các micro-batch: nhân loss của mỗi "
        "micro-batch với 1 / num_microbatches, nhận gradient cho đúng output mà bạn đã gửi đi, và lan "
        "truyền ngược (backpropagate) mỗi micro-batch qua đồ thị của chính forward của nó.",
    },
    "ch7:should stay none": {
        "en": "{what} should stay None: the parameter is frozen or unused.",
        "vi": "{what} phải giữ nguyên là None: tham số này bị đóng băng (frozen) hoặc không được dùng.",
    },
    "ch7:should stay none:hint": {
        "en": "only parameters that take part in the forward get a gradient.",
        "vi": "chỉ những tham số tham gia vào forward mới có gradient.",
    },
    "ch7:loss not a number": {
        "en": "the last stage (rank {rank}) must return the mean loss, got {returned!r}.",
        "vi": "stage cuối (rank {rank}) phải trả về loss trung bình, nhận được {returned!r}.",
    },
    "ch7:wrong loss": {
        "en": "the last stage (rank {rank}) returned loss {got!r}, the batch mean loss is {want!r}.",
        "vi": "stage cuối (rank {rank}) trả về loss {got!r}, trong khi loss trung bình của batch là "
        "{want!r}.",
    },
    "ch7:wrong loss:hint": {
        "en": "return the mean of the microbatch losses.",
        "vi": "hãy trả về trung bình loss của các micro-batch.",
    },
    "ch7:hooks removed": {
        "en": "stage {s} (rank {rank}) removed the hooks of its stage module: the grader measures the "
        "stored activations with them. Leave the module's hooks alone.",
        "vi": "stage {s} (rank {rank}) đã gỡ các hook của stage module: bộ chấm dùng chúng để đo các "
        "activation được lưu. Đừng động vào hook của module.",
    },
    "ch7:forwards bypassed": {
        "en": "stage {s} (rank {rank}) called its stage module {calls} time(s) for {m} forwards: run every "
        "forward through stage_module(x), which is where the grader measures the stored activations.",
        "vi": "stage {s} (rank {rank}) gọi stage module của nó {calls} lần cho {m} forward: hãy chạy mọi "
        "forward qua stage_module(x), vì bộ chấm đo các activation được lưu tại đó.",
    },
    "ch7:activation peak": {
        "en": "stage {s} (rank {rank}) kept the activations of {peak} microbatches alive at once; its "
        "schedule never has more than {bound} in flight{why}.",
        "vi": "stage {s} (rank {rank}) giữ activation của {peak} micro-batch cùng lúc; lịch của nó không "
        "bao giờ có quá {bound} micro-batch đang xử lý dở (in flight){why}.",
    },
    "ch7:activation peak:gpipe": {"en": " (GPipe holds all m)", "vi": " (GPipe giữ cả m micro-batch)"},
    "ch7:activation peak:1f1b": {
        "en": " (1F1B holds at most p - s = {bound})",
        "vi": " (1F1B giữ nhiều nhất p - s = {bound})",
    },
    "ch7:activation peak:hint": {
        "en": "once a microbatch's backward has run, drop every reference to its input and output (and "
        "never use retain_graph=True), so that autograd frees its saved activations.",
        "vi": "khi backward của một micro-batch đã chạy xong, hãy bỏ mọi tham chiếu tới input và output của "
        "nó (và đừng dùng retain_graph=True), để autograd giải phóng các activation đã lưu.",
    },
    "ch7:wrong peer": {
        "en": "stage {s} (rank {rank}) sent {n} message(s) to rank {peer}: a stage only sends activations "
        "to the next stage and gradients to the previous one.",
        "vi": "stage {s} (rank {rank}) đã gửi {n} thông điệp tới rank {peer}: một stage chỉ gửi activation "
        "cho stage kế tiếp và gradient cho stage liền trước.",
    },
    "ch7:neighbour messages": {
        "en": "stage {s} (rank {rank}) sent {n} message(s) to rank {peer} ({total} bytes); it must send one "
        "{what} of {nbytes} bytes per microbatch: {m} messages.",
        "vi": "stage {s} (rank {rank}) đã gửi {n} thông điệp tới rank {peer} ({total} byte); nó phải gửi "
        "một {what} {nbytes} byte cho mỗi micro-batch: tổng cộng {m} thông điệp.",
    },
    "ch7:neighbour messages:hint": {
        "en": "send each activation and each gradient once, and nothing else (the shapes are known).",
        "vi": "hãy gửi mỗi activation và mỗi gradient đúng một lần, ngoài ra không gửi gì (shape đã biết "
        "trước).",
    },
    # -- own_schedules.py --------------------------------------------------------------------------
    "ch7:own not started": {
        "en": "this check runs your executor on your own {exercise}, which is not started yet.",
        "vi": "phần kiểm tra này chạy executor của bạn trên {exercise} của chính bạn, mà bài đó thì bạn "
        "chưa làm.",
    },
    "ch7:own failed": {
        "en": "your {exercise} failed, so your executor cannot run it:\n{error}",
        "vi": "{exercise} của bạn gặp lỗi, nên executor của bạn không chạy được nó:\n{error}",
    },
    "ch7:own rejected": {
        "en": "your executor cannot run your own {exercise}; fix {exercise} first:\n{error}",
        "vi": "executor của bạn không chạy được {exercise} của chính bạn; hãy sửa {exercise} trước:\n{error}",
    },
    "ch7:own deadlock": {
        "en": "{report}\n\nYour {exercise} deadlocks: the dependency simulator finds these stages waiting "
        "for each other forever:\n  {waits}",
        "vi": "{report}\n\n{exercise} của bạn bị deadlock: bộ mô phỏng phụ thuộc thấy các stage sau chờ "
        "nhau mãi mãi:\n  {waits}",
    },
}
