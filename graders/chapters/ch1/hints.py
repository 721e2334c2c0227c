"""Chapter 1's graded hints, English and Vietnamese (see ``graders.words.hints``);
recaps live in ``recaps``."""

from graders.chapters.ch1.recaps import RECAPS

__all__ = ["HINTS", "RECAPS"]

HINTS: dict[str, list[tuple[str, str]]] = {
    "count_parameters": [
        (
            "Read model_memory.py's docstring: it lists every layer of the kit's GPT and its shape.",
            "Đọc docstring của model_memory.py: nó liệt kê mọi tầng của mô hình GPT của kit và shape của"
            " chúng.",
        ),
        (
            "A linear layer of n inputs and m outputs has n·m weights and m biases; a LayerNorm of h"
            " features has 2h. Count one block, multiply by layers, add the two embeddings, the final"
            " LayerNorm, and the head unless it is tied (then it is the token embedding, already counted).",
            "Một tầng linear n đầu vào, m đầu ra có n·m trọng số và m bias; một LayerNorm h đặc trưng có 2h."
            " Đếm một block, nhân với số layer, cộng hai embedding, LayerNorm cuối, và head nếu không tied"
            " (khi tied thì nó chính là token embedding, đã được đếm).",
        ),
    ],
    "training_memory": [
        (
            "Read the precision list of model_memory.py's docstring and section 3 of the ZeRO paper: which"
            " tensors exist in each regime, and in which dtype.",
            "Đọc danh sách độ chính xác trong docstring của model_memory.py và mục 3 của bài báo ZeRO: những"
            " tensor nào tồn tại trong mỗi chế độ, và ở dtype nào.",
        ),
        (
            "Each field is n_params times bytes per element: parameter and gradient in the model's dtype"
            " (4 in fp32, 2 otherwise); optimizer state as many tensors as the optimizer keeps (Adam 2,"
            " momentum 1, SGD 0) in the dtype the optimizer steps (fp32 for mixed precision's masters);"
            " masters 4 bytes in mixed precision only.",
            "Mỗi trường là n_params nhân số byte mỗi phần tử: tham số và gradient theo dtype của mô hình"
            " (4 ở fp32, 2 ở các trường hợp khác); state của optimizer bằng số tensor optimizer giữ (Adam 2,"
            " momentum 1, SGD 0) theo dtype mà optimizer cập nhật (fp32 với các master của mixed precision);"
            " master 4 byte, chỉ ở mixed precision.",
        ),
    ],
    "activation_memory": [
        (
            "Read model_memory.py's docstring: it lists what each layer of the block saves for backward on"
            " the CPU. Count elements first, then multiply by the dtype's bytes.",
            "Đọc docstring của model_memory.py: nó liệt kê những gì mỗi tầng của block lưu cho backward trên"
            " CPU. Đếm số phần tử trước, rồi nhân với số byte của dtype.",
        ),
        (
            "Without recomputation, the block saves sbh-sized tensors (s = seq_len, b = micro_batch, h ="
            " hidden) eight times, two sbf-sized ones (f = ffn_hidden), four [s, b, 1] statistics, the"
            " softmax output of heads·b·s² elements, and an [s, s] bool mask of one byte per element; each"
            " dropout adds an sbh mask.",
            "Khi không tính lại, block lưu tám tensor cỡ sbh (s = seq_len, b = micro_batch, h = hidden), hai"
            " tensor cỡ sbf (f = ffn_hidden), bốn thống kê [s, b, 1], đầu ra softmax heads·b·s² phần tử, và"
            " một mask bool [s, s] một byte mỗi phần tử; mỗi dropout thêm một mask cỡ sbh.",
        ),
        (
            "Selective recomputation drops exactly the core's terms (the copies of q, k, v, the mask and the"
            " softmax output) and keeps q, k, v instead: the same 3·sbh, without the s² terms. Full"
            " recomputation keeps only the input: sbh.",
            "Tính lại chọn lọc bỏ đúng các số hạng của lõi (bản sao của q, k, v, mask và đầu ra softmax) và"
            " giữ q, k, v thay vào: vẫn 3·sbh, nhưng không còn các số hạng s². Tính lại toàn bộ chỉ giữ đầu"
            " vào: sbh.",
        ),
    ],
    "read_dist_env": [
        (
            "Read launch.py's docstring: the six variables, their ranges, and the error to raise.",
            "Đọc docstring của launch.py: sáu biến, miền giá trị của chúng, và lỗi cần báo.",
        ),
        (
            "Read each variable with a helper that says which one is missing or not an integer, then check"
            " the ranges one by one (each check knows the name it guards) and build the DistEnv last.",
            "Đọc từng biến bằng một hàm phụ nói rõ biến nào thiếu hoặc không phải số nguyên, rồi kiểm tra"
            " từng miền giá trị (mỗi phép kiểm tra biết tên biến nó bảo vệ) và tạo DistEnv sau cùng.",
        ),
    ],
    "pick_backend": [
        (
            "Read launch.py's docstring: which backend runs collectives between GPUs, and which everywhere"
            " else.",
            "Đọc docstring của launch.py: backend nào chạy collective giữa các GPU, và backend nào cho mọi"
            " trường hợp khác.",
        ),
        (
            "The device may be a string ('cuda:1') or a torch.device: torch.device(device).type is 'cuda' for"
            " every CUDA device, whatever its index.",
            "Thiết bị có thể là chuỗi ('cuda:1') hoặc torch.device: torch.device(device).type là 'cuda' với"
            " mọi thiết bị CUDA, bất kể chỉ số.",
        ),
    ],
    "device_for": [
        (
            "Read launch.py's docstring: LOCAL_RANK is which GPU of its node a process takes.",
            "Đọc docstring của launch.py: LOCAL_RANK là GPU nào trên node mà tiến trình sử dụng.",
        ),
        (
            "Ask torch.cuda.is_available(); with CUDA the device is torch.device('cuda', local_rank), with"
            " the index, without it the CPU. Return it; do not set it.",
            "Hỏi torch.cuda.is_available(); khi có CUDA, thiết bị là torch.device('cuda', local_rank), có"
            " chỉ số, khi không có là CPU. Trả nó về; không đặt nó làm thiết bị hiện tại.",
        ),
    ],
    "first_ddp": [
        (
            "Read first_ddp.py's docstring: it lists the seven steps of the script, in order.",
            "Đọc docstring của first_ddp.py: nó liệt kê bảy bước của script, theo thứ tự.",
        ),
        (
            "Run it yourself as the grader does: torchrun --nproc-per-node 2 first_ddp.py --data ... (make a"
            " data.pt and an init.pt with torch.save). Each process must see half of the examples per epoch,"
            " in its own order, and only rank 0 prints and saves.",
            "Tự chạy như bộ chấm: torchrun --nproc-per-node 2 first_ddp.py --data ... (tạo data.pt và init.pt"
            " bằng torch.save). Mỗi tiến trình phải thấy một nửa số ví dụ mỗi epoch, theo thứ tự riêng, và"
            " chỉ rank 0 in và lưu.",
        ),
        (
            "The sampler goes to the DataLoader as sampler= (shuffle stays off there), set_epoch(epoch)"
            " starts every epoch, the model is called through its DDP wrapper, and the checkpoint is"
            " model.module.state_dict(), written once, by rank 0, after the last epoch.",
            "Sampler được truyền vào DataLoader qua sampler= (không bật shuffle ở đó), set_epoch(epoch) mở"
            " đầu mỗi epoch, mô hình được gọi qua lớp bọc DDP, và checkpoint là model.module.state_dict(),"
            " được ghi một lần, bởi rank 0, sau epoch cuối.",
        ),
    ],
}
