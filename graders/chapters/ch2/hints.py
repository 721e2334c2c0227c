"""Chapter 2's graded hints and theory recaps, English and Vietnamese (see ``graders.words.hints``)."""

HINTS: dict[str, list[tuple[str, str]]] = {
    "ring_shift": [
        (
            "Reread 'gloo's send blocks' in the chapter README's theory recap, and the conventions at the "
            "top of collectives.py: who are your neighbours, and in which numbering?",
            "Đọc lại ý «send của gloo là lời gọi chặn» trong phần Theory recap của README chương này, và các "
            "quy ước ở đầu tệp collectives.py: hàng xóm của bạn là ai, và được đánh số theo cách nào?",
        ),
        (
            "Compute the right and left neighbours once, from the group rank, modulo the group size, and "
            "name them with group_dst / group_src. One rank has no neighbour: return a copy.",
            "Tính hàng xóm bên phải và bên trái một lần, từ rank trong nhóm, theo modulo kích thước nhóm, "
            "rồi truyền chúng qua group_dst / group_src. Nếu nhóm chỉ có một rank thì không có hàng xóm nào: "
            "trả về một bản sao, không gửi gì cả.",
        ),
        (
            "Never let every rank block in send at the same time: either post a non-blocking send and "
            "receive together (isend, irecv) and wait on both, or break the symmetry (even ranks send first, "
            "odd ranks receive first). Receive into a fresh tensor with the input's shape and dtype.",
            "Đừng để mọi rank cùng bị chặn trong send một lúc: hoặc gửi và nhận không chặn cùng lúc (isend, "
            "irecv) rồi wait() cả hai, hoặc phá thế đối xứng (rank chẵn gửi trước, rank lẻ nhận trước). Nhận "
            "vào một tensor mới có cùng shape và dtype với đầu vào.",
        ),
    ],
    "broadcast": [
        (
            "The README's 'Binomial tree' bullet and broadcast's docstring give the shape: every round "
            "doubles the set of ranks that hold the data. Draw it for 4 ranks and for 3 before you code.",
            "Ý «Binomial tree» trong README và docstring của broadcast cho bạn hình dạng thuật toán: mỗi "
            "vòng, số rank đã có dữ liệu tăng gấp đôi. Hãy vẽ cây cho 4 rank và cho 3 rank trước đã.",
        ),
        (
            "Work with positions relative to the root: position = (rank - root) mod N, where root is src "
            "turned into a group rank (src is a global rank). The root is position 0; every other rank "
            "receives exactly once, then forwards to the ranks below it in the tree.",
            "Làm việc với vị trí tương đối so với gốc: vị trí = (rank - root) mod N, trong đó root là src đã "
            "đổi sang rank trong nhóm (src là rank toàn cục). Gốc ở vị trí 0; mỗi rank khác nhận đúng một "
            "lần, rồi chuyển tiếp cho các rank bên dưới nó trong cây.",
        ),
        (
            "In binary: a position receives from itself minus its lowest set bit, then sends to itself + 2^j "
            "for every lower bit j that stays below N, the largest j first (nearest first costs extra "
            "rounds). Turn positions back into ranks with (position + root) mod N.",
            "Nhìn theo nhị phân: một vị trí nhận từ chính nó trừ đi bit 1 thấp nhất, rồi gửi cho chính nó "
            "cộng 2^j với mọi bit j thấp hơn mà kết quả vẫn nhỏ hơn N, j lớn nhất trước (gửi gần trước sẽ "
            "tốn thêm vòng). Đổi vị trí về rank bằng (vị trí + root) mod N.",
        ),
    ],
    "reduce": [
        (
            "reduce is the broadcast tree run backwards (README, 'Binomial tree'): if your broadcast passes, "
            "keep its numbering relative to the root, with dst as the root.",
            "reduce chính là cây của broadcast chạy ngược (README, ý «Binomial tree»): nếu broadcast của bạn "
            "đã đạt, hãy giữ cách đánh số tương đối so với gốc, với dst làm gốc.",
        ),
        (
            "Partial results flow up the tree: a rank first folds in what each of its children sends, then "
            "hands its partial result to its parent, exactly once, and stops. The root only receives.",
            "Kết quả từng phần đi ngược lên cây: một rank trước hết gộp phần mà từng nút con gửi lên, rồi "
            "gửi kết quả từng phần của mình cho nút cha, đúng một lần, và dừng. Gốc chỉ nhận.",
        ),
        (
            "For bit k = 0, 1, 2, ... of your position: if the bit is set, send to position - 2^k and stop; "
            "otherwise, if position + 2^k < N, receive from it into a scratch tensor and combine it into "
            "yours. 'avg' is the sum divided by N once, on dst, after everything has arrived.",
            "Với bit k = 0, 1, 2, ... của vị trí: nếu bit đó bằng 1, gửi cho vị trí - 2^k rồi dừng; nếu "
            "không, và vị trí + 2^k < N, nhận từ rank đó vào một tensor tạm rồi gộp vào tensor của bạn. "
            "'avg' là tổng chia cho N đúng một lần, trên dst, sau khi đã nhận đủ.",
        ),
    ],
    "ring_all_gather": [
        (
            "The README's 'Ring' bullet: the all-gather phase circulates finished blocks around the ring. "
            "Picture N slots, one per group rank; yours is filled from the start.",
            "Ý «Ring» trong README: pha all-gather cho các khối đã xong đi vòng quanh ring. Hãy hình dung N "
            "ô, mỗi ô cho một rank trong nhóm; ô của bạn có sẵn dữ liệu ngay từ đầu.",
        ),
        (
            "Each step, send one slot to the right and fill one slot from the left; the slot you send is the "
            "one you filled in the step before (your own at step 0). After N - 1 steps every slot is full.",
            "Mỗi bước, gửi một ô sang phải và điền một ô nhận từ bên trái; ô bạn gửi là ô vừa điền ở bước "
            "trước (ở bước 0 là ô của chính bạn). Sau N - 1 bước mọi ô đều đầy.",
        ),
        (
            "At step s rank r sends block (r - s) mod N and receives block (r - s - 1) mod N, without two "
            "blocking sends facing each other. Concatenate the slots in group-rank order at the end; never "
            "write into the input.",
            "Ở bước s, rank r gửi khối (r - s) mod N và nhận khối (r - s - 1) mod N, sao cho không có hai "
            "lời gọi send chặn đối mặt nhau. Cuối cùng nối các ô theo thứ tự rank trong nhóm; đừng ghi vào "
            "đầu vào.",
        ),
    ],
    "ring_reduce_scatter": [
        (
            "The README's 'Ring' bullet and its hint on chunk indices; the chunks are those of "
            "torch.tensor_split(flat, N), which can be uneven or empty.",
            "Xem ý «Ring» trong README và gợi ý về chỉ số chunk ở đó; các chunk là của "
            "torch.tensor_split(flat, N), có thể không đều nhau hoặc rỗng.",
        ),
        (
            "Work on a flattened copy cut into N chunks, never on the input. Each of the N - 1 steps sends "
            "one chunk to the right and adds the incoming chunk into the matching chunk of your copy: a "
            "partial sum grows by one rank per hop.",
            "Làm việc trên một bản sao đã làm phẳng và cắt thành N chunk, đừng đụng vào đầu vào. Mỗi bước "
            "trong N - 1 bước gửi một chunk sang phải và cộng chunk nhận được vào chunk tương ứng của bản "
            "sao: tổng từng phần lớn thêm một rank sau mỗi chặng.",
        ),
        (
            "At step s rank r sends chunk (r - s - 1) mod N and folds in the incoming chunk (r - s - 2) mod "
            "N; the last chunk to arrive is chunk r, now reduced over all N ranks. Receive into a buffer of "
            "that chunk's own size (on uneven splits sizes differ). 'avg' divides once, at the end.",
            "Ở bước s, rank r gửi chunk (r - s - 1) mod N và gộp chunk nhận được (r - s - 2) mod N; chunk "
            "đến sau cùng là chunk r, lúc này đã được reduce qua đủ N rank. Nhận vào bộ đệm đúng kích thước "
            "của chunk đó (khi chia không đều các kích thước khác nhau). 'avg' chỉ chia một lần, ở cuối.",
        ),
    ],
    "ring_all_reduce": [
        (
            "Reuse what you built: the README's 'Ring' bullet says ring all-reduce = reduce-scatter + "
            "all-gather. Get ring_reduce_scatter and ring_all_gather passing first.",
            "Tận dụng những gì bạn đã viết: ý «Ring» trong README nói ring all-reduce = reduce-scatter + "
            "all-gather. Hãy làm cho ring_reduce_scatter và ring_all_gather đạt trước.",
        ),
        (
            "Cut a flat view of the tensor into N chunks with torch.tensor_split. Phase 1 (N - 1 steps) "
            "leaves rank r with chunk r fully reduced; phase 2 (N - 1 more steps) passes the finished chunks "
            "around the ring until every rank has all of them. Never send the whole tensor at once.",
            "Cắt một view phẳng của tensor thành N chunk bằng torch.tensor_split. Pha 1 (N - 1 bước) để lại "
            "cho rank r chunk r đã reduce xong; pha 2 (thêm N - 1 bước) chuyển các chunk đã xong đi vòng "
            "quanh ring cho đến khi mọi rank có đủ. Đừng bao giờ gửi cả tensor trong một lần.",
        ),
        (
            "Make the chunks views of the tensor, so that phase 2 receives straight into the result; a "
            "non-contiguous tensor flattens into a copy, so copy the result back at the end. In phase 2 at "
            "step s rank r sends chunk (r - s) mod N and receives (r - s - 1) mod N. 'avg' divides once, on "
            "your own chunk, before phase 2.",
            "Để các chunk là view của tensor, pha 2 sẽ nhận thẳng vào kết quả; tensor không liên tục "
            "(non-contiguous) khi làm phẳng sẽ thành một bản sao, nên cuối cùng phải chép kết quả về. Ở pha "
            "2, bước s, rank r gửi chunk (r - s) mod N và nhận chunk (r - s - 1) mod N. 'avg' chỉ chia một "
            "lần, trên chunk của bạn, trước pha 2.",
        ),
    ],
    "all_to_all": [
        (
            "Reread all_to_all's docstring and the README's last hint: the receiver cannot know the shape of "
            "what arrives. What has to travel before the data?",
            "Đọc lại docstring của all_to_all và gợi ý cuối trong README: bên nhận không thể biết shape của "
            "thứ sắp đến. Vậy cái gì phải được gửi trước dữ liệu?",
        ),
        (
            "Pair the ranks up step by step: at step k = 1 .. N - 1 rank r sends to r + k and receives from "
            "r - k (mod N). Every rank then has one peer to send to and one to hear from per step, every "
            "pair meets once, and nobody talks to itself.",
            "Ghép cặp các rank theo từng bước: ở bước k = 1 .. N - 1, rank r gửi cho r + k và nhận từ r - k "
            "(mod N). Khi đó mỗi bước mỗi rank có đúng một nơi để gửi và một nơi để nhận, mỗi cặp gặp nhau "
            "đúng một lần, và không ai gửi cho chính mình.",
        ),
        (
            "For each block, send first a small int64 tensor with its shape (its number of dimensions first, "
            "since that length varies), then the data; allocate the receive buffer from the shape you "
            "received and the common dtype. Post each send and receive together (isend/irecv, then wait). At "
            "most 128 bytes of metadata per peer.",
            "Với mỗi khối, gửi trước một tensor int64 nhỏ chứa shape (số chiều trước, vì độ dài shape thay "
            "đổi), rồi mới gửi dữ liệu; cấp phát bộ đệm nhận từ shape vừa nhận và dtype chung. Gửi và nhận "
            "cùng lúc (isend/irecv rồi wait). Siêu dữ liệu tối đa 128 byte cho mỗi peer.",
        ),
    ],
    "bytes_sent_per_rank": [
        (
            "Read cost_model.py's docstring (what nbytes means for each collective) and the README's 'Ring' "
            "bullet: the model must predict exactly what the busiest rank of your collectives.py sends.",
            "Đọc docstring của cost_model.py (nbytes nghĩa là gì với từng phép tập thể) và ý «Ring» trong "
            "README: mô hình phải dự đoán chính xác số byte mà rank bận nhất trong collectives.py gửi đi.",
        ),
        (
            "Ring: a step moves one chunk of nbytes / N, a phase has N - 1 steps, and all-reduce has two "
            "phases. Tree: count how many times the busiest rank sends the whole buffer.",
            "Ring: mỗi bước chuyển một chunk nbytes / N, mỗi pha có N - 1 bước, và all-reduce có hai pha. "
            "Cây: đếm xem rank bận nhất gửi toàn bộ bộ đệm bao nhiêu lần.",
        ),
        (
            "Tree broadcast: the root sends in every round, ceil(log2 N) whole buffers. Tree reduce: every "
            "rank but dst sends its partial result once, so nobody sends more than nbytes. Tree all-reduce "
            "(reduce, then broadcast): the busiest rank over both phases sends ceil(log2 N) buffers. One "
            "rank sends 0, reduce included.",
            "Broadcast theo cây: gốc gửi ở mọi vòng, tức ceil(log2 N) lần cả bộ đệm. Reduce theo cây: mọi "
            "rank trừ dst gửi kết quả từng phần đúng một lần, nên không ai gửi quá nbytes. All-reduce theo "
            "cây (reduce rồi broadcast): rank bận nhất qua cả hai pha gửi ceil(log2 N) bộ đệm. Một rank thì "
            "gửi 0, kể cả reduce.",
        ),
    ],
    "alpha_beta_time": [
        (
            "The README's 'Cost model' bullet gives the ring all-reduce; alpha_beta_time's docstring says "
            "what one ring step and one tree round cost.",
            "Ý «Cost model» trong README cho công thức của ring all-reduce; docstring của alpha_beta_time "
            "nói một bước ring và một vòng của cây tốn bao nhiêu.",
        ),
        (
            "Count the steps (or rounds) on the critical path, each paying alpha once, and the bytes of one "
            "step's message, each paying beta. Ring: N - 1 steps per phase, two phases for all-reduce. Tree: "
            "ceil(log2 N) rounds of the whole buffer per tree.",
            "Đếm số bước (hoặc số vòng) trên đường găng, mỗi bước trả alpha một lần, và số byte của thông "
            "điệp trong một bước, mỗi byte trả beta. Ring: N - 1 bước mỗi pha, all-reduce có hai pha. Cây: "
            "ceil(log2 N) vòng, mỗi vòng chuyển cả bộ đệm.",
        ),
        (
            "Ring: steps · (alpha + nbytes / N · beta). Tree: ceil(log2 N) · (alpha + nbytes · beta) for "
            "broadcast and reduce, twice that for all-reduce (a reduce, then a broadcast). One rank costs 0.",
            "Ring: số bước · (alpha + nbytes / N · beta). Cây: ceil(log2 N) · (alpha + nbytes · beta) cho "
            "broadcast và reduce, gấp đôi cho all-reduce (một reduce rồi một broadcast). Một rank thì tốn 0.",
        ),
    ],
    "bus_bandwidth": [
        (
            "Read the README's 'Cost model' bullet and the nccl-tests convention it cites (PERFORMANCE.md): "
            "bus bandwidth is the algorithm bandwidth times a bus factor.",
            "Đọc ý «Cost model» trong README và quy ước của nccl-tests được dẫn ở đó (PERFORMANCE.md): băng "
            "thông bus là băng thông thuật toán nhân với một hệ số bus.",
        ),
        (
            "Compute algbw = nbytes / seconds, then multiply by the collective's factor, which depends only "
            "on the collective and on N: it is the share of the buffer each rank must put on its link in a "
            "ring. For all_reduce it is 2(N - 1)/N; for broadcast and reduce it is 1.",
            "Tính algbw = nbytes / seconds, rồi nhân với hệ số của phép tập thể, hệ số này chỉ phụ thuộc vào "
            "phép tập thể và N: đó là phần của bộ đệm mà mỗi rank phải đưa lên đường truyền của mình trong "
            "ring. Với all_reduce là 2(N - 1)/N; với broadcast và reduce là 1.",
        ),
    ],
}

