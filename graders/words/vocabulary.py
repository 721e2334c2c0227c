"""The kit's own words in English and Vietnamese (``--lang vi``): statuses, headings, labels.

Feedback messages written by the graders are English; the words around them follow ``lang``.
"""

from __future__ import annotations

LANGS = ("en", "vi")

_WORDS = {
    "passed": {"en": "passed", "vi": "đạt"},
    "failed": {"en": "failed", "vi": "chưa đạt"},
    "not started": {"en": "not started", "vi": "chưa làm"},
    "not run": {"en": "not run", "vi": "chưa chạy"},
    "exercise": {"en": "exercise", "vi": "bài tập"},
    "points": {"en": "points", "vi": "điểm"},
    "status": {"en": "status", "vi": "trạng thái"},
    "parts": {"en": "parts", "vi": "các phần"},
    "total": {"en": "total", "vi": "tổng"},
    "graded": {"en": "graded", "vi": "chấm"},
    "integrity": {"en": "integrity notes", "vi": "ghi chú liêm chính"},
    "feedback": {"en": "feedback", "vi": "nhận xét"},
    "hint": {"en": "hint", "vi": "gợi ý"},
    "example": {"en": "example", "vi": "ví dụ"},
    "student": {"en": "student", "vi": "sinh viên"},
    # -- dtlab progress / dtlab check (graders/student/) ------------------------------------------
    "chapter": {"en": "chapter", "vi": "chương"},
    "grading error": {"en": "grading error", "vi": "lỗi khi chấm"},
    "grading now": {"en": "grading", "vi": "đang chấm"},
    "graded now": {"en": "graded now", "vi": "vừa chấm"},
    "unchanged": {"en": "unchanged, not graded again", "vi": "không thay đổi, không chấm lại"},
    "state replaced": {
        "en": "the progress file could not be used and was replaced",
        "vi": "không dùng được tệp tiến độ nên đã tạo lại",
    },
    "on rank": {"en": "rank", "vi": "rank"},
    "recap": {"en": "theory recap", "vi": "tóm tắt lý thuyết"},
    "hint levels": {"en": "more hints, one level at a time", "vi": "thêm gợi ý, từng mức một"},
    "no recap": {"en": "no recap for this exercise yet", "vi": "bài này chưa có phần tóm tắt lý thuyết"},
    "all passed": {"en": "every part passed", "vi": "tất cả các phần đều đạt"},
    "rerun": {"en": "check again", "vi": "kiểm tra lại"},
    "next": {"en": "next", "vi": "tiếp theo"},
    "not started detail": {
        "en": "still raises its TODO: implement it in the stub file",
        "vi": "vẫn còn TODO: hãy cài đặt hàm này trong tệp bài làm",
    },
    "set aside": {
        "en": "{count} drawn example(s) needed a larger world than this machine makes (more GPUs or "
        "torchrun processes) and were set aside; the others were graded",
        "vi": "{count} ví dụ cần một thế giới lớn hơn máy này tạo được (thêm GPU hoặc tiến trình "
        "torchrun) nên đã được bỏ qua; các ví dụ còn lại đã được chấm",
    },
    "kind:wrong": {"en": "wrong result", "vi": "kết quả sai"},
    "png:written": {
        "en": "{n} picture(s) of failed tests written to {folder}",
        "vi": "đã ghi {n} hình của các bài kiểm tra chưa đạt vào {folder}",
    },
    "png:no matplotlib": {
        "en": "--png needs matplotlib, which is not installed: pip install -e '.[reports]' (no PNG written)",
        "vi": "--png cần matplotlib nhưng chưa được cài: pip install -e '.[reports]' (chưa ghi hình PNG nào)",
    },
    "kind:hang": {"en": "hang (deadline passed)", "vi": "treo (quá thời hạn)"},
    "kind:crash": {"en": "crash", "vi": "tiến trình bị sập"},
    "kind:error": {"en": "exception", "vi": "ngoại lệ"},
    "kind:banned": {"en": "banned call", "vi": "gọi hàm bị cấm"},
    "hidden not run": {
        "en": "hidden tests run at grading time (these parts may still lose points there)",
        "vi": "các bài kiểm tra ẩn chỉ chạy khi chấm (các phần này vẫn có thể bị trừ điểm khi đó)",
    },
    "notes": {"en": "grading notes", "vi": "ghi chú khi chấm"},
    "kind:integrity": {"en": "integrity", "vi": "vi phạm quy định"},
    "kind:submission": {"en": "submission unusable", "vi": "bài nộp không dùng được"},
    "kind:not started": {"en": "not started", "vi": "chưa làm"},
    "kind:internal": {"en": "grader error", "vi": "lỗi bộ chấm"},
    "kind:timeout": {"en": "time limit", "vi": "quá giới hạn thời gian"},
    "kind:memory": {"en": "memory ceiling", "vi": "vượt giới hạn bộ nhớ"},
    "kind:pids": {"en": "process ceiling", "vi": "vượt giới hạn số tiến trình"},
    "kind:disk": {"en": "disk quota exceeded", "vi": "vượt hạn mức đĩa"},
    "kind:killed": {"en": "grading killed", "vi": "tiến trình chấm bị dừng"},
    "kind:interrupted": {"en": "grading was interrupted", "vi": "việc chấm bị gián đoạn"},
    "internal without message": {
        "en": "the graders failed on this part without saying why; please tell your teacher",
        "vi": "bộ chấm gặp lỗi ở phần này mà không nêu lý do; hãy báo cho giáo viên",
    },
    # -- the rank x time picture of a trace (graders/comm/trace_picture.py) ----------------------
    "trace:legend": {
        "en": "trace, one column per step (→r sent to rank r, ←r received from rank r, · nothing",
        "vi": "trace, mỗi cột là một bước (→r: gửi tới rank r, ←r: nhận từ rank r, ·: không làm gì",
    },
    "trace:unmatched": {
        "en": ", {mark} no matching send or receive",
        "vi": ", {mark}: không có send hoặc recv tương ứng",
    },
    "trace:step": {"en": "step", "vi": "bước"},
    "trace:in all": {"en": "in all", "vi": "tổng cộng"},
    "trace:too big": {
        "en": "trace: {calls} calls on {ranks} ranks, too many to draw here (at most {max_calls} calls on "
        "{max_ranks} ranks)",
        "vi": "trace: {calls} lời gọi trên {ranks} rank, quá nhiều để vẽ ở đây (tối đa {max_calls} lời gọi "
        "trên {max_ranks} rank)",
    },
    "trace:empty": {
        "en": "trace: no rank called torch.distributed (nothing was sent or received)",
        "vi": "trace: không rank nào gọi torch.distributed (không có gì được gửi hay nhận)",
    },
    "trace:not drawn": {
        "en": "trace: not drawn (the kit could not lay it out)",
        "vi": "trace: không vẽ được (bộ chấm không dàn được trang)",
    },
    # -- dtlab watch (graders/student/watch.py) ---------------------------------------------------
    "watch:start": {
        "en": "dtlab watch {chapter} · grading {impl} · save a file to re-grade, Ctrl-C to stop",
        "vi": "dtlab watch {chapter} · chấm {impl} · lưu tệp để chấm lại, Ctrl-C để dừng",
    },
    "watch:first": {"en": "grading {ids}", "vi": "đang chấm {ids}"},
    "watch:changed": {"en": "{files} changed: re-grading {ids}", "vi": "{files} đã thay đổi: chấm lại {ids}"},
    "watch:verdict": {
        "en": "verdict {seconds:.2f} s after the save was seen · {chapter} {earned}/{possible}",
        "vi": "có kết quả {seconds:.2f} s sau khi thấy tệp được lưu · {chapter} {earned}/{possible}",
    },
    "watch:first verdict": {
        "en": "verdict {seconds:.2f} s after the start · {chapter} {earned}/{possible}",
        "vi": "có kết quả {seconds:.2f} s sau khi khởi động · {chapter} {earned}/{possible}",
    },
    "watch:same code": {
        "en": "{files}: the code of the exercises watched did not change (only comments or layout, or "
        "code they do not run): nothing to re-grade",
        "vi": "{files}: mã của các bài tập đang theo dõi không đổi (chỉ chú thích, định dạng, hoặc mã mà "
        "chúng không chạy): không có gì để chấm lại",
    },
    "watch:syntax": {
        "en": "{file} does not compile ({error}): fix it and save again; {ids} wait until it does",
        "vi": "{file} có lỗi cú pháp ({error}): hãy sửa rồi lưu lại; {ids} sẽ được chấm khi tệp hết lỗi",
    },
    "watch:n exercises": {"en": "{n} exercises", "vi": "{n} bài tập"},
    "watch:watching": {"en": "watching {files} …", "vi": "đang theo dõi {files} …"},
    "watch:stopped": {
        "en": "dtlab watch stopped: every worker process is closed",
        "vi": "đã dừng dtlab watch: mọi tiến trình worker đã được đóng",
    },
    # -- gloo / c10d errors said as what the code did (graders/world/gloo_errors.py) --------------
    "gloo:what happened": {"en": "what happened", "vi": "chuyện gì đã xảy ra"},
    "gloo:self": {
        "en": "a rank sent to or received from itself: the peer of send/recv must be another rank",
        "vi": "một rank đã gửi cho chính nó hoặc nhận từ chính nó: peer của send/recv phải là một rank khác",
    },
    "gloo:self:hint": {
        "en": "compute the peer from the rank, e.g. (rank + 1) % world for the right neighbour, and send "
        "nothing when the peer would be the rank itself (a group of one rank has nobody to talk to)",
        "vi": "hãy tính peer từ rank, ví dụ (rank + 1) % world cho hàng xóm bên phải, và đừng gửi gì khi "
        "peer trùng với chính rank đó (nhóm chỉ có một rank thì không có ai để trao đổi)",
    },
    "gloo:not in group": {
        "en": "a rank sent to or received from global rank {peer}, which is not a member of the group it "
        "passed",
        "vi": "một rank đã gửi tới hoặc nhận từ rank toàn cục {peer}, nhưng rank này không thuộc nhóm "
        "(group) được truyền vào",
    },
    "gloo:not in group:hint": {
        "en": "with group=..., send/recv still take global ranks, and only those of the group's members: "
        "turn group rank i into its global rank with dist.get_global_rank(group, i), or pass group_dst=i "
        "(group_src=i) instead",
        "vi": "khi truyền group=..., send/recv vẫn nhận rank toàn cục, và chỉ của các thành viên trong "
        "nhóm: đổi rank i trong nhóm sang rank toàn cục bằng dist.get_global_rank(group, i), hoặc dùng "
        "group_dst=i (group_src=i) thay thế",
    },
    "gloo:no such rank": {
        "en": "Rank {rank} waits on rank {peer}, which does not exist: the world has {size} ranks "
        "(0 to {last}); compute peers modulo the world or group size.",
        "vi": "Rank {rank} đang chờ rank {peer}, nhưng rank này không tồn tại: thế giới (world) có {size} "
        "rank (từ 0 đến {last}); hãy tính peer theo modulo kích thước world hoặc nhóm.",
    },
    "gloo:tags": {
        "en": "Rank {src} is in send to rank {dst} and rank {dst} is in recv from rank {src}, yet neither "
        "finishes: their tags differ. A recv only matches a send with the same tag (the default is 0).",
        "vi": "Rank {src} đang send tới rank {dst} và rank {dst} đang recv từ rank {src}, nhưng không bên "
        "nào xong: tag của hai bên khác nhau. Một recv chỉ khớp với send có cùng tag (mặc định là 0).",
    },
}

