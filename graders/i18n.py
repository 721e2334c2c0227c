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
    "not started detail": {
        "en": "still raises its TODO: implement it in the stub file",
        "vi": "vẫn còn TODO: hãy cài đặt hàm này trong tệp bài làm",
    },
    "kind:wrong": {"en": "wrong result", "vi": "kết quả sai"},
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
}


def t(key: str, lang: str = "en") -> str:
    entry = _WORDS.get(key)
    if entry is None:
        return key
    return entry.get(lang) or entry["en"]
