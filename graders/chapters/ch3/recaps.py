"""Chapter 3's theory recaps, English and Vietnamese (see ``graders.words.hints``)."""

_GRADED = (
    "Graded against torch.optim on the CPU (Lion: the paper's Algorithm 2 written out), step by step, on "
    "up to four parameters of random shapes in one or two param groups, some without a gradient at some "
    "steps, in float32 and float64 (result); and on what it keeps alive afterwards (state).",
    "Bộ chấm so với torch.optim trên CPU (Lion: Algorithm 2 của bài báo, viết tường minh), từng bước một, "
    "trên tối đa bốn tham số có shape ngẫu nhiên trong một hoặc hai param group, một số tham số không có "
    "gradient ở vài bước, ở float32 và float64 (result); và trên những gì nó giữ lại sau đó (state).",
)


def _recap(en: list[str], vi: list[str]) -> tuple[str, str]:
    return "\n".join([*en, _GRADED[0]]), "\n".join([*vi, _GRADED[1]])


RECAPS: dict[str, tuple[str, str]] = {
    "sgd": _recap(
        [
            "SGD steps against the gradient: p ← p − lr·g. Weight decay adds wd·p to the gradient (L2).",
            "Momentum keeps a velocity b ← μ·b + g per parameter (a copy of g at its first step), which "
            "smooths noisy gradients and speeds up along consistent directions.",
            "Nesterov looks ahead: it steps by g + μ·b, the gradient plus the momentum it is about to take.",
            "State: one buffer the size of the parameter with momentum, none without: 4 bytes per fp32 "
            "parameter, or nothing.",
            "Usual mistakes: dampening the first step, stepping parameters without a gradient, reading lr "
            "from self.defaults instead of the group.",
        ],
        [
            "SGD bước ngược chiều gradient: p ← p − lr·g. Weight decay cộng wd·p vào gradient (L2).",
            "Momentum giữ một vận tốc b ← μ·b + g cho mỗi tham số (bản sao của g ở bước đầu tiên), làm mượt "
            "gradient nhiễu và tăng tốc theo các hướng ổn định.",
            "Nesterov nhìn trước: nó bước theo g + μ·b, gradient cộng với momentum sắp được áp dụng.",
            "State: một buffer cùng kích thước tham số khi có momentum, không có gì khi không có: 4 byte "
            "cho mỗi tham số fp32, hoặc không byte nào.",
            "Lỗi thường gặp: dampening ở bước đầu, cập nhật tham số không có gradient, đọc lr từ "
            "self.defaults thay vì từ group.",
        ],
    ),
    "adam": _recap(
        [
            "Adam keeps two exponential averages per parameter: m of the gradient (β1) and v of its square "
            "(β2), and steps by m / √v, a per-element step size.",
            "Both start at zero, so early averages are biased towards zero: dividing by 1 − βᵗ corrects "
            "them, with t the parameter's own step count.",
            "Adam's weight decay is L2: wd·p is added to the gradient, so it is rescaled by √v like the "
            "rest.",
            "amsgrad keeps the running maximum of v and divides by it, so the step size never grows.",
            "State: m and v, 8 bytes per fp32 parameter (12 with amsgrad): twice the parameter itself.",
        ],
        [
            "Adam giữ hai trung bình mũ cho mỗi tham số: m của gradient (β1) và v của bình phương gradient "
            "(β2), và bước theo m / √v, một cỡ bước riêng cho từng phần tử.",
            "Cả hai bắt đầu từ 0 nên các trung bình ban đầu bị lệch về 0: chia cho 1 − βᵗ để hiệu chỉnh, "
            "với t là số bước riêng của tham số.",
            "Weight decay của Adam là L2: wd·p được cộng vào gradient, nên nó cũng bị chia cho √v như phần "
            "còn lại.",
            "amsgrad giữ giá trị lớn nhất từ trước tới nay của v và chia cho nó, nên cỡ bước không bao giờ "
            "tăng.",
            "State: m và v, 8 byte cho mỗi tham số fp32 (12 với amsgrad): gấp đôi chính tham số.",
        ],
    ),
    "adamw": _recap(
        [
            "Loshchilov and Hutter (2019): in Adam, L2 decay added to the gradient is divided by √v, so "
            "parameters with large gradients are barely decayed.",
            "AdamW decouples the decay from the gradient: the weights shrink by (1 − lr·wd) at every step, "
            "then the plain Adam update runs on the gradient alone.",
            "It is the default optimizer of most transformer training (GPT, LLaMA), with wd around 0.1.",
            "State: the same m and v as Adam, 8 bytes per fp32 parameter.",
            "Usual mistakes: forgetting the lr in (1 − lr·wd), decaying parameters that have no gradient, "
            "still adding wd·p to the gradient.",
        ],
        [
            "Loshchilov và Hutter (2019): trong Adam, decay L2 cộng vào gradient bị chia cho √v, nên các "
            "tham số có gradient lớn hầu như không bị decay.",
            "AdamW tách decay khỏi gradient: trọng số co lại theo (1 − lr·wd) ở mỗi bước, rồi bước cập nhật "
            "Adam thông thường chạy trên riêng gradient.",
            "Đây là optimizer mặc định của hầu hết việc huấn luyện transformer (GPT, LLaMA), với wd khoảng "
            "0.1.",
            "State: cùng m và v như Adam, 8 byte cho mỗi tham số fp32.",
            "Lỗi thường gặp: quên lr trong (1 − lr·wd), decay cả tham số không có gradient, vẫn cộng wd·p "
            "vào gradient.",
        ],
    ),
    "adagrad": _recap(
        [
            "Adagrad (Duchi et al., 2011) divides each element's step by the root of the sum of all its "
            "past squared gradients: rarely updated features keep large steps.",
            "The sum only grows, so the effective learning rate shrinks over time; lr_decay shrinks it "
            "further, by 1 + (t−1)·lr_decay.",
            "initial_accumulator_value starts the sum above zero, which tames the first steps.",
            "State: one sum per parameter, 4 bytes per fp32 parameter; torch makes it at construction.",
            "Usual mistakes: ε under the root, decaying the learning rate already at the first step.",
        ],
        [
            "Adagrad (Duchi và cộng sự, 2011) chia bước của mỗi phần tử cho căn của tổng mọi bình phương "
            "gradient trước đó của nó: các đặc trưng ít được cập nhật giữ được bước lớn.",
            "Tổng chỉ tăng, nên learning rate hiệu dụng giảm dần theo thời gian; lr_decay làm nó giảm thêm, "
            "theo 1 + (t−1)·lr_decay.",
            "initial_accumulator_value cho tổng bắt đầu lớn hơn 0, giúp các bước đầu ổn định hơn.",
            "State: một tổng cho mỗi tham số, 4 byte cho mỗi tham số fp32; torch tạo nó ngay khi khởi tạo.",
            "Lỗi thường gặp: ε nằm dưới căn, đã giảm learning rate ngay ở bước đầu.",
        ],
    ),
    "lion": _recap(
        [
            "Lion (Chen et al., 2023) was found by program search: it steps by the sign of an "
            "interpolation between the momentum and the gradient, so every element moves by exactly lr.",
            "It interpolates with β1 for the step and updates the moment with β2 afterwards, two different "
            "rates.",
            "Because the update has unit size, Lion wants a smaller lr and a larger weight decay than AdamW.",
            "State: a single moment, 4 bytes per fp32 parameter: half of Adam's.",
            "Usual mistakes: the sign of the new moment instead of the interpolation with the old one, "
            "using β2 for the step, decaying after the step.",
        ],
        [
            "Lion (Chen và cộng sự, 2023) được tìm ra bằng tìm kiếm chương trình: nó bước theo dấu của một "
            "phép nội suy giữa momentum và gradient, nên mỗi phần tử dịch chuyển đúng lr.",
            "Nó nội suy với β1 cho bước cập nhật và cập nhật moment với β2 sau đó, hai tốc độ khác nhau.",
            "Vì bước cập nhật có độ lớn đơn vị, Lion cần lr nhỏ hơn và weight decay lớn hơn AdamW.",
            "State: chỉ một moment, 4 byte cho mỗi tham số fp32: một nửa của Adam.",
            "Lỗi thường gặp: lấy dấu của moment mới thay vì phép nội suy với moment cũ, dùng β2 cho bước "
            "cập nhật, decay sau bước cập nhật.",
        ],
    ),
    "optimizer_state_bytes": (
        "\n".join(
            [
                "An optimizer's state is what it must remember between steps, per parameter element.",
                "SGD with momentum keeps a buffer, Adam and AdamW keep m and v (amsgrad adds max v), "
                "Adagrad keeps a sum, Lion a moment, plain SGD nothing.",
                "torch.optim keeps them in the parameter's dtype: 2 bytes each for bf16 parameters.",
                "Adam's state alone is twice the model: for a 7B model in fp32, 56 GB beside the 28 GB "
                "of weights. That is what ZeRO-1 shards.",
                "Graded against the nbytes a real optimizer keeps after one step (step counters aside), "
                "for random parameter counts and dtypes.",
            ]
        ),
        "\n".join(
            [
                "State của optimizer là những gì nó phải nhớ giữa các bước, cho từng phần tử tham số.",
                "SGD có momentum giữ một buffer, Adam và AdamW giữ m và v (amsgrad thêm max v), Adagrad giữ "
                "một tổng, Lion một moment, SGD thuần không giữ gì.",
                "torch.optim giữ chúng theo dtype của tham số: 2 byte mỗi phần tử với tham số bf16.",
                "Riêng state của Adam đã gấp đôi mô hình: với mô hình 7B ở fp32 là 56 GB bên cạnh 28 GB "
                "trọng số. Đó chính là thứ ZeRO-1 chia nhỏ.",
                "Bộ chấm so với số nbytes mà một optimizer thật giữ sau một bước (không tính bộ đếm bước), "
                "với số tham số và dtype ngẫu nhiên.",
            ]
        ),
    ),
    "bytes_per_param": (
        "\n".join(
            [
                "Mixed-precision training keeps 16-bit parameters and gradients (2 + 2 bytes) and, for the "
                "optimizer, an fp32 master copy of every parameter (4 bytes) plus its state.",
                "The ZeRO paper calls the optimizer's share K: 12 for mixed-precision Adam (4 master + 4 m + "
                "4 v), hence (2 + 2 + K)·Ψ = 16Ψ bytes for Ψ parameters.",
                "In pure fp32 there is no master copy: K is the state alone (8 for Adam); in pure bf16 the "
                "state is bf16 too (4 for Adam).",
                "K is what ZeRO-1 divides by the data-parallel degree: the largest term of the 16 bytes.",
                "Graded against a real training step of the kit's GPT: the bytes of masters and optimizer "
                "state it keeps, divided by its parameter count.",
            ]
        ),
        "\n".join(
            [
                "Huấn luyện mixed precision giữ tham số và gradient 16 bit (2 + 2 byte) và, cho optimizer, "
                "một bản master fp32 của mỗi tham số (4 byte) cộng với state của nó.",
                "Bài báo ZeRO gọi phần của optimizer là K: 12 với Adam mixed precision (4 master + 4 m + "
                "4 v), do đó (2 + 2 + K)·Ψ = 16Ψ byte cho Ψ tham số.",
                "Ở fp32 thuần không có bản master: K chỉ là state (8 với Adam); ở bf16 thuần, state cũng là "
                "bf16 (4 với Adam).",
                "K là phần mà ZeRO-1 chia theo bậc song song dữ liệu: số hạng lớn nhất trong 16 byte.",
                "Bộ chấm so với một bước huấn luyện thật của mô hình GPT của kit: số byte master và state "
                "của optimizer mà nó giữ, chia cho số tham số.",
            ]
        ),
    ),
}