#: The parts of exercises (``graders.catalog``), as the points table names them in Vietnamese.
PARTS_VI = {
    "result": "kết quả",
    "ring": "vòng",
    "tree": "cây",
    "traffic": "lưu lượng",
    "formula": "công thức",
    "measured": "đo thực",
    "paper": "bài báo",
    "memory": "bộ nhớ",
    "buckets": "bucket",
    "overlap": "chồng lấp",
    "paging": "phân trang",
    "prefetch": "đọc trước",
    "crash": "sự cố",
    "zero3": "zero3",
    "no_sync": "no_sync",
    "torch": "so với torch",
    "crosscheck": "đối chiếu torch",
    "placement": "vị trí",
    "gradients": "gradient",
    "makespan": "thời gian hoàn thành",
    "order": "thứ tự",
    "own_schedules": "lịch tự viết",
    "valid": "hợp lệ",
    "warmup": "warm-up",
    "forward": "forward",
    "backward": "backward",
    "dtensor": "so với DTensor",
    "sequence_parallel": "song song chuỗi",
    "routing": "định tuyến",
    "capacity": "capacity",
    "losses": "các loss",
    "local_experts": "expert cục bộ",
    "scale": "scale",
    "skip": "bỏ qua bước",
    "unscale": "unscale",
    "recompute": "tính lại",
    "rng": "RNG",
    "rules": "quy tắc",
    "heads": "số head",
    "round_trip": "khứ hồi",
    "balance": "cân bằng",
    "state": "state",
    "none": "không tính lại",
    "selective": "tính lại chọn lọc",
    "full": "tính lại toàn bộ",
    "errors": "báo lỗi",
    "shards": "phân mảnh dữ liệu",
    "rank0": "chỉ rank 0",
    "coords": "toạ độ",
    "groups": "group",
    "combined": "group kết hợp",
    "infeasible": "không khả thi",
}


def part_name(part: str, lang: str = "en") -> str:
    """An exercise part as the points table shows it in ``lang``."""
    return PARTS_VI.get(part, part) if lang == "vi" else part


def t(key: str, lang: str = "en") -> str:
    entry = _WORDS.get(key)
    if entry is None:
        return key
    return entry.get(lang) or entry["en"]
