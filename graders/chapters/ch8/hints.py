"""Chapter 8's graded hints, English and Vietnamese (see ``graders.words.hints``);
recaps live in ``recaps``."""

from graders.chapters.ch8.recaps import RECAPS

__all__ = ["HINTS", "RECAPS"]

HINTS: dict[str, list[tuple[str, str]]] = {
    "dynamic_loss_scaler": [
        (
            "Read loss_scaler.py's module docstring: it lists torch.amp.GradScaler's contract method by "
            "method, and what has to be remembered between the calls of one step.",
            "Đọc docstring của module loss_scaler.py: nó liệt kê hợp đồng của torch.amp.GradScaler theo "
            "từng phương thức, và những gì phải được ghi nhớ giữa các lời gọi trong một bước.",
        ),
        (
            "Keep three things in the scaler: the scale as a float, the count of finite steps in a row, "
            "and, for the current step, whether unscale_ has run and what it found (not having run yet is "
            "a state of its own, apart from having found everything finite). unscale_ divides in place the "
            "gradient of every parameter in every param group of the optimizer (skipping those without "
            "one), looks for inf and NaN in each, and refuses with RuntimeError if it already ran this step.",
            "Giữ ba thứ trong scaler: scale dưới dạng float, số bước hữu hạn liên tiếp, và, cho bước hiện "
            "tại, unscale_ đã chạy chưa và đã thấy gì (chưa chạy là một trạng thái riêng, khác với việc "
            "thấy mọi giá trị đều hữu hạn). unscale_ chia tại chỗ gradient của mọi tham số trong mọi param "
            "group của optimizer (bỏ qua tham số chưa có gradient), tìm inf và NaN trong từng gradient, và "
            "báo RuntimeError nếu nó đã chạy trong bước này.",
        ),
        (
            "step() unscales only when unscale_ has not run this step, calls optimizer.step() only when "
            "every gradient was finite (not even with the bad gradients zeroed: momentum would still move "
            "the parameters), and returns True or False accordingly. update() reads the step's finding: "
            "after a skip it multiplies the scale by backoff_factor and restarts the count at 0; after a "
            "finite step it adds one to the count and, once the count reaches growth_interval, multiplies "
            "the scale by growth_factor and restarts it. Then it forgets the step's finding, so the next "
            "step unscales afresh.",
            "step() chỉ unscale khi unscale_ chưa chạy trong bước này, chỉ gọi optimizer.step() khi mọi "
            "gradient đều hữu hạn (kể cả khi đã đưa các gradient hỏng về 0 cũng không: momentum vẫn làm "
            "tham số thay đổi), và trả về True hay False tương ứng. update() đọc kết quả của bước: sau một "
            "lần bỏ qua, nó nhân scale với backoff_factor và đếm lại từ 0; sau một bước hữu hạn, nó cộng "
            "một vào bộ đếm và, khi bộ đếm chạm growth_interval, nhân scale với growth_factor rồi đếm lại. "
            "Sau đó nó quên kết quả của bước, để bước sau unscale lại từ đầu.",
        ),
    ],
    "accumulation_step": [
        (
            "Read accumulation.py's module docstring: what one token is, what the step's loss is the mean "
            "over, and what model.no_sync() changes under DDP.",
            "Đọc docstring của module accumulation.py: một token là gì, loss của bước là trung bình trên "
            "những gì, và model.no_sync() thay đổi điều gì dưới DDP.",
        ),
        (
            "Count the step's tokens over all its microbatches first (the rows of each x). A microbatch's "
            "loss is the sum of its token losses divided by that total, not its own mean; back-propagate "
            "it straight away so that .grad adds the shares up, and add its value, as a Python number, to "
            "the float you return. After the last microbatch: one optimizer.step() and one zero_grad().",
            "Đếm số token của bước trên mọi microbatch trước (số hàng của mỗi x). Loss của một microbatch "
            "là tổng loss các token của nó chia cho tổng đó, không phải trung bình riêng của nó; lan truyền "
            "ngược ngay để .grad cộng dồn các phần, và cộng giá trị của nó, dưới dạng số Python, vào float "
            "bạn trả về. Sau microbatch cuối: một optimizer.step() và một zero_grad().",
        ),
        (
            "Under DDP the forward decides whether the following backward all-reduces, so run both the "
            "forward and the backward of every microbatch but the last inside model.no_sync(); the last "
            "one, outside it, all-reduces the whole accumulated gradient once. A model without no_sync "
            "(no DDP) takes a context that does nothing instead (contextlib.nullcontext). Send nothing "
            "yourself: DDP's average over the ranks is the one you want.",
            "Dưới DDP, forward quyết định lần backward tiếp theo có all-reduce hay không, nên hãy chạy cả "
            "forward lẫn backward của mọi microbatch trừ cái cuối bên trong model.no_sync(); cái cuối, ở "
            "ngoài, all-reduce toàn bộ gradient đã tích lũy đúng một lần. Model không có no_sync (không "
            "phải DDP) thì dùng một context không làm gì thay thế (contextlib.nullcontext). Đừng tự gửi gì: "
            "trung bình trên các rank của DDP chính là thứ bạn cần.",
        ),
    ],
    "checkpoint": [
        (
            "Read checkpointing.py's module docstring: what forward keeps, what backward does again, and "
            "why the CPU generator's state is part of what is kept.",
            "Đọc docstring của module checkpointing.py: forward giữ lại gì, backward làm lại gì, và vì sao "
            "trạng thái của bộ sinh số ngẫu nhiên CPU là một phần của những gì được giữ.",
        ),
        (
            "Write a torch.autograd.Function whose forward takes fn and the arguments; checkpoint only "
            "applies it. Its forward already runs without building a graph: call fn there, keep the tensor "
            "arguments with ctx.save_for_backward, the other arguments on ctx as they are, and the CPU "
            "generator's state from torch.get_rng_state(), and nothing else (not the output).",
            "Viết một torch.autograd.Function có forward nhận fn và các đối số; checkpoint chỉ việc apply "
            "nó. Forward của nó vốn chạy mà không dựng đồ thị tính toán: gọi fn ở đó, giữ các đối số tensor "
            "bằng ctx.save_for_backward, các đối số khác trên ctx như nguyên, và trạng thái bộ sinh số CPU "
            "từ torch.get_rng_state(), ngoài ra không gì khác (không giữ đầu ra).",
        ),
        (
            "In backward, make detached copies of the saved tensors that require grad where the input did "
            "(ctx.needs_input_grad, after fn's entry), and rerun fn on them once with grad enabled, from "
            "the saved state restored inside torch.random.fork_rng(devices=[]) so that the generator ends "
            "backward where it was. Back-propagate the incoming gradient through that output, then return "
            "None for fn followed by each copy's gradient (None for the non-tensors); the parameters' "
            "gradients land in their .grad on the way.",
            "Trong backward, tạo các bản detach của tensor đã lưu, yêu cầu grad đúng ở những chỗ đầu vào "
            "đã yêu cầu (ctx.needs_input_grad, sau vị trí của fn), rồi chạy lại fn trên chúng một lần với "
            "grad được bật, từ trạng thái đã lưu được khôi phục bên trong torch.random.fork_rng(devices=[]) "
            "để bộ sinh số kết thúc backward đúng ở trạng thái cũ. Lan truyền ngược gradient nhận được qua "
            "đầu ra đó, rồi trả về None cho fn, tiếp theo là gradient của từng bản sao (None cho các đối số "
            "không phải tensor); gradient của tham số được cộng vào .grad của chúng trên đường đi.",
        ),
    ],
    "quantize_fp8": [
        (
            "Read fp8.py's module docstring: its rules (amax, the scale, saturation, the value q stands "
            "for) are all quantize_fp8 does, in float32, for either format.",
            "Đọc docstring của module fp8.py: các quy tắc của nó (amax, scale, saturation, giá trị mà q "
            "đại diện) là tất cả những gì quantize_fp8 làm, bằng float32, cho cả hai định dạng.",
        ),
        (
            "Fill in the helpers first, since DelayedScaling and fp8_linear reuse them. amax takes the "
            "magnitudes in float32 and sets the non-finite ones (NaN, ±inf) to 0 before the maximum: a "
            "plain max returns NaN or inf for them. The scale is the format's largest value (torch.finfo "
            "of its dtype) divided by amax, as a float32 scalar tensor, and 1 when amax is 0.",
            "Hãy viết các hàm phụ trước, vì DelayedScaling và fp8_linear dùng lại chúng. amax lấy độ lớn "
            "bằng float32 và đặt các phần tử không hữu hạn (NaN, ±inf) về 0 trước khi lấy max: max thông "
            "thường sẽ trả về NaN hay inf cho chúng. scale là giá trị lớn nhất của định dạng (torch.finfo "
            "của dtype đó) chia cho amax, dưới dạng một tensor vô hướng float32, và bằng 1 khi amax là 0.",
        ),
        (
            "The cast multiplies x, in float32, by the scale and clamps the product to plus or minus the "
            "format's largest value before converting it to torch.float8_e4m3fn or float8_e5m2: that "
            "saturation turns ±inf and anything too large into ±fp8_max (e5m2 would keep inf otherwise), "
            "while NaN goes through the clamp and the cast unchanged, as it should. Return the FP8 tensor "
            "and then the scale, both tensors.",
            "Phép ép kiểu nhân x, bằng float32, với scale và kẹp tích trong khoảng cộng trừ giá trị lớn "
            "nhất của định dạng trước khi chuyển sang torch.float8_e4m3fn hay float8_e5m2: saturation đó "
            "biến ±inf và mọi giá trị quá lớn thành ±fp8_max (nếu không e5m2 sẽ giữ inf), còn NaN đi qua "
            "phép kẹp và phép ép kiểu mà không đổi, đúng như mong muốn. Trả về tensor FP8 rồi tới scale, "
            "cả hai đều là tensor.",
        ),
    ],
    "delayed_scaling": [
        (
            "Read fp8.py's module docstring, its last paragraph: which steps a step's scale comes from, "
            "what joins the history after each quantize, and when the scale stays as it is.",
            "Đọc docstring của module fp8.py, đoạn cuối: scale của một bước đến từ những bước nào, cái gì "
            "được thêm vào history sau mỗi lần quantize, và khi nào scale giữ nguyên.",
        ),
        (
            "Keep two things: the history, a list of the amaxes seen, of which only the last history_len "
            "count, and the current scale, a float32 scalar tensor that starts at 1. get_scale() returns "
            "that scale as a Python float.",
            "Giữ hai thứ: history, một danh sách các amax đã thấy, trong đó chỉ history_len giá trị cuối "
            "được tính, và scale hiện tại, một tensor vô hướng float32 bắt đầu bằng 1. get_scale() trả về "
            "scale đó dưới dạng một float của Python.",
        ),
        (
            "quantize(x) first casts x with the current scale, made from earlier steps only, through the "
            "same saturating cast as quantize_fp8 (a sudden jump in magnitude then saturates at ±fp8_max), "
            "and remembers that scale. Only then does x's finite amax join the history, cut to its last "
            "history_len entries; if the largest amax left is above 0, the next scale is fp8_max divided "
            "by it and by 2 to the power margin, in float32, otherwise the scale stays. Return the FP8 "
            "tensor and the scale it was cast with, not the new one.",
            "quantize(x) trước hết ép kiểu x bằng scale hiện tại, chỉ được tạo từ các bước trước, qua cùng "
            "phép ép kiểu có saturation như quantize_fp8 (một cú nhảy đột ngột về độ lớn khi đó sẽ bão hòa "
            "ở ±fp8_max), và ghi nhớ scale đó. Chỉ sau đó amax hữu hạn của x mới vào history, cắt còn "
            "history_len phần tử cuối; nếu amax lớn nhất còn lại lớn hơn 0, scale tiếp theo là fp8_max chia "
            "cho nó và cho 2 mũ margin, bằng float32, nếu không thì scale giữ nguyên. Trả về tensor FP8 và "
            "scale đã dùng để ép kiểu nó, không phải scale mới.",
        ),
    ],
    "fp8_linear": [
        (
            "Read fp8.py's module docstring: beyond quantize_fp8, fp8_linear needs only its last rule, the "
            "value an FP8 tensor stands for.",
            "Đọc docstring của module fp8.py: ngoài quantize_fp8, fp8_linear chỉ cần quy tắc cuối cùng của "
            "nó, giá trị mà một tensor FP8 đại diện.",
        ),
        (
            "Quantize x and the weight separately with quantize_fp8, each with its own scale: a shared one "
            "would push the smaller tensor into FP8's subnormals. Each FP8 tensor divided by its scale "
            "stands for the original, so the product of x and the transposed weight is the product of the "
            "FP8 tensors divided by both scales.",
            "Lượng tử hóa x và trọng số riêng rẽ bằng quantize_fp8, mỗi cái với scale riêng: một scale dùng "
            "chung sẽ đẩy tensor nhỏ hơn vào vùng subnormal của FP8. Mỗi tensor FP8 chia cho scale của nó "
            "đại diện cho tensor gốc, nên tích của x với trọng số chuyển vị bằng tích các tensor FP8 chia "
            "cho cả hai scale.",
        ),
        (
            "Convert both FP8 tensors to float32 before the matmul (an FP8 product would be rounded to FP8 "
            "again), multiply x's by the transpose of the weight's, and divide the whole product once by "
            "the product of the two scales: the scales come out of every dot product's sum. The result is "
            "a float32 tensor with one row per row of x and one column per row of the weight.",
            "Chuyển cả hai tensor FP8 sang float32 trước matmul (tích FP8 sẽ lại bị làm tròn về FP8), nhân "
            "tensor của x với chuyển vị của tensor trọng số, rồi chia toàn bộ tích một lần cho tích của hai "
            "scale: các scale đi ra ngoài tổng của mọi tích vô hướng. Kết quả là một tensor float32 với mỗi "
            "hàng ứng với một hàng của x và mỗi cột ứng với một hàng của trọng số.",
        ),
    ],
    "mixed_precision_trainer": [
        (
            "Read mixed_precision.py's module docstring: its four numbered steps are the whole step, and "
            "its last paragraph says what the trainer may keep between steps.",
            "Đọc docstring của module mixed_precision.py: bốn bước được đánh số là toàn bộ một bước huấn "
            "luyện, và đoạn cuối nói trainer được giữ những gì giữa các bước.",
        ),
        (
            "The masters are copies of the parameters made before the model goes 16-bit, in float32, "
            "detached from the model and requiring grad: the optimizer is built on them, not on the "
            "model's parameters. After backward, every 16-bit gradient moves to its master as float32 "
            "and the model's gradient is dropped.",
            "Các master là bản sao của tham số được tạo trước khi mô hình chuyển sang 16-bit, bằng float32, "
            "tách khỏi mô hình và có requires_grad: optimizer được dựng trên chúng, không phải trên tham "
            "số của mô hình. Sau backward, mỗi gradient 16-bit chuyển sang master của nó dưới dạng float32 "
            "và gradient của mô hình bị bỏ đi.",
        ),
        (
            "With a loss scaler the scaler's own step and update do the unscaling and the skipping, on the "
            "masters' optimizer; without one, the optimizer steps. Then free the masters' gradients "
            "(set to None, not zeroed: a zero tensor still takes its bytes) and copy each master into its "
            "parameter under no_grad; the cast to 16 bits happens in the copy.",
            "Có loss scaler thì chính step và update của nó lo việc unscale và bỏ qua bước, trên optimizer "
            "của các master; không có thì optimizer tự step. Sau đó giải phóng gradient của các master "
            "(đặt thành None, không phải đặt về 0: một tensor toàn 0 vẫn chiếm byte) và chép mỗi master "
            "vào tham số của nó dưới no_grad; phép ép về 16-bit xảy ra ngay trong lúc chép.",
        ),
    ],
}
