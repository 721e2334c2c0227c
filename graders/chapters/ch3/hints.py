"""Chapter 3's graded hints, English and Vietnamese (see ``graders.words.hints``);
recaps live in ``recaps``."""

from graders.chapters.ch3.recaps import RECAPS

__all__ = ["HINTS", "RECAPS"]

_SKIP = (
    "Loop over self.param_groups, then over each group's 'params'; skip a parameter whose .grad is None "
    "entirely (no decay, no state, no step count), and read every hyperparameter from the group.",
    "Lặp qua self.param_groups, rồi qua 'params' của từng group; bỏ qua hoàn toàn tham số có .grad là "
    "None (không decay, không state, không đếm bước), và đọc mọi siêu tham số từ group.",
)

HINTS: dict[str, list[tuple[str, str]]] = {
    "sgd": [
        (
            "Read optimizers.py's module docstring: the SGD line gives the update in the order torch applies "
            "it, and the contract says where state lives.",
            "Đọc docstring của module optimizers.py: dòng SGD cho công thức cập nhật theo đúng thứ tự torch "
            "áp dụng, và hợp đồng nói state được lưu ở đâu.",
        ),
        _SKIP,
        (
            "The buffer is created the first time a parameter with momentum has a gradient, as a copy of the "
            "decayed gradient (not μ·0 + g, not (1−μ)·g); later steps multiply it by μ and add the gradient "
            "in "
            "place. Nesterov steps by the gradient plus μ times the new buffer; without momentum nothing is "
            "stored at all.",
            "Buffer được tạo lần đầu tiên một tham số có momentum nhận gradient, là bản sao của gradient đã "
            "cộng decay (không phải μ·0 + g, cũng không phải (1−μ)·g); các bước sau nhân nó với μ rồi cộng "
            "gradient tại chỗ. Nesterov bước theo gradient cộng μ lần buffer mới; không có momentum thì "
            "không "
            "lưu gì cả.",
        ),
    ],
    "adam": [
        (
            "Read the Adam line of optimizers.py's docstring, then torch's Adam page: the order is decay "
            "into "
            "the gradient, the two moments, the bias corrections, the step.",
            "Đọc dòng Adam trong docstring của optimizers.py, rồi trang Adam của torch: thứ tự là cộng decay "
            "vào gradient, hai moment, hiệu chỉnh bias, rồi bước cập nhật.",
        ),
        _SKIP,
        (
            "Each parameter keeps its own step count t in its state (a parameter whose first gradient comes "
            "at step 3 is at its t = 1 then). The denominator is √v divided by √(1−β2ᵗ), plus ε outside the "
            "root; the step size is lr / (1−β1ᵗ). With amsgrad keep the running maximum of v (not of the "
            "corrected v) and use it in place of v.",
            "Mỗi tham số giữ số bước t riêng trong state (tham số nhận gradient đầu tiên ở bước 3 thì lúc đó "
            "t = 1). Mẫu số là √v chia cho √(1−β2ᵗ), cộng ε ở ngoài căn; cỡ bước là lr / (1−β1ᵗ). Với "
            "amsgrad, "
            "giữ giá trị lớn nhất từ trước tới nay của v (không phải của v đã hiệu chỉnh) và dùng nó thay "
            "cho v.",
        ),
    ],
    "adamw": [
        (
            "AdamW is Adam with one change: read the AdamW line of optimizers.py's docstring and compare it "
            "with Adam's.",
            "AdamW là Adam với đúng một thay đổi: đọc dòng AdamW trong docstring của optimizers.py và so "
            "sánh "
            "với dòng Adam.",
        ),
        (
            "The decay does not go into the gradient the moments see: the weights themselves shrink by the "
            "factor (1 − lr·wd) before the Adam step, and only for a parameter that has a gradient.",
            "Decay không đi vào gradient mà các moment thấy: chính các trọng số co lại theo hệ số (1 − "
            "lr·wd) "
            "trước bước Adam, và chỉ với tham số có gradient.",
        ),
    ],
    "adagrad": [
        (
            "Read the Adagrad line of optimizers.py's docstring: one running sum per parameter, and a "
            "learning "
            "rate that decays with the parameter's own step count.",
            "Đọc dòng Adagrad trong docstring của optimizers.py: một tổng tích luỹ cho mỗi tham số, và "
            "learning rate giảm dần theo số bước riêng của tham số.",
        ),
        _SKIP,
        (
            "The sum starts at the group's initial_accumulator_value (not 0) and gains g² after the decay "
            "was "
            "added to g; at the first step the decay factor is 1 (t − 1 = 0); ε is added to √sum, not under "
            "the root.",
            "Tổng bắt đầu từ initial_accumulator_value của group (không phải 0) và cộng thêm g² sau khi "
            "decay "
            "đã được cộng vào g; ở bước đầu, hệ số suy giảm là 1 (t − 1 = 0); ε được cộng vào √sum, không "
            "nằm dưới căn.",
        ),
    ],
    "lion": [
        (
            "Read the Lion line of optimizers.py's docstring and Algorithm 2 of Chen et al. (2023): two "
            "betas, one moment, and the sign of an interpolation.",
            "Đọc dòng Lion trong docstring của optimizers.py và Algorithm 2 của Chen và cộng sự (2023): hai "
            "beta, một moment, và dấu của một phép nội suy.",
        ),
        _SKIP,
        (
            "Order matters: decay the weights, step by −lr times the sign of β1·m + (1−β1)·g computed with "
            "the "
            "moment of the *previous* step, then move the moment towards g with β2. Every element moves by "
            "exactly lr (or 0 where the interpolation is 0).",
            "Thứ tự rất quan trọng: decay trọng số, bước −lr nhân dấu của β1·m + (1−β1)·g tính với moment "
            "của "
            "bước *trước*, rồi mới đưa moment về phía g với β2. Mỗi phần tử dịch chuyển đúng lr (hoặc 0 khi "
            "phép nội suy bằng 0).",
        ),
    ],
    "optimizer_state_bytes": [
        (
            "Read state_memory.py's docstring: what counts as per-element state, and what does not.",
            "Đọc docstring của state_memory.py: cái gì được tính là state theo từng phần tử, cái gì không.",
        ),
        (
            "Each optimizer keeps a fixed number of tensors the size of a parameter (count them from the "
            "update rules of optimizers.py), each in the parameter's dtype: multiply by n_params and by the "
            "dtype's bytes per element (dtype.itemsize).",
            "Mỗi optimizer giữ một số cố định tensor có kích thước bằng tham số (đếm từ các công thức cập "
            "nhật "
            "trong optimizers.py), mỗi tensor theo dtype của tham số: nhân với n_params và với số byte mỗi "
            "phần tử của dtype (dtype.itemsize).",
        ),
    ],
    "bytes_per_param": [
        (
            "Read state_memory.py's docstring and section 3 of the ZeRO paper: K is the optimizer's share of "
            "the 16 bytes per parameter of mixed-precision Adam.",
            "Đọc docstring của state_memory.py và mục 3 của bài báo ZeRO: K là phần của optimizer trong 16 "
            "byte mỗi tham số của Adam mixed precision.",
        ),
        (
            "K counts the optimizer's tensors at the bytes of the precision they live in (float32 in fp32 "
            "and "
            "in mixed precision, bfloat16 in bf16), plus 4 bytes of fp32 master copy in mixed precision "
            "only; "
            "the parameter and its gradient are not part of K.",
            "K đếm các tensor của optimizer theo số byte của độ chính xác mà chúng dùng (float32 ở fp32 và ở "
            "mixed precision, bfloat16 ở bf16), cộng 4 byte của bản master fp32 chỉ ở mixed precision; tham "
            "số và gradient của nó không thuộc K.",
        ),
    ],
}