RECAPS: dict[str, tuple[str, str]] = {
    "ring_shift": (
        "The warm-up of the ring: rank r sends its tensor to (r + 1) % N and returns what (r - 1) % N sent.\n"
        "Ranks are group ranks (dist.get_rank(group)); peers are named with group_dst / group_src.\n"
        "Graded: every rank's result, the input unchanged, ring neighbours only, the whole tensor sent "
        "right.\n"
        "gloo's send blocks until the matching recv is posted: if every rank sends first, nobody receives.\n"
        "Usual mistakes: a deadlock, global ranks inside a subgroup, sending to yourself when N = 1.",
        "Bài khởi động của ring: rank r gửi tensor của mình cho (r + 1) % N và trả về thứ (r - 1) % N gửi.\n"
        "Rank ở đây là rank trong nhóm (dist.get_rank(group)); peer được chỉ định bằng group_dst/group_src.\n"
        "Bộ chấm kiểm tra: kết quả trên mọi rank, đầu vào không bị sửa, chỉ nói chuyện với hàng xóm trên "
        "ring, và gửi cả tensor sang phải.\n"
        "send của gloo chặn đến khi recv tương ứng được gọi: nếu mọi rank cùng gửi trước thì không ai nhận.\n"
        "Lỗi thường gặp: bế tắc (deadlock), dùng rank toàn cục trong nhóm con, tự gửi cho mình khi N = 1.",
    ),
    "broadcast": (
        "broadcast copies src's tensor into every rank's tensor, in place, along a binomial tree.\n"
        "Relative to the root, in round k every rank that holds the data sends it 2^k positions further.\n"
        "After ceil(log2 N) rounds all N ranks hold it, with N - 1 messages in total.\n"
        "Graded ('tree'): N - 1 messages, at most ceil(log2 N) rounds, every rank but src gets the whole "
        "tensor.\n"
        "src is a global rank: inside a subgroup turn it into a group rank first.\n"
        "Usual mistakes: a chain or a star from the root (N - 1 rounds), children served nearest first.",
        "broadcast chép tensor của src vào tensor của mọi rank, tại chỗ (in place), theo cây nhị thức.\n"
        "Tính tương đối so với gốc, ở vòng k mọi rank đã có dữ liệu gửi nó đi xa thêm 2^k vị trí.\n"
        "Sau ceil(log2 N) vòng cả N rank đều có dữ liệu, với tổng cộng N - 1 thông điệp.\n"
        "Bộ chấm ('tree'): N - 1 thông điệp, tối đa ceil(log2 N) vòng, mọi rank trừ src nhận đủ cả tensor.\n"
        "src là rank toàn cục: trong nhóm con, hãy đổi nó sang rank trong nhóm trước.\n"
        "Lỗi thường gặp: gửi theo chuỗi hoặc gốc gửi lần lượt cho từng rank (N - 1 vòng), gửi nút gần "
        "trước.",
    ),
    "reduce": (
        "reduce combines every rank's tensor with op (sum, avg, max, min); the result lands on dst.\n"
        "It is the broadcast tree run backwards: partial results climb the tree, one message per rank.\n"
        "Graded ('tree'): N - 1 messages, at most ceil(log2 N) rounds; every rank but dst sends its result "
        "once.\n"
        "The tensor on other ranks is unspecified afterwards; dst is a global rank.\n"
        "Usual mistakes: dividing 'avg' at every level, receiving into the tensor you are summing into.",
        "reduce gộp tensor của mọi rank bằng op (sum, avg, max, min); kết quả nằm trên dst.\n"
        "Đây là cây của broadcast chạy ngược: các kết quả từng phần leo lên cây, mỗi rank một thông điệp.\n"
        "Bộ chấm ('tree'): N - 1 thông điệp, tối đa ceil(log2 N) vòng, mọi rank trừ dst gửi cả kết quả từng "
        "phần của mình đúng một lần.\n"
        "Sau đó tensor trên các rank khác không được đảm bảo giá trị; dst là rank toàn cục.\n"
        "Lỗi thường gặp: chia 'avg' ở mọi tầng của cây, nhận thẳng vào tensor đang dùng để cộng dồn.",
    ),
    "ring_all_gather": (
        "Every rank returns torch.cat of all ranks' tensors along dim 0, in group-rank order.\n"
        "N - 1 steps: in each step a rank sends one block to the right and receives one from the left.\n"
        "Each rank sends exactly (N - 1) · nbytes (nbytes: one rank's tensor): that is the ring's cost.\n"
        "Graded ('ring'): right neighbour only, N - 1 sends, exactly (N - 1) · nbytes; the input unchanged.\n"
        "Usual mistakes: sending your own block every step, blocks concatenated out of order, a deadlock.",
        "Mọi rank trả về torch.cat tensor của tất cả các rank theo chiều 0, theo thứ tự rank trong nhóm.\n"
        "N - 1 bước: mỗi bước một rank gửi một khối cho hàng xóm bên phải và nhận một khối từ bên trái.\n"
        "Mỗi rank gửi đúng (N - 1) · nbytes (nbytes: tensor của một rank): đó là chi phí của ring.\n"
        "Bộ chấm ('ring'): chỉ gửi sang phải, N - 1 lần gửi, đúng (N - 1) · nbytes; đầu vào giữ nguyên.\n"
        "Lỗi thường gặp: bước nào cũng gửi khối của chính mình, nối các khối sai thứ tự, bế tắc (deadlock).",
    ),
    "ring_reduce_scatter": (
        "Rank r returns chunk r of torch.tensor_split(reduced.flatten(), N): 1-D, uneven, possibly empty.\n"
        "N - 1 ring steps: send a partial chunk right, fold the one arriving from the left into your copy.\n"
        "After N - 1 steps each rank owns its chunk, reduced over all ranks; it sent (N - 1)/N of the data.\n"
        "Graded ('ring'): right neighbour only, at most (N - 1) · ceil(numel / N) elements, and at least "
        "every chunk but your own (each carries your share of the sum to its owner).\n"
        "Usual mistakes: offsets rank * (numel // N) on uneven splits, summing into the input.",
        "Rank r trả về chunk r của torch.tensor_split(reduced.flatten(), N): 1 chiều, lệch hoặc rỗng.\n"
        "N - 1 bước ring: gửi một chunk đang cộng dở sang phải, gộp chunk đến từ bên trái vào bản sao của "
        "mình.\n"
        "Sau N - 1 bước mỗi rank sở hữu chunk của mình, đã reduce qua mọi rank; nó đã gửi (N - 1)/N dữ "
        "liệu.\n"
        "Bộ chấm ('ring'): chỉ gửi cho hàng xóm bên phải, tối đa (N - 1) · ceil(numel / N) phần tử, và ít "
        "nhất mọi chunk trừ chunk của mình (mỗi chunk mang phần của bạn đến chủ của nó).\n"
        "Lỗi thường gặp: offset rank * (numel // N) khi chia không đều, cộng thẳng vào đầu vào.",
    ),
    "ring_all_reduce": (
        "In place: every rank ends with the reduced tensor; the function returns None.\n"
        "Ring all-reduce = ring reduce-scatter + ring all-gather on the chunks tensor_split(flat, N).\n"
        "Each rank sends 2(N - 1)/N of the tensor whatever N is, so no rank and no link is a bottleneck.\n"
        "Graded ('ring'): right neighbour only, at most 2(N - 1) · ceil(numel / N) elements, at least "
        "2(numel - ceil(numel / N)).\n"
        "Usual mistakes: a reduce then a broadcast (right values, wrong traffic), 'avg' divided twice, a "
        "non-contiguous tensor not written back.",
        "Tại chỗ (in place): mọi rank kết thúc với tensor đã reduce; hàm trả về None.\n"
        "Ring all-reduce = ring reduce-scatter + ring all-gather trên các chunk tensor_split(flat, N).\n"
        "Mỗi rank gửi 2(N - 1)/N tensor dù N bằng bao nhiêu, nên không rank nào, đường truyền nào bị nghẽn.\n"
        "Bộ chấm ('ring'): chỉ gửi cho hàng xóm bên phải, tối đa 2(N - 1) · ceil(numel / N) phần tử, ít "
        "nhất 2(numel - ceil(numel / N)).\n"
        "Lỗi thường gặp: reduce rồi broadcast (giá trị đúng, lưu lượng sai), chia 'avg' hai lần, quên chép "
        "kết quả về tensor không liên tục (non-contiguous).",
    ),
    "all_to_all": (
        "Personalised exchange: out[j] on rank r is what rank j passed as inputs[r]; out[r] is a copy.\n"
        "Shapes, even the number of dimensions, differ per pair: the receiver must learn each shape.\n"
        "A pairwise exchange (step k: send to r + k, hear from r - k) meets every pair once in N - 1 steps.\n"
        "Graded ('traffic'): no message to yourself, every block straight to its rank, at most its payload "
        "plus 128 B of shapes per peer.\n"
        "Usual mistakes: relaying blocks around a ring, assuming the receiver knows the shape, two blocking "
        "sends facing each other, modifying the inputs.",
        "Trao đổi cá nhân hóa: out[j] trên rank r là thứ rank j truyền ở inputs[r]; out[r] là một bản sao.\n"
        "Shape, kể cả số chiều, khác nhau giữa các cặp: bên nhận phải biết shape của từng khối.\n"
        "Trao đổi theo cặp (bước k: gửi r + k, nhận từ r - k): mỗi cặp gặp nhau đúng một lần trong N - 1 "
        "bước.\n"
        "Bộ chấm ('traffic'): không gửi cho chính mình, mỗi khối đi thẳng đến rank của nó, tối đa dữ liệu "
        "cộng 128 B shape cho mỗi peer.\n"
        "Lỗi thường gặp: chuyển tiếp khối theo ring, cho rằng bên nhận đã biết shape, hai lời gọi send chặn "
        "đối mặt nhau, sửa vào inputs.",
    ),
    "bytes_sent_per_rank": (
        "The cost model predicts the bytes of the busiest rank for the algorithms of collectives.py.\n"
        "nbytes is the full buffer (the gathered output of an all-gather, the input of a reduce-scatter).\n"
        "A ring phase sends (N - 1)/N of it per rank; a tree moves whole buffers, one level per round.\n"
        "Graded: the formula (ValueError for a pair the model lacks, as _check does), and 'measured': what "
        "the kit's reference collectives really sent on 2-4 ranks, so the formula must be exact.\n"
        "Usual mistakes: the average rank instead of the busiest, N = 1 not free.",
        "Mô hình chi phí dự đoán số byte của rank bận nhất với các thuật toán trong collectives.py.\n"
        "nbytes là cả bộ đệm (đầu ra đã gom của all-gather, đầu vào của reduce-scatter).\n"
        "Một pha ring gửi (N - 1)/N bộ đệm mỗi rank; cây chuyển cả bộ đệm, mỗi vòng đi xuống một tầng.\n"
        "Bộ chấm: công thức (ValueError cho cặp mà mô hình không có, như _check đã làm), và 'measured': số "
        "byte mà các phép tập thể tham chiếu của bộ kit thật sự gửi trên 2-4 rank: công thức phải chính "
        "xác.\n"
        "Lỗi thường gặp: tính rank trung bình thay vì rank bận nhất, N = 1 mà vẫn tốn byte.",
    ),
    "alpha_beta_time": (
        "The alpha-beta model: a message of s bytes costs alpha + s · beta seconds; steps run in sequence.\n"
        "In a ring step every rank sends one chunk at once, so a step costs one chunk's message.\n"
        "A ring all-reduce costs 2(N - 1) · alpha + 2(N - 1)/N · n · beta; a tree round moves all n bytes.\n"
        "alpha dominates small messages (latency-bound: trees win), beta large ones (bandwidth: rings win).\n"
        "Graded: the formula; ValueError for a pair the model lacks; one rank costs 0.",
        "Mô hình alpha-beta: một thông điệp s byte tốn alpha + s · beta giây; các bước chạy nối tiếp nhau.\n"
        "Trong một bước ring mọi rank cùng gửi một chunk, nên một bước tốn bằng một thông điệp cỡ chunk.\n"
        "Ring all-reduce tốn 2(N - 1) · alpha + 2(N - 1)/N · n · beta; một vòng của cây chuyển cả bộ đệm.\n"
        "alpha chiếm ưu thế với thông điệp nhỏ (bị giới hạn bởi độ trễ: cây thắng), beta với thông điệp lớn "
        "(bị giới hạn bởi băng thông: ring thắng).\n"
        "Bộ chấm: công thức; ValueError cho cặp mà mô hình không có; một rank thì tốn 0.",
    ),
    "bus_bandwidth": (
        "nccl-tests reports algbw = nbytes / seconds and busbw = algbw · a bus factor.\n"
        "The factor makes the number comparable with the link speed whatever N: it is the share of the "
        "buffer that crosses each rank's link in a ring.\n"
        "2(N - 1)/N for all-reduce; (N - 1)/N for all-gather, reduce-scatter, all-to-all; 1 for broadcast, "
        "reduce.\n"
        "So a 2-rank all-reduce has busbw = algbw, and busbw nears 2 · algbw as N grows.\n"
        "Graded: the formula. Usual mistakes: dividing by the factor, using N instead of (N - 1)/N.",
        "nccl-tests báo algbw = nbytes / seconds và busbw = algbw · một hệ số bus.\n"
        "Hệ số này giúp so được con số với tốc độ đường truyền dù N bằng bao nhiêu: đó là phần bộ đệm đi "
        "qua đường truyền của mỗi rank trong ring.\n"
        "2(N - 1)/N cho all-reduce; (N - 1)/N cho all-gather, reduce-scatter, all-to-all; 1 cho broadcast, "
        "reduce.\n"
        "Vì vậy all-reduce trên 2 rank có busbw = algbw, và busbw tiến gần 2 · algbw khi N tăng.\n"
        "Bộ chấm: công thức. Lỗi thường gặp: chia cho hệ số thay vì nhân, dùng N thay cho (N - 1)/N.",
    ),
}
