"""Chapter 7's graded hints and theory recaps, English and Vietnamese (see ``graders.words.hints``)."""

HINTS: dict[str, list[tuple[str, str]]] = {
    "gpipe_schedule": [
        (
            "Read the schedules.py module docstring (the action format) and the README's 'GPipe' bullet; "
            "compare what you return for p = 2, m = 3 with the timeline picture in the README.",
            "Đọc docstring của schedules.py (định dạng của các hành động) và ý «GPipe» trong README; so sánh "
            "kết quả của bạn với p = 2, m = 3 với hình dòng thời gian trong README.",
        ),
        (
            "Every stage gets the same sequence: the m forwards in microbatch order, then the m backwards. "
            "Stages differ in when they run, not in what they run: the simulator adds the waits.",
            "Mọi tầng (stage) có cùng một dãy hành động: m forward theo thứ tự microbatch, rồi m backward. "
            "Các tầng khác nhau ở thời điểm chạy, không phải ở việc chạy gì: bộ mô phỏng tự thêm các khoảng "
            "chờ.",
        ),
        (
            "Return one list per stage (p lists of 2m tuples), a schedule being a plain list of lists of "
            "tuples; every stage must run its forwards in one order and its backwards in one order, the same "
            "on all stages, so that messages arrive in the order they are needed.",
            "Trả về một danh sách cho mỗi tầng (p danh sách, mỗi danh sách 2m tuple), lịch chỉ là một list "
            "các list tuple; mọi tầng phải chạy forward theo cùng một thứ tự và backward theo cùng một thứ "
            "tự, giống nhau trên mọi tầng, để các thông điệp đến đúng thứ tự chúng được cần.",
        ),
    ],
    "one_f_one_b_schedule": [
        (
            "The README's '1F1B' bullet and one_f_one_b_schedule's docstring give the three phases; 'How the "
            "schedules are graded' says what is counted. Draw p = 3, m = 4 by hand.",
            "Ý «1F1B» trong README và docstring của one_f_one_b_schedule mô tả ba pha; mục «How the "
            "schedules are graded» cho biết những gì được kiểm tra. Hãy tự vẽ trường hợp p = 3, m = 4.",
        ),
        (
            "Per stage: a warm-up of forwards, then a steady state that pairs each remaining forward with "
            "the oldest backward still due, then a cool-down with the backwards left. Forwards and backwards "
            "each run in increasing microbatch order.",
            "Với mỗi tầng: một pha khởi động (warm-up) gồm các forward, rồi pha ổn định ghép mỗi forward còn "
            "lại với backward cũ nhất đang chờ, rồi pha kết thúc (cool-down) với các backward còn lại. "
            "Forward và backward đều chạy theo thứ tự microbatch tăng dần.",
        ),
        (
            "With w = min(p - s - 1, m) warm-up forwards on stage s, the steady state has m - w pairs (the "
            "forward of microbatch k, then the backward of microbatch k - w), and the cool-down runs the "
            "last w backwards. Stage s then holds at most w + 1 <= p - s activations; the last stage (w = 0) "
            "simply alternates F, B, F, B.",
            "Với w = min(p - s - 1, m) forward khởi động trên tầng s, pha ổn định có m - w cặp (forward của "
            "microbatch k, rồi backward của microbatch k - w), và pha kết thúc chạy w backward cuối. Khi đó "
            "tầng s giữ tối đa w + 1 <= p - s activation; tầng cuối (w = 0) chỉ việc xen kẽ F, B, F, B.",
        ),
    ],
    "interleaved_1f1b_schedule": [
        (
            "Read the README's 'Interleaved 1F1B' bullet and the docstring: the order of the forwards on a "
            "stage is fixed, and the schedule is compared with torch's. Get one_f_one_b_schedule right "
            "first: with v = 1 this is it, with chunk 0 on every action.",
            "Đọc ý «Interleaved 1F1B» trong README và docstring: thứ tự các forward trên một tầng là cố "
            "định, và lịch được so với lịch của torch. Hãy làm đúng one_f_one_b_schedule trước: với v = 1 "
            "đây chính là nó, với khúc (chunk) 0 ở mọi hành động.",
        ),
        (
            "Number a stage's chunk-forwards k = 0 .. m·v - 1 and write a small function giving (microbatch, "
            "chunk) for k: rounds of p·v forwards, each round taking p microbatches through chunk 0, then "
            "the same p through chunk 1, and so on. Backward k is the same unit with the chunk reversed (v - "
            "1 - chunk).",
            "Đánh số các forward theo khúc của một tầng k = 0 .. m·v - 1 và viết một hàm nhỏ cho ra "
            "(microbatch, khúc) ứng với k: mỗi vòng có p·v forward, đưa p microbatch qua khúc 0, rồi chính p "
            "microbatch đó qua khúc 1, cứ thế tiếp. Backward thứ k là cùng đơn vị đó nhưng khúc bị đảo ngược "
            "(v - 1 - khúc).",
        ),
        (
            "Then shape it like 1F1B over chunk-actions: warm up with min((p - s - 1)·2 + (v - 1)·p, m·v) "
            "forwards, alternate forward k + warm-up with backward k, and cool down with the backwards left. "
            "When a test fails, compare the timeline with the makespan 2(m + (p - 1)/v).",
            "Sau đó dựng lịch giống 1F1B trên các hành động theo khúc: khởi động với min((p - s - 1)·2 + (v "
            "- 1)·p, m·v) forward, xen kẽ forward thứ k + warm-up với backward thứ k, và kết thúc bằng các "
            "backward còn lại. Khi một bài kiểm tra thất bại, hãy so dòng thời gian với makespan 2(m + (p - "
            "1)/v).",
        ),
    ],
    "bubble_fraction": [
        (
            "The README's 'The bubble' and 'Interleaved 1F1B' bullets derive the formula; bubble.py's "
            "docstring defines the fraction as idle time over total time.",
            "Các ý «The bubble» và «Interleaved 1F1B» trong README suy ra công thức; docstring của bubble.py "
            "định nghĩa tỉ lệ này là thời gian rảnh chia cho tổng thời gian.",
        ),
        (
            "Count in forward+backward slots: a stage works m of them and the run takes m + p - 1 (v·m + p - "
            "1 chunk slots when interleaved); the idle share is what is left, over the total. GPipe and 1F1B "
            "share the bubble, v matters only for 'interleaved', and an unknown name raises ValueError.",
            "Đếm theo ô forward+backward: một tầng làm việc m ô và cả lượt chạy kéo dài m + p - 1 ô (v·m + p "
            "- 1 ô theo khúc khi xen kẽ); phần rảnh là phần còn lại, chia cho tổng. GPipe và 1F1B có cùng "
            "bubble, v chỉ có ý nghĩa với 'interleaved', và tên không hợp lệ phải ném ValueError.",
        ),
    ],
    "run_pipeline": [
        (
            "Read executor.py's docstrings (the warning about blocking sends at the top) and the README's "
            "'How the executor is graded'. Start with 2 stages and GPipe.",
            "Đọc các docstring của executor.py (cảnh báo về send chặn ở đầu tệp) và mục «How the executor is "
            "graded» trong README. Bắt đầu với 2 tầng và GPipe.",
        ),
        (
            "Keep, per in-flight microbatch, what its forward received and what it produced, in dicts keyed "
            "by microbatch. F: receive into a fresh tensor shaped like microbatches[mb][0] (stage 0 reads "
            "the input), call requires_grad_() on it, run stage_module, send the detached output on (the "
            "last stage computes the loss instead). B: pop the entries, backpropagate, send the input's "
            "gradient back (except on stage 0).",
            "Với mỗi microbatch đang xử lý, giữ thứ forward đã nhận và thứ nó tạo ra, trong các dict theo "
            "khóa microbatch. F: nhận vào một tensor mới có shape như microbatches[mb][0] (tầng 0 đọc đầu "
            "vào), gọi requires_grad_() trên nó, chạy stage_module, gửi đầu ra đã detach đi tiếp (tầng cuối "
            "thì tính loss). B: lấy (pop) các mục ra, lan truyền ngược, gửi gradient của đầu vào về trước "
            "(trừ tầng 0).",
        ),
        (
            "The last stage backpropagates its loss divided by m (the gradient of the mean of the microbatch "
            "losses); the others backpropagate the received gradient through their output. Post every send "
            "with isend, keep the handles and wait on all of them before returning; receive with a blocking "
            "recv. Popping a microbatch's entries in its backward lets autograd free its graph: that is the "
            "memory part.",
            "Tầng cuối lan truyền ngược loss chia cho m (gradient của trung bình các loss microbatch); các "
            "tầng khác lan truyền ngược gradient nhận được qua đầu ra của mình. Gửi mọi thông điệp bằng "
            "isend, giữ các handle và chờ tất cả trước khi trả về; nhận bằng recv chặn. Pop các mục của một "
            "microbatch trong backward của nó để autograd giải phóng đồ thị: đó chính là phần bộ nhớ.",
        ),
    ],
}

