"""Chapter 9's graded hints, English and Vietnamese (see ``graders.words.hints``);
recaps live in ``recaps``."""

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
    "ring_attention": [
        (
            "Read the module docstring of ring_attention.py: which block rank r holds at step t, to whom "
            "it passes it and from whom the next one comes, how the partial results merge, and why "
            "backward is a torch.autograd.Function whose dk and dv travel with their blocks.",
            "Đọc docstring của module ring_attention.py: ở bước t rank r giữ block của rank nào, chuyển "
            "nó cho ai và nhận block tiếp theo từ ai, các kết quả từng phần được gộp thế nào, và vì sao "
            "backward là một torch.autograd.Function trong đó dk, dv đi cùng block của chúng.",
        ),
        (
            "Take the group's size and your rank in it (dist.get_world_size(group), "
            "dist.get_rank(group)); send and recv take global ranks, so turn the group ranks r + 1 and r "
            "- 1 (mod P) into global ones (dist.get_global_rank when there is a group). Work heads first, "
            "[heads, s/P, dim], with out at zero and lse at -inf. At each of the P steps start passing "
            "the k and v you hold to the next rank while receiving from the previous one (isend and irecv "
            "together in one batch_isend_irecv, so no rank waits on another), score your queries against "
            "the block you hold (times dim ** -0.5) and merge: new lse = logaddexp(lse, block lse), the "
            "old output times exp(old lse - new lse) plus the block's output times exp(block lse - new "
            "lse); then hold the block received. The last step passes nothing: P - 1 passes in all.",
            "Lấy kích thước của nhóm và rank của bạn trong nhóm (dist.get_world_size(group), "
            "dist.get_rank(group)); send và recv nhận rank toàn cục, nên hãy đổi các rank trong nhóm r + "
            "1 và r - 1 (mod P) thành rank toàn cục (dist.get_global_rank khi có group). Làm việc với "
            "head đứng trước, [heads, s/P, dim], out khởi tạo bằng 0 và lse bằng -inf. Ở mỗi bước trong P "
            "bước, bắt đầu chuyển k và v đang giữ cho rank kế tiếp đồng thời nhận từ rank trước (isend và "
            "irecv cùng trong một batch_isend_irecv, để không rank nào phải chờ rank khác), tính điểm các "
            "query của bạn với block đang giữ (nhân dim ** -0.5) rồi gộp: lse mới = logaddexp(lse, lse "
            "của block), đầu ra cũ nhân exp(lse cũ - lse mới) cộng đầu ra của block nhân exp(lse của "
            "block - lse mới); sau đó giữ block vừa nhận. Bước cuối không chuyển gì: tổng cộng P - 1 lần "
            "chuyển.",
        ),
        (
            "Causal: the positions in the whole sequence of your queries and of the block's keys come "
            "from the layout, the block's from its source rank r - t; mask with -inf the keys after the "
            "query. Skip a block that no query sees (it is still passed on); a row that sees no key of a "
            "block gets block lse = -inf, and exp(scores - block lse) is then NaN: clamp that lse to a "
            "finite minimum or zero those weights. Backward: save q, k, v, out and the final lse, and "
            "walk the ring again carrying k, v and two zero tensors dk, dv; per block probs = exp(scores "
            "- lse), dv += probsᵀ dout, dscores = probs · (dout vᵀ - rowsum(dout · out)), dq += dscores k "
            "· scale, dk += dscoresᵀ q · scale. After the P - 1 passes of all four, one more pass of dk "
            "and dv brings them home.",
            "Causal: vị trí trong cả chuỗi của các query và của các key trong block lấy từ layout, của "
            "block thì theo rank nguồn r - t của nó; điền -inf cho các key đứng sau query. Bỏ qua block "
            "mà không query nào nhìn thấy (nhưng vẫn chuyển tiếp nó); một hàng không thấy key nào của "
            "block có lse của block = -inf, khi đó exp(scores - lse của block) là NaN: hãy chặn dưới lse "
            "đó bằng một số hữu hạn (clamp) hoặc đặt các trọng số đó bằng 0. Backward: lưu q, k, v, out "
            "và lse cuối cùng, rồi đi lại vòng ring mang theo k, v và hai tensor 0 là dk, dv; với mỗi "
            "block probs = exp(scores - lse), dv += probsᵀ dout, dscores = probs · (dout vᵀ - rowsum(dout "
            "· out)), dq += dscores k · scale, dk += dscoresᵀ q · scale. Sau P - 1 lần chuyển cả bốn "
            "tensor, thêm một lần chuyển dk và dv nữa sẽ đưa chúng về nhà.",
        ),
    ],
    "zigzag_shard": [
        (
            "Read the docstring of context_parallel.py: why contiguous chunks leave the last rank most of "
            "the causal work, which two of the 2P chunks rank r keeps and in what order, and the identity "
            "zigzag_unshard must satisfy.",
            "Đọc docstring của context_parallel.py: vì sao các đoạn liền nhau để lại phần lớn khối lượng "
            "causal cho rank cuối, rank r giữ hai đoạn nào trong 2P đoạn và theo thứ tự nào, và đẳng thức "
            "mà zigzag_unshard phải thoả mãn.",
        ),
        (
            "Write zigzag_positions first: check that 2·world divides seq (ValueError otherwise) and take "
            "chunk = seq // (2·world); rank r keeps positions r·chunk … (r+1)·chunk, then "
            "(2·world-1-r)·chunk … (2·world-r)·chunk, as one 1-D integer tensor, the early chunk first. "
            "zigzag_shard picks those positions of x along dim (index_select accepts a negative dim too) "
            "and keeps x's dtype: the grader also shards torch.arange(seq) and counts the causal pairs "
            "from it.",
            "Viết zigzag_positions trước: kiểm tra 2·world chia hết seq (nếu không thì ValueError) và lấy "
            "chunk = seq // (2·world); rank r giữ các vị trí r·chunk … (r+1)·chunk, rồi "
            "(2·world-1-r)·chunk … (2·world-r)·chunk, thành một tensor số nguyên 1 chiều, đoạn sớm trước. "
            "zigzag_shard chọn các vị trí đó của x theo chiều dim (index_select cũng nhận dim âm) và giữ "
            "nguyên dtype của x: bộ chấm cũng chia torch.arange(seq) và đếm các cặp causal từ đó.",
        ),
        (
            "zigzag_unshard: the world is len(shards), and the whole sequence is world times one shard's "
            "length along dim. Make an empty tensor of the whole shape with the shards' dtype and write "
            "every shard back at its rank's positions (index_copy_ along dim), or cut every shard into "
            "its two chunks, put them in slots r and 2·world-1-r of a list of 2·world and concatenate "
            "along dim. To check the balance yourself: a query at position p sees p + 1 keys, so the sums "
            "of p + 1 over every rank's positions must be equal.",
            "zigzag_unshard: world là len(shards), và cả chuỗi dài gấp world lần độ dài một phần theo "
            "chiều dim. Tạo một tensor rỗng có shape của cả chuỗi với dtype của các phần rồi ghi mỗi phần "
            "về đúng các vị trí của rank đó (index_copy_ theo chiều dim), hoặc cắt mỗi phần thành hai "
            "đoạn, đặt chúng vào ô r và 2·world-1-r của một danh sách 2·world ô rồi nối theo chiều dim. "
            "Để tự kiểm tra độ cân bằng: một query ở vị trí p thấy p + 1 key, nên tổng của p + 1 trên các "
            "vị trí của mỗi rank phải bằng nhau.",
        ),
    ],
    "zigzag_ring_attention": [
        (
            "Read the last paragraph of ring_attention.py's docstring and the docstring of "
            "context_parallel.py: layout only changes which positions of the whole sequence your queries "
            "and each arriving block hold, and so only the causal mask.",
            "Đọc đoạn cuối docstring của ring_attention.py và docstring của context_parallel.py: layout "
            "chỉ thay đổi việc các query của bạn và mỗi block đến giữ những vị trí nào của cả chuỗi, nên "
            "chỉ thay đổi mask causal.",
        ),
        (
            "Take the positions from zigzag_positions (ring_attention.py imports it): your queries' with "
            "your group rank, the block's with the rank it came from, r - t mod P, each for a sequence of "
            "P times your local length; for contiguous they are source · length plus 0 … length-1. Mask, "
            "pair by pair, the keys whose position is larger than the query's, exactly as in the "
            "contiguous ring: the passes, the merge, backward and the traffic stay the same.",
            "Lấy vị trí từ zigzag_positions (ring_attention.py đã import nó): của các query theo rank của "
            "bạn trong nhóm, của block theo rank mà nó đến từ đó, r - t mod P, mỗi cái cho một chuỗi dài "
            "gấp P lần độ dài cục bộ; với contiguous chúng là source · length cộng 0 … length-1. Che, "
            "theo từng cặp, các key có vị trí lớn hơn vị trí của query, đúng như vòng ring contiguous: "
            "các lần chuyển, phép gộp, backward và traffic giữ nguyên.",
        ),
        (
            "With zigzag no block is ever fully masked (your late chunk sees every rank's early chunk), "
            "but many blocks leave some of your rows with no visible key. Those rows must add exactly 0: "
            "their block lse is -inf and exp(scores - block lse) would be NaN, so clamp the block lse to "
            "a finite minimum (or zero the weights where it is -inf) before exponentiating. Skip a block "
            "only when its smallest key position comes after your largest query position, not by rank "
            "order, and compute the positions in backward exactly as in forward.",
            "Với zigzag không block nào bị che hoàn toàn (đoạn muộn của bạn thấy đoạn sớm của mọi rank), "
            "nhưng nhiều block để lại một số hàng của bạn không thấy key nào. Các hàng đó phải cộng đúng "
            "0: lse của block với chúng là -inf và exp(scores - lse của block) sẽ là NaN, nên hãy chặn "
            "dưới lse của block bằng một số hữu hạn (hoặc đặt trọng số bằng 0 ở chỗ nó là -inf) trước khi "
            "lấy exp. Chỉ bỏ qua một block khi vị trí key nhỏ nhất của nó đứng sau vị trí query lớn nhất "
            "của bạn, không theo thứ tự rank, và tính vị trí trong backward đúng như trong forward.",
        ),
    ],
    "score_bytes": [
        (
            "Read the list at the top of lc_cost.py: for each method, which score tensor is the largest "
            "one rank holds at once, and for how many heads.",
            "Đọc danh sách ở đầu lc_cost.py: với mỗi phương pháp, tensor điểm nào là tensor lớn nhất mà "
            "một rank giữ cùng lúc, và cho bao nhiêu head.",
        ),
        (
            "Count the elements per head first: full s·s; blockwise s·min(block_size, s) (a block longer "
            "than the sequence is just the sequence); ring (s/P)·(s/P), your s/P queries against one "
            "arriving block of s/P keys; Ulysses s·s. Then multiply by the heads the rank holds (all h, "
            "but h/P for Ulysses) and by bytes_per_element.",
            "Trước hết đếm số phần tử mỗi head: full s·s; blockwise s·min(block_size, s) (block dài hơn "
            "chuỗi thì chỉ là cả chuỗi); ring (s/P)·(s/P), s/P query của bạn với một block đến gồm s/P "
            "key; Ulysses s·s. Rồi nhân với số head mà rank giữ (cả h, nhưng h/P với Ulysses) và với "
            "bytes_per_element.",
        ),
        (
            "Raise ValueError before computing anything: for a method other than full, blockwise, ring or "
            "ulysses; for ring and ulysses when world does not divide seq; for ulysses when world does "
            "not divide heads too. world plays no part in full and blockwise. Keep to integers (// after "
            "the checks, never /): the answer must be an exact whole number of bytes.",
            "Báo ValueError trước khi tính gì: với phương pháp khác full, blockwise, ring hay ulysses; "
            "với ring và ulysses khi world không chia hết seq; với ulysses còn khi world không chia hết "
            "heads. world không tham gia vào full và blockwise. Chỉ dùng số nguyên (// sau khi kiểm tra, "
            "không bao giờ /): kết quả phải là một số byte nguyên chính xác.",
        ),
    ],
    "ring_comm_bytes": [
        (
            "Read the Ring bullet of lc_cost.py's docstring: what a block is, how many times k and v are "
            "passed forward, and how many times k, v, dk and dv are passed backward.",
            "Đọc mục Ring trong docstring của lc_cost.py: một block là gì, k và v được chuyển bao nhiêu "
            "lần trong forward, và k, v, dk, dv được chuyển bao nhiêu lần trong backward.",
        ),
        (
            "A block is seq/world · heads · head_dim elements, times bytes_per_element; check first that "
            "world divides seq (ValueError otherwise). Forward passes k and v world - 1 times each: "
            "2(P-1) blocks. One rank has no neighbour and sends nothing, forward or backward: 0.",
            "Một block là seq/world · heads · head_dim phần tử, nhân bytes_per_element; trước hết kiểm "
            "tra world chia hết seq (nếu không thì ValueError). Forward chuyển k và v mỗi cái world - 1 "
            "lần: 2(P-1) block. Một rank không có láng giềng nên không gửi gì, cả forward lẫn backward: "
            "0.",
        ),
        (
            "Backward passes k and v P - 1 times again (2(P-1) blocks) and dk and dv P times, one pass "
            "more than the blocks because the gradients must come home (2P blocks): 4P - 2 blocks, added "
            "only when backward is True. The measured part compares your (forward only, forward and "
            "backward) with what the kit's Ring Attention put on a real gloo wire: seq=4, heads=1, "
            "head_dim=2, world=2 in float32 gives 32 and 128 B.",
            "Backward chuyển k và v thêm P - 1 lần (2(P-1) block) và dk, dv P lần, nhiều hơn một lần so "
            "với các block vì gradient phải về nhà (2P block): 4P - 2 block, chỉ cộng vào khi backward là "
            "True. Phần measured so (chỉ forward, forward và backward) của bạn với những gì Ring "
            "Attention của kit đã gửi trên một world gloo thật: seq=4, heads=1, head_dim=2, world=2 với "
            "float32 cho 32 và 128 B.",
        ),
    ],
    "ulysses_comm_bytes": [
        (
            "Read the Ulysses bullet of lc_cost.py's docstring: how many all-to-alls each direction "
            "makes, how many blocks each is handed, and which part of it stays on the rank.",
            "Đọc mục Ulysses trong docstring của lc_cost.py: mỗi chiều có bao nhiêu all-to-all, mỗi cái "
            "được giao bao nhiêu block, và phần nào của nó ở lại trên rank.",
        ),
        (
            "A block is seq/world · heads · head_dim · bytes_per_element, as for the ring; check that "
            "world divides seq and heads (ValueError otherwise). Forward hands its all-to-alls 4 blocks: "
            "q, k and v stacked (3), then the output (1); backward hands them 4 more (the gradients, in "
            "reverse order).",
            "Một block là seq/world · heads · head_dim · bytes_per_element, như với ring; kiểm tra world "
            "chia hết seq và heads (nếu không thì ValueError). Forward giao cho các all-to-all 4 block: "
            "q, k và v xếp chồng (3), rồi đầu ra (1); backward giao thêm 4 block (các gradient, theo thứ "
            "tự ngược lại).",
        ),
        (
            "Of what an all-to-all is handed, 1/P is the chunk the rank keeps for itself and (P-1)/P "
            "leaves it: forward is 4 blocks · (P-1)/P, and twice that with backward; one rank gives 0 by "
            "itself. The block divides exactly by P (P divides the heads), so integer division stays "
            "exact: seq=4, heads=2, head_dim=2, world=2 in float32 gives 64 B forward and 128 B with "
            "backward, as measured.",
            "Trong những gì một all-to-all được giao, 1/P là chunk mà rank giữ cho chính nó và (P-1)/P "
            "rời khỏi rank: forward là 4 block · (P-1)/P, và gấp đôi khi có backward; một rank tự nhiên "
            "cho 0. Block chia hết cho P (vì P chia hết số head), nên phép chia nguyên vẫn chính xác: "
            "seq=4, heads=2, head_dim=2, world=2 với float32 cho 64 B forward và 128 B khi có backward, "
            "đúng như đo được.",
        ),
    ],
}
