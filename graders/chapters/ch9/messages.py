"""Chapter 9's teaching messages in English and Vietnamese (see :mod:`graders.words.messages`)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "ch9:not a pair": {
        "en": "blockwise_attention must return (out, lse), got {got}.",
        "vi": "blockwise_attention phải trả về (out, lse), nhưng nhận được {got}.",
    },
    "ch9:output": {
        "en": "the attention output",
        "vi": "đầu ra của attention",
    },
    "ch9:lse": {
        "en": "the log-sum-exp of each query's scores",
        "vi": "log-sum-exp của các điểm (score) của mỗi query",
    },
    "ch9:blockwise:hint": {
        "en": "keep per query row the running maximum m, the sum l of exp(score - m) and the weighted sum"
        " of values; a block with a larger maximum rescales both by exp(m_old - m_new).",
        "vi": "với mỗi hàng query, hãy giữ giá trị lớn nhất m đang chạy, tổng l của exp(score - m) và tổng"
        " có trọng số của các value; một block có giá trị lớn nhất lớn hơn sẽ nhân cả hai với"
        " exp(m_old - m_new).",
    },
    "ch9:causal:hint": {
        "en": "causal: a query attends to keys at positions up to its own; mask the later keys of each"
        " block with -inf before the running maximum, by their position in the whole sequence.",
        "vi": "causal: một query chỉ nhìn các key ở vị trí không sau nó; hãy che các key đến sau trong mỗi"
        " block bằng -inf trước khi lấy giá trị lớn nhất, theo vị trí của chúng trong cả chuỗi.",
    },
    "ch9:lse:hint": {
        "en": "lse = m + log(l) at the end: the log of each row's softmax denominator, scale included.",
        "vi": "lse = m + log(l) ở cuối: log của mẫu số softmax của mỗi hàng, đã tính cả scale.",
    },
    "ch9:largest": {
        "en": "the largest tensor made was {bytes} B ({where}); one block of scores or the output is at"
        " most {limit} B (a full score matrix: {full} B).",
        "vi": "tensor lớn nhất được tạo ra là {bytes} B ({where}); một block điểm hoặc đầu ra tối đa"
        " {limit} B (cả ma trận điểm: {full} B).",
    },
    "ch9:memory:hint": {
        "en": "never make a seq × seq tensor: score one block of keys at a time, [seq, block_size] per head.",
        "vi": "đừng bao giờ tạo một tensor seq × seq: tính điểm cho từng block key một, [seq, block_size]"
        " mỗi head.",
    },
    "ch9:rank output": {
        "en": "rank {rank}'s output",
        "vi": "đầu ra của rank {rank}",
    },
    "ch9:rank grad": {
        "en": "rank {rank}'s gradient of {name}",
        "vi": "gradient của {name} trên rank {rank}",
    },
    "ch9:ulysses:hint": {
        "en": "rank r's chunk of positions goes, head group by head group, to the rank that owns those"
        " heads; it comes back by the reverse all-to-all, position chunk by position chunk.",
        "vi": "đoạn vị trí của rank r được gửi, theo từng nhóm head, tới rank sở hữu các head đó; nó quay"
        " về bằng all-to-all ngược, theo từng đoạn vị trí.",
    },
    "ch9:ulysses backward:hint": {
        "en": "the backward of an all-to-all is the reverse all-to-all: write it in a"
        " torch.autograd.Function.",
        "vi": "backward của một all-to-all là all-to-all ngược chiều: hãy viết nó trong một"
        " torch.autograd.Function.",
    },
    "ch9:unexpected value error": {
        "en": "rank {rank} raised ValueError ({error}) for a head count the group divides.",
        "vi": "rank {rank} báo ValueError ({error}) cho một số head mà nhóm chia hết.",
    },
    "ch9:no backward": {
        "en": "rank {rank}: the gradient could not be back-propagated through the output ({why}).",
        "vi": "rank {rank}: không thể lan truyền ngược gradient qua đầu ra ({why}).",
    },
    "ch9:no backward:hint": {
        "en": "return a tensor shaped like q, [seq_per_rank, heads, dim], with a grad_fn.",
        "vi": "hãy trả về một tensor có shape như q, [seq_per_rank, heads, dim], có grad_fn.",
    },
    "ch9:forward": {
        "en": "forward",
        "vi": "forward",
    },
    "ch9:backward": {
        "en": "backward",
        "vi": "backward",
    },
    "ch9:ulysses traffic": {
        "en": "rank {rank}'s {direction} communicated {got}; Ulysses needs exactly two all-to-alls on the"
        " group: q, k and v stacked ({qkv} B in forward) and the output ({out} B), in backward the same"
        " two in reverse order.",
        "vi": "{direction} của rank {rank} đã giao tiếp {got}; Ulysses cần đúng hai all-to-all trên nhóm:"
        " q, k và v xếp chồng ({qkv} B trong forward) và đầu ra ({out} B), trong backward là hai cái đó"
        " theo thứ tự ngược lại.",
    },
    "ch9:ulysses traffic:hint": {
        "en": "stack q, k and v before the first all-to-all (one call, not three), and send nothing else.",
        "vi": "hãy xếp chồng q, k và v trước all-to-all đầu tiên (một lời gọi, không phải ba), và không gửi"
        " gì khác.",
    },
    "ch9:heads accepted": {
        "en": "rank {rank} accepted {heads} heads over {n} ranks; heads that do not divide by the group"
        " size must raise ValueError.",
        "vi": "rank {rank} đã chấp nhận {heads} head trên {n} rank; số head không chia hết cho kích thước"
        " nhóm phải báo ValueError.",
    },
    "ch9:heads message": {
        "en": "rank {rank}'s ValueError says {message!r}; it should name the {heads} heads and the {n}"
        " ranks.",
        "vi": "ValueError của rank {rank} nói {message!r}; nó cần nêu {heads} head và {n} rank.",
    },
    "ch9:heads:hint": {
        "en": "check heads % group size before any communication, on every rank, and say both numbers.",
        "vi": "hãy kiểm tra heads % kích thước nhóm trước mọi giao tiếp, trên mọi rank, và nêu cả hai số.",
    },
    # -- Ring Attention --------------------------------------------------------------------------
    "ch9:ring:hint": {
        "en": "at step t rank r holds the key/value block of rank r - t: attend to it with this rank's"
        " queries, then merge by the log-sum-exp: lse = logaddexp(lse, block_lse), and rescale the"
        " running output by exp(lse_old - lse) and the block's by exp(block_lse - lse).",
        "vi": "ở bước t, rank r giữ block key/value của rank r - t: hãy tính attention với các query của"
        " rank này, rồi gộp theo log-sum-exp: lse = logaddexp(lse, block_lse), và nhân đầu ra đang"
        " chạy với exp(lse_cũ - lse), đầu ra của block với exp(block_lse - lse).",
    },
    "ch9:causal ring:hint": {
        "en": "causal: compare positions in the whole sequence. A block from a later rank is masked"
        " entirely (skip it, but pass it on); the own block needs the diagonal mask; a row that sees"
        " no key of a block must add nothing (its weights are 0, not NaN).",
        "vi": "causal: hãy so vị trí trong cả chuỗi. Block của một rank sau bị che hoàn toàn (bỏ qua nó,"
        " nhưng vẫn chuyển tiếp); block của chính mình cần mask đường chéo; một hàng không thấy key nào"
        " của block thì không được cộng gì (trọng số là 0, không phải NaN).",
    },
    "ch9:ring backward:hint": {
        "en": "backward walks the ring again with the final lse: probs = exp(scores - lse); dv += probsᵀ"
        " dout; dscores = probs · (dout vᵀ - rowsum(dout · out)); dq += dscores k · scale; dk +="
        " dscoresᵀ q · scale. dk and dv travel with their block and must end on the rank that owns it.",
        "vi": "backward đi lại vòng ring với lse cuối cùng: probs = exp(scores - lse); dv += probsᵀ dout;"
        " dscores = probs · (dout vᵀ - rowsum(dout · out)); dq += dscores k · scale; dk += dscoresᵀ q"
        " · scale. dk và dv đi cùng block của chúng và phải kết thúc ở rank sở hữu block đó.",
    },
    "ch9:ring collective": {
        "en": "rank {rank}'s {direction} called {op} ({nbytes} B); Ring Attention only passes blocks to"
        " its ring neighbours, by send/recv (or isend/irecv, batch_isend_irecv).",
        "vi": "{direction} của rank {rank} đã gọi {op} ({nbytes} B); Ring Attention chỉ chuyển block cho"
        " các rank láng giềng trên vòng, bằng send/recv (hoặc isend/irecv, batch_isend_irecv).",
    },
    "ch9:ring off the ring": {
        "en": "rank {rank}'s {direction}: {op} with rank {peer}, which is not one of its ring neighbours"
        " {neighbours}.",
        "vi": "{direction} của rank {rank}: {op} với rank {peer}, không phải láng giềng trên vòng"
        " {neighbours} của nó.",
    },
    "ch9:ring bytes": {
        "en": "rank {rank}'s {direction} sent {sent} B in {messages} message(s) and received {received}"
        " B; the ring sends between {least} and {most} B, in {fewest} to {most_messages} messages, and"
        " receives as much as it sends.",
        "vi": "{direction} của rank {rank} đã gửi {sent} B trong {messages} thông điệp và nhận {received}"
        " B; vòng ring gửi từ {least} đến {most} B, trong {fewest} đến {most_messages} thông điệp, và nhận"
        " đúng bằng số đã gửi.",
    },
    "ch9:ring traffic:hint": {
        "en": "forward: P - 1 passes of this rank's current k and v to rank r + 1 (while receiving from"
        " r - 1), nothing else; backward: the same passes of k and v, with dk and dv travelling along"
        " and coming home at the end.",
        "vi": "forward: P - 1 lần chuyển k và v hiện tại của rank này tới rank r + 1 (đồng thời nhận từ"
        " r - 1), không gì khác; backward: các lần chuyển k và v đó, với dk và dv đi cùng và trở về nhà"
        " ở cuối.",
    },
    "ch9:zigzag ring:hint": {
        "en": "with layout='zigzag' rank r holds chunks r and 2P-1-r of 2P: the causal mask compares the"
        " positions of those chunks, for the queries and for every block that arrives.",
        "vi": "với layout='zigzag', rank r giữ các đoạn r và 2P-1-r trong 2P đoạn: mask causal so vị trí"
        " của các đoạn đó, cho các query và cho mọi block đến.",
    },
    # -- the zigzag layout ------------------------------------------------------------------------
    "ch9:zigzag shards": {
        "en": "expected a tensor for each of the {world} ranks, got {got}.",
        "vi": "cần một tensor cho mỗi rank trong {world} rank, nhưng nhận được {got}.",
    },
    "ch9:zigzag shard size": {
        "en": "rank {rank}'s shard is {got}; it should be the tensor with {size} positions along dim"
        " {dim} (two chunks of seq / (2·world)).",
        "vi": "phần của rank {rank} là {got}; nó phải là tensor có {size} vị trí theo chiều {dim} (hai đoạn"
        " độ dài seq / (2·world)).",
    },
    "ch9:zigzag not the layout": {
        "en": "the work is balanced, but rank {rank} keeps positions {got}; the zigzag layout gives it"
        " {expected}: chunk r, then chunk 2·world-1-r (Ring Attention over the zigzag layout counts on"
        " it).",
        "vi": "khối lượng đã cân bằng, nhưng rank {rank} giữ các vị trí {got}; bố cục zigzag cho nó"
        " {expected}: đoạn r, rồi đoạn 2·world-1-r (Ring Attention trên bố cục zigzag dựa vào điều này).",
    },
    "ch9:zigzag values": {
        "en": "the ranks' shards together do not hold the values of x (each value once).",
        "vi": "các phần của các rank gộp lại không chứa đúng các giá trị của x (mỗi giá trị một lần).",
    },
    "ch9:zigzag other": {
        "en": "zigzag_unshard of the shards of a second tensor (2·x + 1), sharded after x",
        "vi": "zigzag_unshard của các phần của một tensor thứ hai (2·x + 1), được chia sau x",
    },
    "ch9:zigzag again": {
        "en": "zigzag_unshard of your own zigzag_shard's shards",
        "vi": "zigzag_unshard của các phần do chính zigzag_shard của bạn tạo",
    },
    "ch9:zigzag:hint": {
        "en": "cut the sequence axis into 2·world equal chunks; rank r keeps chunk r, then chunk"
        " 2·world-1-r, in that order.",
        "vi": "cắt trục chuỗi thành 2·world đoạn bằng nhau; rank r giữ đoạn r, rồi đoạn 2·world-1-r, theo"
        " thứ tự đó.",
    },
    "ch9:unshard:hint": {
        "en": "put each rank's two chunks back where they came from: shards[r] holds chunks r and"
        " 2·world-1-r of the whole.",
        "vi": "hãy đặt hai đoạn của mỗi rank về đúng chỗ cũ: shards[r] chứa các đoạn r và 2·world-1-r của"
        " cả chuỗi.",
    },
    "ch9:zigzag held": {
        "en": "zigzag_shard of the positions 0 … seq-1 gave rank {rank} {got}; expected a 1-D integer"
        " tensor.",
        "vi": "zigzag_shard của các vị trí 0 … seq-1 cho rank {rank} {got}; cần một tensor số nguyên 1"
        " chiều.",
    },
    "ch9:zigzag not a partition": {
        "en": "the ranks' shards of the positions 0 … {seq}-1 do not hold every position exactly once.",
        "vi": "các phần của các rank từ các vị trí 0 … {seq}-1 không chứa mỗi vị trí đúng một lần.",
    },
    "ch9:zigzag unbalanced": {
        "en": "the causal work is not the same on every rank: unmasked (query, key) pairs per rank are"
        " {listing}.",
        "vi": "khối lượng tính causal không bằng nhau trên mọi rank: số cặp (query, key) không bị che của"
        " mỗi rank là {listing}.",
    },
    "ch9:balance:hint": {
        "en": "a query at position p sees p + 1 keys; pairing an early chunk with the mirrored late one"
        " (r and 2·world-1-r) gives every rank the same total.",
        "vi": "một query ở vị trí p thấy p + 1 key; ghép một đoạn sớm với đoạn muộn đối xứng (r và"
        " 2·world-1-r) cho mọi rank cùng một tổng.",
    },
    # -- the cost model -------------------------------------------------------------------------
    "ch9:cost wrong": {
        "en": "returned {got} B; the cost model gives {expected} B.",
        "vi": "trả về {got} B; mô hình chi phí cho {expected} B.",
    },
    "ch9:cost not bytes": {
        "en": "expected a whole number of bytes, got {got}.",
        "vi": "cần một số byte nguyên, nhưng nhận được {got}.",
    },
    "ch9:cost unexpected error": {
        "en": "raised ValueError ({error}) for sizes that split evenly.",
        "vi": "báo ValueError ({error}) cho các kích thước chia đều được.",
    },
    "ch9:cost no error": {
        "en": "returned {got} for sizes that cannot be split (or an unknown method); expected a ValueError.",
        "vi": "trả về {got} cho các kích thước không chia được (hoặc phương pháp không biết); cần một"
        " ValueError.",
    },
    "ch9:cost error:hint": {
        "en": "ring and Ulysses need world to divide seq, Ulysses also heads; a method other than full,"
        " blockwise, ring or ulysses is an error too.",
        "vi": "ring và Ulysses cần world chia hết seq, Ulysses cần thêm chia hết heads; một phương pháp"
        " khác full, blockwise, ring hay ulysses cũng là lỗi.",
    },
    "ch9:cost not measured": {
        "en": "{call} returned {got}; the kit's implementation was measured sending {measured} B per rank"
        " on a real gloo world.",
        "vi": "{call} trả về {got}; cài đặt của kit đo được là gửi {measured} B mỗi rank trên một world"
        " gloo thật.",
    },
    "ch9:score bytes:hint": {
        "en": "per head: full s², blockwise s·min(block, s), ring (s/P)² (my queries against one block),"
        " Ulysses s² but for h/P heads; times the heads and the bytes per element.",
        "vi": "mỗi head: full s², blockwise s·min(block, s), ring (s/P)² (query của tôi với một block),"
        " Ulysses s² nhưng cho h/P head; nhân với số head và số byte mỗi phần tử.",
    },
    "ch9:ring comm:hint": {
        "en": "a block is s/P · heads · head_dim elements; forward passes k and v P-1 times, backward k"
        " and v P-1 times and dk, dv P times; one rank sends nothing.",
        "vi": "một block là s/P · heads · head_dim phần tử; forward chuyển k và v P-1 lần, backward chuyển"
        " k và v P-1 lần và dk, dv P lần; một rank thì không gửi gì.",
    },
    "ch9:ulysses comm:hint": {
        "en": "forward hands 4 blocks to all-to-alls (q, k, v, then the output), backward 4 more; of each"
        " all-to-all (P-1)/P leaves the rank.",
        "vi": "forward đưa 4 block cho các all-to-all (q, k, v, rồi đầu ra), backward thêm 4; của mỗi"
        " all-to-all, (P-1)/P rời khỏi rank.",
    },
}
