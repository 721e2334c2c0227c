"""Chapter 9's graded hints, English and Vietnamese (see ``graders.hints``); recaps live in ``recaps``."""

from graders.chapters.ch9.recaps import RECAPS

__all__ = ["HINTS", "RECAPS"]

HINTS: dict[str, list[tuple[str, str]]] = {
    "blockwise_attention": [
        (
            "Read the docstring at the top of blockwise.py: it names the three running quantities kept per "
            "query row, how a block with a larger maximum rescales what came before, and what out and lse "
            "are at the end.",
            "Đọc docstring ở đầu blockwise.py: nó nêu ba đại lượng chạy được giữ cho mỗi hàng query, cách "
            "một block có giá trị lớn nhất lớn hơn rescale những gì đã có trước đó, và out, lse là gì ở "
            "cuối.",
        ),
        (
            "Walk over the keys and values block_size positions at a time, slicing the sequence dimension "
            "(the last slice may be shorter). Score every query against one block's keys only, scaled by "
            "dim ** -0.5: one [batch, heads, seq, block] tensor per step, never [seq, seq]. With causal, "
            "fill with -inf the scores of the keys whose position in the whole sequence (the block's start "
            "plus their offset in it) comes after the query's, before taking any maximum; build that mask "
            "block by block too, not once for the whole sequence.",
            "Duyệt qua các key và value, mỗi lần block_size vị trí, bằng cách cắt theo chiều chuỗi (lát "
            "cuối có thể ngắn hơn). Tính điểm của mọi query chỉ với các key của một block, nhân với dim ** "
            "-0.5: mỗi bước một tensor [batch, heads, seq, block], không bao giờ [seq, seq]. Với causal, "
            "điền -inf vào điểm của các key có vị trí trong cả chuỗi (vị trí bắt đầu của block cộng độ lệch "
            "trong block) đứng sau vị trí của query, trước khi lấy giá trị lớn nhất; mask đó cũng dựng theo "
            "từng block, không dựng một lần cho cả chuỗi.",
        ),
        (
            "Start the running maximum at -inf, the running sum and the accumulator at zero, all in the "
            "inputs' dtype. For each block the new maximum is the larger of the old one and the block's row "
            "maximum; exponentiate the block's scores minus the new maximum, then multiply the old sum and "
            "the old accumulator by exp(m_old - m_new) before adding the block's row sums and its "
            "probabilities times the block's values. At the end out is the accumulator divided by the sum, "
            "and lse is the maximum plus the log of the sum.",
            "Khởi tạo giá trị lớn nhất đang chạy bằng -inf, tổng đang chạy và accumulator bằng 0, tất cả "
            "theo dtype của đầu vào. Với mỗi block, giá trị lớn nhất mới là số lớn hơn giữa giá trị cũ và "
            "giá trị lớn nhất theo hàng của block; lấy exp của điểm trong block trừ giá trị lớn nhất mới, "
            "rồi nhân tổng cũ và accumulator cũ với exp(m_old - m_new) trước khi cộng thêm tổng theo hàng "
            "của block và xác suất của nó nhân với các value của block. Cuối cùng out là accumulator chia "
            "cho tổng, và lse là giá trị lớn nhất cộng log của tổng.",
        ),
    ],
    "ulysses_attention": [
        (
            "Read the numbered steps in ulysses.py's module docstring: which positions a rank holds before "
            "the first all-to-all, which heads after it, and how backward must be written.",
            "Đọc các bước được đánh số trong docstring của module ulysses.py: một rank giữ những vị trí nào "
            "trước all-to-all đầu tiên, những head nào sau nó, và backward phải được viết thế nào.",
        ),
        (
            "Check heads against the group's size first, on every rank and before any communication, and "
            "raise ValueError naming both numbers. Stack q, k and v into one tensor and lay it out so that "
            "its first dimension has one chunk per destination: chunk j holds heads j·h/P … (j+1)·h/P of "
            "your positions, for all three. One all_to_all_single on the group sends chunk j to group rank "
            "j; chunk i of what arrives came from group rank i, so it holds positions i·s/P … (i+1)·s/P: "
            "put the chunks one after the other along the sequence to get the whole sequence of your h/P "
            "heads.",
            "Trước hết kiểm tra heads với kích thước của nhóm, trên mọi rank và trước mọi giao tiếp, và báo "
            "ValueError nêu cả hai số. Xếp chồng q, k và v thành một tensor và sắp xếp nó sao cho chiều đầu "
            "tiên có một chunk cho mỗi rank đích: chunk j giữ các head j·h/P … (j+1)·h/P của các vị trí của "
            "bạn, cho cả ba. Một all_to_all_single trên nhóm gửi chunk j tới rank j của nhóm; chunk i của "
            "những gì nhận được đến từ rank i của nhóm, nên nó giữ các vị trí i·s/P … (i+1)·s/P: nối các "
            "chunk lần lượt theo chiều chuỗi để có cả chuỗi cho h/P head của bạn.",
        ),
        (
            "Wrap all_to_all_single in a torch.autograd.Function of your own: forward exchanges the chunks, "
            "backward runs the same exchange on the incoming gradient (with equal chunks the reverse "
            "all-to-all is the same call), so backward repeats the forward's two all-to-alls in reverse "
            "order. Its output buffer must be a new contiguous tensor of the input's shape "
            "(torch.empty_like of a permuted view keeps the view's strides, so it is not contiguous), and "
            "what it sends must be contiguous too. After local attention on your heads (causal passed on), "
            "lay the output out by position chunk, one all-to-all back, and put the head groups back in "
            "order: [s/P, heads, dim].",
            "Bọc all_to_all_single trong một torch.autograd.Function của riêng bạn: forward trao đổi các "
            "chunk, backward chạy đúng phép trao đổi đó trên gradient đi vào (với các chunk bằng nhau, "
            "all-to-all ngược chiều chính là cùng lời gọi đó), nên backward lặp lại hai all-to-all của "
            "forward theo thứ tự ngược lại. Buffer đầu ra của nó phải là một tensor contiguous mới có shape "
            "của đầu vào (torch.empty_like của một view đã permute giữ nguyên stride của view nên không "
            "contiguous), và tensor gửi đi cũng phải contiguous. Sau attention cục bộ trên các head của bạn "
            "(truyền causal vào), sắp xếp đầu ra theo từng đoạn vị trí, một all-to-all gửi về, rồi xếp các "
            "nhóm head lại đúng thứ tự: [s/P, heads, dim].",
        ),
    ],
}
