"""Chapter 3's teaching messages in English and Vietnamese (see :mod:`graders.words.messages`)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    # -- the optimizers' values
    "ch3:param after step": {
        "en": "parameter {j} (shape {shape}) after step {step}",
        "vi": "tham số {j} (shape {shape}) sau bước {step}",
    },
    "ch3:own step:hint": {
        "en": "a parameter without a gradient at some step is skipped, and its step count does not advance:"
        " bias corrections (Adam, AdamW) and the learning-rate decay (Adagrad) use the parameter's own"
        " count, kept in its state, not the number of times step() was called.",
        "vi": "tham số không có gradient ở một bước thì bị bỏ qua, và số bước của nó không tăng: hiệu chỉnh"
        " bias (Adam, AdamW) và suy giảm learning rate (Adagrad) dùng số bước riêng của tham số, lưu trong"
        " state của nó, chứ không phải số lần step() được gọi.",
    },
    "ch3:skip none:hint": {
        "en": "a parameter whose .grad is None is skipped entirely at that step: no update, no weight decay,"
        " no state created.",
        "vi": "tham số có .grad là None thì bị bỏ qua hoàn toàn ở bước đó: không cập nhật, không weight"
        " decay, không tạo state.",
    },
    "ch3:groups:hint": {
        "en": "each param group may override a hyperparameter: read lr, weight_decay, betas, ... from the"
        " group being stepped (group['lr']), never from self.defaults or the constructor's arguments.",
        "vi": "mỗi param group có thể ghi đè một siêu tham số: đọc lr, weight_decay, betas, ... từ group"
        " đang cập nhật (group['lr']), đừng đọc từ self.defaults hay đối số của hàm khởi tạo.",
    },
    "ch3:sgd:hint": {
        "en": "weight decay first (g + wd·p), then the momentum buffer (a copy of g at the parameter's"
        " first step, μ·b + g after), then nesterov's g + μ·b or the buffer itself; p ← p − lr·g.",
        "vi": "weight decay trước (g + wd·p), rồi buffer momentum (bản sao của g ở bước đầu tiên của tham"
        " số, μ·b + g sau đó), rồi g + μ·b của nesterov hoặc chính buffer; p ← p − lr·g.",
    },
    "ch3:adam:hint": {
        "en": "Adam's weight decay is L2: it is added to the gradient before the moments; the step divides"
        " m by √v / √(1−β2ᵗ) + ε (ε outside the root, after the bias correction) and multiplies by"
        " lr / (1−β1ᵗ); with amsgrad the running maximum of v replaces v.",
        "vi": "weight decay của Adam là L2: nó được cộng vào gradient trước khi tính các moment; bước cập"
        " nhật chia m cho √v / √(1−β2ᵗ) + ε (ε ở ngoài căn, sau hiệu chỉnh bias) và nhân với lr / (1−β1ᵗ);"
        " với amsgrad, giá trị lớn nhất từ trước tới nay của v thay cho v.",
    },
    "ch3:adamw:hint": {
        "en": "AdamW decouples the decay: p ← p·(1 − lr·wd) before the Adam update, and the gradient the"
        " moments see has no decay term.",
        "vi": "AdamW tách rời weight decay: p ← p·(1 − lr·wd) trước bước cập nhật Adam, và gradient mà các"
        " moment thấy không có thành phần decay.",
    },
    "ch3:adagrad:hint": {
        "en": "the sum starts at initial_accumulator_value and grows by g² (after weight decay is added to"
        " g); the step is lr / (1 + (t−1)·lr_decay) · g / (√sum + ε), with t the parameter's own step.",
        "vi": "tổng bắt đầu từ initial_accumulator_value và tăng thêm g² (sau khi cộng weight decay vào g);"
        " bước cập nhật là lr / (1 + (t−1)·lr_decay) · g / (√sum + ε), với t là số bước riêng của tham số.",
    },
    "ch3:lion:hint": {
        "en": "Lion decays first (p·(1 − lr·wd)), then steps by −lr·sign(β1·m + (1−β1)·g), an"
        " interpolation with the *old* moment, and only then updates the moment with β2.",
        "vi": "Lion decay trước (p·(1 − lr·wd)), rồi bước −lr·sign(β1·m + (1−β1)·g), một phép nội suy với"
        " moment *cũ*, và chỉ sau đó mới cập nhật moment với β2.",
    },
    # -- the optimizers' state
    "ch3:state too large": {
        "en": "after {steps} step(s) your optimizer keeps {kept} B alive that it made: more than the {most} B"
        " its update needs ({least} B of per-element state, plus at most a step counter per parameter).",
        "vi": "sau {steps} bước, optimizer của bạn giữ {kept} B do nó tạo ra: nhiều hơn {most} B mà bước cập"
        " nhật cần ({least} B state theo từng phần tử, cộng tối đa một bộ đếm bước cho mỗi tham số).",
    },
    "ch3:state too small": {
        "en": "after {steps} step(s) your optimizer keeps only {kept} B alive that it made, less than the"
        " {least} B of per-element state its update needs: where does it keep it?",
        "vi": "sau {steps} bước, optimizer của bạn chỉ giữ {kept} B do nó tạo ra, ít hơn {least} B state theo"
        " từng phần tử mà bước cập nhật cần: nó giữ state ở đâu?",
    },
    "ch3:sgd:state:hint": {
        "en": "SGD keeps one momentum buffer per parameter that had a gradient, and only when its group's"
        " momentum is not 0; nothing else between steps (no copy of the gradient or of the parameter).",
        "vi": "SGD giữ một buffer momentum cho mỗi tham số đã có gradient, và chỉ khi momentum của group"
        " khác 0; ngoài ra không giữ gì giữa các bước (không bản sao gradient hay tham số).",
    },
    "ch3:adam:state:hint": {
        "en": "Adam keeps two tensors per parameter, m and v (three with amsgrad: the running maximum of v),"
        " updated in place; temporaries such as the denominator are not kept.",
        "vi": "Adam giữ hai tensor cho mỗi tham số, m và v (ba với amsgrad: giá trị lớn nhất của v), cập nhật"
        " tại chỗ; các tensor tạm như mẫu số không được giữ lại.",
    },
    "ch3:adamw:state:hint": {
        "en": "AdamW keeps what Adam keeps: m and v (and v's running maximum with amsgrad), nothing more.",
        "vi": "AdamW giữ đúng những gì Adam giữ: m và v (và giá trị lớn nhất của v với amsgrad), không hơn.",
    },
    "ch3:adagrad:state:hint": {
        "en": "Adagrad keeps one tensor per parameter, the running sum of squared gradients.",
        "vi": "Adagrad giữ một tensor cho mỗi tham số, tổng tích luỹ của bình phương gradient.",
    },
    "ch3:lion:state:hint": {
        "en": "Lion keeps a single moment per parameter: that is its memory advantage over Adam.",
        "vi": "Lion chỉ giữ một moment cho mỗi tham số: đó là lợi thế bộ nhớ của nó so với Adam.",
    },
    # -- state_memory.py
    "ch3:not an int": {
        "en": "returned {got}; it returns a number of bytes, an int.",
        "vi": "trả về {got}; hàm phải trả về số byte, một int.",
    },
    "ch3:unknown name": {
        "en": "{call} raised {raised}; an unknown optimizer or precision raises ValueError.",
        "vi": "{call} báo {raised}; tên optimizer hoặc độ chính xác không tồn tại phải báo ValueError.",
    },
    "ch3:unknown name:hint": {
        "en": "look the name up in your table and raise ValueError (naming what exists) when it is not"
        " there.",
        "vi": "tra tên trong bảng của bạn và báo ValueError (liệt kê những tên có) khi không tìm thấy.",
    },
    "ch3:state bytes": {
        "en": "optimizer_state_bytes returned {got} B; a real torch optimizer ({name}) keeps {measured} B of"
        " per-element state after its first step.",
        "vi": "optimizer_state_bytes trả về {got} B; một optimizer thật của torch ({name}) giữ {measured} B"
        " state theo từng phần tử sau bước đầu tiên.",
    },
    "ch3:state bytes:hint": {
        "en": "count the tensors of a parameter's size the optimizer keeps (momentum buffer; m and v; the"
        " running max; the sum) times n_params times the dtype's bytes per element; torch keeps them in the"
        " parameter's dtype.",
        "vi": "đếm số tensor cùng kích thước tham số mà optimizer giữ (buffer momentum; m và v; giá trị lớn"
        " nhất; tổng) nhân với n_params nhân với số byte mỗi phần tử của dtype; torch giữ chúng theo dtype"
        " của tham số.",
    },
    "ch3:bytes per param": {
        "en": "bytes_per_param returned {got}; a real training step kept {masters} B of fp32 masters and"
        " {states} B of optimizer state for {n} parameters: K = {k}.",
        "vi": "bytes_per_param trả về {got}; một bước huấn luyện thật giữ {masters} B master fp32 và {states}"
        " B state của optimizer cho {n} tham số: K = {k}.",
    },
    "ch3:bytes per param:hint": {
        "en": "K is what the optimizer needs beyond the parameter and its gradient: its state (4 bytes per"
        " tensor in fp32 and in mixed precision, 2 in bf16) plus the fp32 master copy (4 bytes, mixed"
        " precision only).",
        "vi": "K là những gì optimizer cần ngoài tham số và gradient của nó: state (4 byte mỗi tensor ở fp32"
        " và mixed precision, 2 ở bf16) cộng với bản master fp32 (4 byte, chỉ với mixed precision).",
    },
}
