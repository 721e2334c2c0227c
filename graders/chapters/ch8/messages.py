"""Chapter 8's teaching messages in English and Vietnamese (see :mod:`graders.words.messages`)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    # -- dynamic loss scaling
    "ch8:scaled loss": {
        "en": "the scaled loss of step {step}",
        "vi": "loss đã nhân scale ở bước {step}",
    },
    "ch8:scale loss:hint": {
        "en": "scale(loss) returns loss times the current scale, a new tensor that backward runs through.",
        "vi": "scale(loss) trả về loss nhân với scale hiện tại, một tensor mới mà backward chạy qua.",
    },
    "ch8:scale not a number": {
        "en": "get_scale() after step {step} returned {got}; it returns the scale as a Python float.",
        "vi": "get_scale() sau bước {step} trả về {got}; nó phải trả về scale dưới dạng một float của"
        " Python.",
    },
    "ch8:scale differs": {
        "en": "the scale after update() differs from torch's GradScaler from step {step} on: yours {got},"
        " torch's {expected}.",
        "vi": "scale sau update() khác với GradScaler của torch từ bước {step}: của bạn {got}, của torch"
        " {expected}.",
    },
    "ch8:scale:hint": {
        "en": "update() backs off (scale × backoff_factor) after a skipped step and starts counting finite"
        " steps again from 0; after growth_interval finite steps in a row it grows the scale"
        " (× growth_factor) and starts the count again.",
        "vi": "update() giảm scale (scale × backoff_factor) sau một bước bị bỏ qua và đếm lại số bước hữu"
        " hạn từ 0; sau growth_interval bước hữu hạn liên tiếp, nó tăng scale (× growth_factor) rồi đếm lại"
        " từ đầu.",
    },
    "ch8:stepped flag": {
        "en": "step() returned {got} at step {step}; it returns whether it ran optimizer.step() ({expected}"
        " here).",
        "vi": "step() trả về {got} ở bước {step}; nó phải trả về việc nó có chạy optimizer.step() hay không"
        " ({expected} ở đây).",
    },
    "ch8:skipped step moved": {
        "en": "a gradient of step {step} was not finite, yet the parameters changed: the step must be"
        " skipped.",
        "vi": "một gradient ở bước {step} không hữu hạn, vậy mà tham số vẫn thay đổi: bước đó phải bị bỏ"
        " qua.",
    },
    "ch8:torch disagrees": {
        "en": "torch's GradScaler stepped at step {step}, where the kit expected a skip: report this to"
        " your teacher.",
        "vi": "GradScaler của torch đã thực hiện bước {step}, nơi bộ chấm mong đợi bỏ qua: hãy báo cho"
        " giảng viên.",
    },
    "ch8:skip:hint": {
        "en": "after unscaling, look for inf and NaN in every gradient (torch.isfinite); if any is there,"
        " step() does not call optimizer.step().",
        "vi": "sau khi unscale, hãy tìm inf và NaN trong mọi gradient (torch.isfinite); nếu có, step() không"
        " gọi optimizer.step().",
    },
    "ch8:unscaled grad": {
        "en": "gradient {j} after unscale_() at step {step}",
        "vi": "gradient {j} sau unscale_() ở bước {step}",
    },
    "ch8:param after step": {
        "en": "parameter {j} after step {step}",
        "vi": "tham số {j} sau bước {step}",
    },
    "ch8:unscale:hint": {
        "en": "unscale_ divides every gradient by the scale, once per step: when unscale_ was called"
        " before step(), step() must not unscale again.",
        "vi": "unscale_ chia mọi gradient cho scale, mỗi bước một lần: khi unscale_ đã được gọi trước"
        " step(), step() không được unscale lần nữa.",
    },
    # -- FP8
    "ch8:fp8 pair": {
        "en": "{what} must return a pair (q, scale) of tensors, got {got}.",
        "vi": "{what} phải trả về một cặp tensor (q, scale), nhưng nhận được {got}.",
    },
    "ch8:fp8 pair:hint": {
        "en": "return the FP8 tensor and its scale (a float32 scalar tensor), in that order.",
        "vi": "hãy trả về tensor FP8 và scale của nó (một tensor vô hướng float32), theo đúng thứ tự đó.",
    },
    "ch8:fp8 kind": {
        "en": "{what} is {dtype} of shape {shape}; expected {want_dtype} of shape {want_shape}.",
        "vi": "{what} có kiểu {dtype}, shape {shape}; mong đợi kiểu {want_dtype}, shape {want_shape}.",
    },
    "ch8:fp8 values": {
        "en": "{what}: {bad} of {numel} values differ; first at index {index}: expected {expected},"
        " got {got}.",
        "vi": "{what}: {bad} trên {numel} giá trị khác nhau; đầu tiên tại chỉ số {index}: mong đợi"
        " {expected}, nhận được {got}.",
    },
    "ch8:fp8 scale": {
        "en": "{what} is {got}, expected {expected}.",
        "vi": "{what} là {got}, mong đợi {expected}.",
    },
    "ch8:the scale": {
        "en": "the scale",
        "vi": "scale",
    },
    "ch8:the fp8 tensor": {
        "en": "the FP8 tensor",
        "vi": "tensor FP8",
    },
    "ch8:quantize:hint": {
        "en": "scale = fp8_max / amax in float32, amax the largest finite |x|; then x · scale, clamped to"
        " the format's range, cast to the FP8 dtype.",
        "vi": "scale = fp8_max / amax tính bằng float32, amax là |x| hữu hạn lớn nhất; rồi x · scale, kẹp"
        " trong dải của định dạng, ép sang kiểu FP8.",
    },
    "ch8:zero amax:hint": {
        "en": "this tensor has no finite non-zero value: amax is 0, and the scale is 1 (not fp8_max / 0).",
        "vi": "tensor này không có giá trị hữu hạn khác 0: amax bằng 0, và scale là 1 (không phải"
        " fp8_max / 0).",
    },
    "ch8:saturate:hint": {
        "en": "saturate: clamp x · scale to [-fp8_max, fp8_max] before the cast, so that ±inf and values"
        " too large become ±fp8_max (e5m2 would otherwise keep inf); amax ignores ±inf.",
        "vi": "bão hòa (saturate): kẹp x · scale trong [-fp8_max, fp8_max] trước khi ép kiểu, để ±inf và"
        " các giá trị quá lớn thành ±fp8_max (nếu không e5m2 sẽ giữ inf); amax bỏ qua ±inf.",
    },
    "ch8:nan:hint": {
        "en": "amax ignores NaN (torch.max would return NaN); a NaN element stays NaN in FP8.",
        "vi": "amax bỏ qua NaN (torch.max sẽ trả về NaN); một phần tử NaN vẫn là NaN trong FP8.",
    },
    "ch8:delayed scale": {
        "en": "the scale step {step} used",
        "vi": "scale mà bước {step} đã dùng",
    },
    "ch8:delayed fp8": {
        "en": "the FP8 tensor of step {step}",
        "vi": "tensor FP8 của bước {step}",
    },
    "ch8:next scale": {
        "en": "get_scale() after step {step} is {got}, expected {expected}.",
        "vi": "get_scale() sau bước {step} là {got}, mong đợi {expected}.",
    },
    "ch8:delayed:hint": {
        "en": "a step quantizes with the scale made from earlier steps only (1 at first); then its amax"
        " joins the history (the last history_len), and the next scale is fp8_max / (largest amax"
        " in it) / 2 ** margin, unless that amax is 0.",
        "vi": "một bước lượng tử hóa bằng scale chỉ được tạo từ các bước trước (ban đầu là 1); sau đó amax"
        " của nó vào lịch sử (history_len giá trị cuối), và scale tiếp theo là fp8_max / (amax lớn nhất"
        " trong đó) / 2 ** margin, trừ khi amax đó bằng 0.",
    },
    "ch8:fp8 linear kind": {
        "en": "fp8_linear must return a float32 tensor of shape {shape}, got {got}.",
        "vi": "fp8_linear phải trả về một tensor float32 có shape {shape}, nhưng nhận được {got}.",
    },
    "ch8:fp8 linear values": {
        "en": "fp8_linear at {index} is {got}; quantizing both operands, multiplying and dividing by both"
        " scales gives {expected}.",
        "vi": "fp8_linear tại {index} là {got}; lượng tử hóa cả hai toán hạng, nhân rồi chia cho cả hai"
        " scale cho ra {expected}.",
    },
    "ch8:fp8 linear bound": {
        "en": "fp8_linear at {index} is {got}, further from the fp32 product {exact} than FP8's rounding"
        " allows ({bound}).",
        "vi": "fp8_linear tại {index} là {got}, cách tích fp32 {exact} xa hơn mức làm tròn FP8 cho phép"
        " ({bound}).",
    },
    "ch8:fp8 linear:hint": {
        "en": "quantize x and the weight each with its own scale (quantize_fp8), multiply the FP8 values"
        " as float32, and divide the product by both scales.",
        "vi": "lượng tử hóa x và trọng số, mỗi cái với scale riêng (quantize_fp8), nhân các giá trị FP8"
        " dưới dạng float32, rồi chia tích cho cả hai scale.",
    },
    # -- mixed precision
    "ch8:mp loss": {
        "en": "the loss step() returned at step {step} is {got}; expected {expected} (a Python float, the"
        " 16-bit loss cast to float32).",
        "vi": "loss mà step() trả về ở bước {step} là {got}; mong đợi {expected} (một float của Python,"
        " loss 16-bit ép sang float32).",
    },
    "ch8:mp masters missing": {
        "en": "the trainer's masters are {got}; it keeps them as self.masters, a list of float32 tensors"
        " in the order of model.parameters().",
        "vi": "master của trainer là {got}; nó phải giữ chúng ở self.masters, một danh sách tensor float32"
        " theo thứ tự của model.parameters().",
    },
    "ch8:mp master": {
        "en": "master {j} after step {step}",
        "vi": "master {j} sau bước {step}",
    },
    "ch8:mp param": {
        "en": "parameter {j} after step {step}",
        "vi": "tham số {j} sau bước {step}",
    },
    "ch8:masters:hint": {
        "en": "the optimizer steps fp32 masters with the 16-bit gradients cast to float32 (unscaled by the"
        " loss scaler in fp16, which may skip the step); a 16-bit weight cannot hold a small update.",
        "vi": "optimizer cập nhật các master fp32 bằng gradient 16-bit ép sang float32 (được loss scaler"
        " unscale trong fp16, và có thể bỏ qua bước); một trọng số 16-bit không giữ nổi một cập nhật nhỏ.",
    },
    "ch8:cast back:hint": {
        "en": "after the step, every parameter gets its master's value cast to the 16-bit dtype.",
        "vi": "sau bước cập nhật, mỗi tham số nhận giá trị master của nó, ép về kiểu 16-bit.",
    },
    "ch8:mp kept": {
        "en": "after step {step} the trainer keeps {kept} B alive; the 16-bit parameters, their fp32 masters"
        " and AdamW's two moments are {least} B, and with AdamW's step counts at most {most} B.",
        "vi": "sau bước {step} trainer giữ {kept} B còn sống; tham số 16-bit, master fp32 của chúng và hai"
        " moment của AdamW là {least} B, cộng bộ đếm bước của AdamW thì tối đa {most} B.",
    },
    "ch8:mp memory:hint": {
        "en": "free every gradient once it is used (the 16-bit ones after the cast, the masters' after the"
        " step: zero_grad(set_to_none=True)), keep no second copy of anything, and keep the masters"
        " themselves: they are the weights the optimizer trains.",
        "vi": "hãy giải phóng mọi gradient sau khi dùng (gradient 16-bit sau khi ép kiểu, gradient của master"
        " sau bước: zero_grad(set_to_none=True)), không giữ bản sao thứ hai của thứ gì, và giữ chính các"
        " master: chúng là trọng số mà optimizer huấn luyện.",
    },
    # -- gradient accumulation
    "ch8:rank param": {
        "en": "rank {rank}'s parameter {j} after step {step}",
        "vi": "tham số {j} của rank {rank} sau bước {step}",
    },
    "ch8:rank loss": {
        "en": "the loss rank {rank} returned for step {step}",
        "vi": "loss mà rank {rank} trả về cho bước {step}",
    },
    "ch8:accumulation:hint": {
        "en": "back-propagate every microbatch's share of the step's loss, then one optimizer.step() and"
        " one zero_grad() per step: gradients add up in .grad between backwards.",
        "vi": "lan truyền ngược phần đóng góp của mỗi microbatch vào loss của bước, rồi một"
        " optimizer.step() và một zero_grad() mỗi bước: gradient cộng dồn trong .grad giữa các lần backward.",
    },
    "ch8:token weighted:hint": {
        "en": "these microbatches have different sizes: divide each microbatch's summed token losses by"
        " the step's total token count; the mean of the microbatch means weighs small microbatches more.",
        "vi": "các microbatch này có kích thước khác nhau: hãy chia tổng loss các token của mỗi microbatch"
        " cho tổng số token của cả bước; trung bình của các trung bình microbatch sẽ đặt nặng các"
        " microbatch nhỏ hơn.",
    },
    "ch8:loss:hint": {
        "en": "return the step's loss: the mean over all of this rank's tokens of the step, a Python float.",
        "vi": "hãy trả về loss của bước: trung bình trên mọi token của rank này trong bước, một float của"
        " Python.",
    },
    "ch8:one all-reduce": {
        "en": "rank {rank}'s optimizer step {step} issued {count} all-reduces of the gradients ({got});"
        " exactly one, of the whole {nbytes} B gradient, is what accumulation needs.",
        "vi": "bước optimizer {step} của rank {rank} đã phát {count} all-reduce gradient ({got}); tích lũy"
        " gradient chỉ cần đúng một, cho toàn bộ {nbytes} B gradient.",
    },
    "ch8:no_sync:hint": {
        "en": "each DDP backward all-reduces unless it runs inside model.no_sync(): run every microbatch"
        " but the last inside it, so only the last backward communicates.",
        "vi": "mỗi lần backward của DDP đều all-reduce trừ khi chạy bên trong model.no_sync(): hãy chạy mọi"
        " microbatch trừ cái cuối cùng bên trong nó, để chỉ lần backward cuối cùng giao tiếp.",
    },
    # -- checkpointing
    "ch8:no backward": {
        "en": "the gradient could not be back-propagated through checkpoint's result ({why}).",
        "vi": "không thể lan truyền ngược gradient qua kết quả của checkpoint ({why}).",
    },
    "ch8:no backward:hint": {
        "en": "return fn(*args)'s value from a torch.autograd.Function, so that it has a grad_fn.",
        "vi": "hãy trả về giá trị của fn(*args) từ một torch.autograd.Function, để nó có grad_fn.",
    },
    "ch8:output": {
        "en": "checkpoint's output",
        "vi": "đầu ra của checkpoint",
    },
    "ch8:input grad": {
        "en": "the input's gradient",
        "vi": "gradient của đầu vào",
    },
    "ch8:param grad": {
        "en": "the gradient of the block's {name}",
        "vi": "gradient của {name} trong block",
    },
    "ch8:checkpoint:hint": {
        "en": "backward recomputes fn on detached copies of the saved inputs with grad enabled, and"
        " back-propagates the incoming gradient through that recomputation.",
        "vi": "backward tính lại fn trên các bản detach của đầu vào đã lưu với grad được bật, và lan truyền"
        " ngược gradient nhận được qua lần tính lại đó.",
    },
    "ch8:masks:hint": {
        "en": "this block has dropout: keep the CPU generator's state in forward (torch.get_rng_state())"
        " and recompute from it, or backward draws other masks than forward did.",
        "vi": "block này có dropout: hãy giữ trạng thái của bộ sinh số ngẫu nhiên CPU trong forward"
        " (torch.get_rng_state()) và tính lại từ trạng thái đó, nếu không backward sẽ rút ra mask khác với"
        " forward.",
    },
    "ch8:saved bytes": {
        "en": "autograd saved {saved} B in forward; a checkpoint keeps only its inputs ({limit} B), and the"
        " plain block saves {plain} B.",
        "vi": "autograd đã lưu {saved} B trong forward; một checkpoint chỉ giữ đầu vào của nó ({limit} B),"
        " còn block thông thường lưu {plain} B.",
    },
    "ch8:kept bytes": {
        "en": "{kept} B born in checkpoint's forward are still alive when it returns (its output aside);"
        " nothing of the segment may outlive forward but its output (the plain block keeps {plain} B).",
        "vi": "{kept} B sinh ra trong forward của checkpoint vẫn còn sống khi nó trả về (không kể đầu ra);"
        " không gì của đoạn mô hình được sống quá forward ngoài đầu ra (block thông thường giữ {plain} B).",
    },
    "ch8:memory:hint": {
        "en": "run fn in forward without building a graph (an autograd Function's forward runs under"
        " no_grad) and save only the inputs with ctx.save_for_backward.",
        "vi": "chạy fn trong forward mà không dựng đồ thị tính toán (forward của một autograd Function chạy"
        " dưới no_grad) và chỉ lưu đầu vào bằng ctx.save_for_backward.",
    },
    "ch8:recompute flops": {
        "en": "forward cost {forward} FLOPs and backward {backward}; checkpointing costs one forward"
        " ({want_forward}) and then one backward plus one recomputed forward ({want_backward}).",
        "vi": "forward tốn {forward} FLOP và backward {backward}; checkpointing tốn một forward"
        " ({want_forward}) rồi một backward cộng một lần tính lại forward ({want_backward}).",
    },
    "ch8:recompute:hint": {
        "en": "recompute fn exactly once, in backward, and only then back-propagate: no forward with a"
        " graph in forward, no second recomputation.",
        "vi": "tính lại fn đúng một lần, trong backward, rồi mới lan truyền ngược: không chạy forward có"
        " đồ thị trong forward, không tính lại lần thứ hai.",
    },
    "ch8:rng moved": {
        "en": "after backward the CPU generator is not where the plain block leaves it: the recomputation"
        " moved it.",
        "vi": "sau backward, bộ sinh số ngẫu nhiên CPU không ở trạng thái mà block thông thường để lại:"
        " lần tính lại đã làm nó thay đổi.",
    },
    "ch8:rng:hint": {
        "en": "restore the saved state only for the recomputation, inside torch.random.fork_rng(devices=[]),"
        " so that the generator ends backward where it was.",
        "vi": "chỉ khôi phục trạng thái đã lưu cho lần tính lại, bên trong torch.random.fork_rng(devices=[]),"
        " để bộ sinh số kết thúc backward đúng ở trạng thái trước đó.",
    },
}