RECAPS: dict[str, tuple[str, str]] = {
    "gpipe_schedule": (
        "A schedule is one list of actions per stage, ('F', mb) or ('B', mb), each run exactly once; a pure "
        "function, no torch.\n"
        "GPipe runs all m forwards, then all m backwards, on every stage: fill, drain, flush.\n"
        "With unit costs the makespan is 2(m + p - 1): each stage works 2m and idles 2(p - 1), a bubble of "
        "(p - 1)/(m + p - 1).\n"
        "Each stage holds all m microbatches' activations at its peak: the memory that 1F1B saves.\n"
        "Graded: 'valid' (every action once, B(s, mb) after F(s, mb), messages needed in the order sent, no "
        "deadlock) and 'order' (all F first, the makespan).",
        "Một lịch là một danh sách hành động cho mỗi tầng, ('F', mb) hoặc ('B', mb), mỗi hành động chạy "
        "đúng một lần; là hàm thuần, không dùng torch.\n"
        "GPipe chạy hết m forward, rồi hết m backward, trên mọi tầng: làm đầy, rút cạn, xả (flush).\n"
        "Với chi phí đơn vị, makespan là 2(m + p - 1): mỗi tầng làm việc 2m và rảnh 2(p - 1), bubble là (p "
        "- 1)/(m + p - 1).\n"
        "Ở đỉnh, mỗi tầng giữ activation của cả m microbatch: đó là phần bộ nhớ mà 1F1B tiết kiệm.\n"
        "Bộ chấm: 'valid' (mỗi hành động một lần, B(s, mb) sau F(s, mb), thông điệp được cần đúng thứ tự "
        "gửi, không bế tắc) và 'order' (mọi F trước, đúng makespan).",
    ),
    "one_f_one_b_schedule": (
        "1F1B (PipeDream-Flush) keeps GPipe's bubble but bounds memory: stage s warms up with min(p - s - "
        "1, m) forwards, alternates one forward and one backward while forwards remain, then runs the "
        "remaining backwards.\n"
        "So stage s never holds more than p - s microbatches' activations, against m for GPipe.\n"
        "Graded: 'warmup' (min(p - s - 1, m) warm-up forwards plus the steady state's first, at most p - s "
        "in flight, the exact F/B alternation) and 'makespan' 2(m + p - 1).\n"
        "Backwards run in the forwards' microbatch order: a cool-down that runs the last microbatch first "
        "makes a stage wait for the wrong gradient.\n"
        "Usual mistakes: p - 1 warm-up forwards on every stage, p - s instead of p - s - 1, the min with m "
        "forgotten.",
        "1F1B (PipeDream-Flush) giữ bubble như GPipe nhưng giới hạn bộ nhớ: tầng s khởi động với min(p - s "
        "- 1, m) forward, xen kẽ một forward và một backward khi còn forward, rồi chạy các backward còn "
        "lại.\n"
        "Nhờ vậy tầng s không bao giờ giữ activation của quá p - s microbatch, so với m của GPipe.\n"
        "Bộ chấm: 'warmup' (min(p - s - 1, m) forward khởi động cộng forward đầu của pha ổn định, tối đa p "
        "- s đang xử lý, xen kẽ F/B chính xác) và 'makespan' 2(m + p - 1).\n"
        "Backward chạy theo cùng thứ tự microbatch như forward: pha kết thúc chạy microbatch cuối trước sẽ "
        "làm một tầng chờ nhầm gradient.\n"
        "Lỗi thường gặp: khởi động p - 1 forward trên mọi tầng, dùng p - s thay cho p - s - 1, quên lấy min "
        "với m.",
    ),
    "interleaved_1f1b_schedule": (
        "Each stage holds v chunks: chunk c of stage s is virtual stage c·p + s, and actions are ('F'|'B', "
        "mb, chunk).\n"
        "A chunk is 1/v of a stage's work, so fill and drain shrink v-fold: makespan 2(m + (p - 1)/v), "
        "bubble (p - 1)/(v·m + p - 1), for v times more messages.\n"
        "Forwards run depth-first in rounds of p microbatches; backwards in the same order with the chunks "
        "reversed; m a multiple of p when v > 1, and v = 1 is 1F1B with chunk 0.\n"
        "Graded ('torch'): each stage's forward and backward orders and its peak of chunk-activations "
        "against ScheduleInterleaved1F1B; how F and B interleave is free if 'makespan' holds.\n"
        "torch warms up with (p - s - 1)·2 + (v - 1)·p chunk-forwards (at most m·v); a shorter warm-up that "
        "keeps the makespan is accepted.\n"
        "Usual mistakes: breadth-first order (every microbatch through chunk 0 first), chunks not reversed "
        "in backward.",
        "Mỗi tầng giữ v khúc (chunk): khúc c của tầng s là tầng ảo c·p + s, và hành động có dạng ('F'|'B', "
        "mb, khúc).\n"
        "Một khúc là 1/v khối lượng của tầng, nên pha làm đầy và rút cạn ngắn đi v lần: makespan 2(m + (p - "
        "1)/v), bubble (p - 1)/(v·m + p - 1), đổi lại số thông điệp gấp v lần.\n"
        "Forward chạy theo chiều sâu, mỗi vòng p microbatch; backward theo cùng thứ tự nhưng khúc đảo "
        "ngược; m là bội số của p khi v > 1, và v = 1 chính là 1F1B với khúc 0.\n"
        "Bộ chấm ('torch'): thứ tự forward, thứ tự backward và số activation theo khúc tối đa trên mỗi "
        "tầng, so với ScheduleInterleaved1F1B; cách xen kẽ F và B là tùy bạn nếu 'makespan' đạt.\n"
        "torch khởi động với (p - s - 1)·2 + (v - 1)·p forward theo khúc (tối đa m·v); khởi động ngắn hơn "
        "mà giữ được makespan vẫn được chấp nhận.\n"
        "Lỗi thường gặp: thứ tự theo chiều rộng (mọi microbatch qua khúc 0 trước), không đảo ngược khúc "
        "trong backward.",
    ),
    "bubble_fraction": (
        "The bubble fraction is the idle share of the total time: all stages' waiting over p times the time "
        "from the first forward to the last backward (equal stage times, free messages).\n"
        "GPipe and 1F1B: each stage idles p - 1 forward+backward slots out of m + p - 1; 1F1B changes the "
        "memory, not the bubble.\n"
        "Interleaved with v chunks: fill and drain shrink v-fold, (p - 1)/(v·m + p - 1).\n"
        "Graded: the formula, and 'measured': the idle share of torch's schedules in the simulator with "
        "backward = 2 × forward, which does not change it.\n"
        "Usual mistakes: dividing by the useful time instead of the total, v applied to GPipe.",
        "Tỉ lệ bubble là phần thời gian rảnh trên tổng thời gian: tổng thời gian chờ của mọi tầng chia cho "
        "p lần khoảng thời gian từ forward đầu tiên đến backward cuối cùng (các tầng tốn thời gian như "
        "nhau, truyền tin không tốn).\n"
        "GPipe và 1F1B: mỗi tầng rảnh p - 1 ô forward+backward trên tổng m + p - 1; 1F1B thay đổi bộ nhớ, "
        "không thay đổi bubble.\n"
        "Xen kẽ với v khúc: làm đầy và rút cạn ngắn đi v lần, (p - 1)/(v·m + p - 1).\n"
        "Bộ chấm: công thức, và 'measured': phần rảnh của các lịch của torch trong bộ mô phỏng với backward "
        "= 2 × forward, điều này không làm thay đổi tỉ lệ.\n"
        "Lỗi thường gặp: chia cho thời gian làm việc thay vì tổng thời gian, áp v cho GPipe.",
    ),
    "run_pipeline": (
        "run_pipeline runs schedule[rank] for real: group rank s is stage s; F receives an activation from "
        "s - 1, B a gradient from s + 1, and sends its input's gradient to s - 1.\n"
        "Gradients: every stage's .grad equals one backward of the whole model on the whole batch, that of "
        "the mean microbatch loss; frozen and unused parameters keep grad = None; the last stage returns "
        "the mean loss.\n"
        "Memory: the microbatches whose saved activations are alive at once never exceed the schedule's in "
        "flight (GPipe m, 1F1B <= p - s).\n"
        "Traffic: exactly one activation per microbatch to s + 1 and one gradient per microbatch to s - 1, "
        "each of the activation's size, nothing else.\n"
        "In 1F1B's steady state s sends forward while s + 1 sends back: two blocking sends face each other. "
        "Send with isend.\n"
        "Usual mistakes: the loss not divided by m, no requires_grad_() on a received activation, every "
        "graph kept alive, retain_graph=True.",
        "run_pipeline chạy schedule[rank] thật sự: rank s trong nhóm là tầng s; F nhận activation từ s - 1, "
        "B nhận gradient từ s + 1 và gửi gradient của đầu vào về s - 1.\n"
        "Gradient: .grad của mọi tầng bằng một lần backward của cả mô hình trên cả batch, tức của trung "
        "bình các loss microbatch; tham số đóng băng và không dùng đến giữ grad = None; tầng cuối trả về "
        "loss trung bình.\n"
        "Bộ nhớ: số microbatch có activation đã lưu còn sống cùng lúc không bao giờ vượt số đang xử lý của "
        "lịch (GPipe m, 1F1B <= p - s).\n"
        "Lưu lượng: đúng một activation mỗi microbatch đến s + 1 và một gradient mỗi microbatch về s - 1, "
        "mỗi thông điệp đúng kích thước activation, không gì khác.\n"
        "Trong pha ổn định của 1F1B, s gửi đi tiếp trong khi s + 1 gửi ngược lại: hai lời gọi send chặn đối "
        "mặt nhau. Hãy gửi bằng isend.\n"
        "Lỗi thường gặp: không chia loss cho m, quên requires_grad_() trên activation nhận được, giữ sống "
        "mọi đồ thị, dùng retain_graph=True.",
    ),
}
