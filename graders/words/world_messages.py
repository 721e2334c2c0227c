"""The worker world's messages, English and Vietnamese: what a task's replies say
(:mod:`graders.world.pool`: not started, banned calls, student exceptions) and the reports on a
broken task (:mod:`graders.world.reports`: hangs, crashes, ranks left waiting). Part of
:data:`graders.words.shared_messages.SHARED`.
"""

from __future__ import annotations

_WORLD: dict[str, dict[str, str]] = {
    # -- graders/world/pool.py: what a task's replies say -------------------------------------------
    "not started:missing": {"en": "{file} is missing", "vi": "thiếu tệp {file}"},
    "at site": {"en": " at {site}", "vi": " tại {site}"},
    "banned what:door": {
        "en": "rank {rank} {door} ({name}){where}",
        "vi": "rank {rank} đã {door} ({name}){where}",
    },
    "banned:door": {
        "en": "{what}, which graded code may never do: it is banned in {exercise}.",
        "vi": "{what}, điều mà code được chấm không bao giờ được làm: nó bị cấm trong {exercise}.",
    },
    "banned:door:hint": {
        "en": "use only what your function receives: the graders' cases, frames and references are not "
        "yours to read.",
        "vi": "chỉ dùng những gì hàm của bạn nhận được: các ví dụ (case), frame và reference của bộ chấm "
        "không phải để bạn đọc.",
    },
    "banned what:call": {"en": "rank {rank} called {name}{where}", "vi": "rank {rank} đã gọi {name}{where}"},
    "banned:call": {
        "en": "{what}, which is banned in {exercise}.",
        "vi": "{what}, nhưng lời gọi này bị cấm trong {exercise}.",
    },
    "banned what:import": {
        "en": "rank {rank} imported {name}{where}",
        "vi": "rank {rank} đã import {name}{where}",
    },
    "banned:import": {
        "en": "{what}, which is banned in {exercise}.",
        "vi": "{what}, nhưng module này bị cấm trong {exercise}.",
    },
    "banned:call:hint": {
        "en": "this exercise is about building that yourself: use only the calls its docstring allows.",
        "vi": "bài tập này yêu cầu bạn tự xây dựng phần đó: chỉ dùng các lời gọi mà docstring của bài cho "
        "phép.",
    },
    "student error": {
        "en": "rank {ranks} raised {type}: {message}",
        "vi": "rank {ranks} gặp ngoại lệ {type}: {message}",
    },
    "printed": {"en": "printed (last lines):\n{tail}", "vi": "đã in ra (các dòng cuối):\n{tail}"},
    # -- graders/world/reports.py: a hang, a crash, ranks left waiting ---------------------------------
    "status:blocked": {"en": "blocked in {op}", "vi": "bị chặn trong {op}"},
    "status:wait": {"en": "wait() on {op}", "vi": "wait() của {op}"},
    "status:from": {"en": "from rank {peer}", "vi": "từ rank {peer}"},
    "status:to": {"en": "to rank {peer}", "vi": "tới rank {peer}"},
    "status:root": {"en": "root rank {peer}", "vi": "root là rank {peer}"},
    "status:at": {"en": "at {site}", "vi": "tại {site}"},
    "diagnose:python loop": {
        "en": "No rank is inside a torch.distributed call: the code is stuck in a Python loop.",
        "vi": "Không rank nào đang ở trong một lời gọi torch.distributed: code đang kẹt trong một vòng lặp "
        "Python.",
    },
    "diagnose:peer finished": {
        "en": "Rank {rank} waits for a message from rank {peer}, but rank {peer} already finished: a send "
        "is missing, or the two ranks disagree on how many messages there are.",
        "vi": "Rank {rank} đang chờ thông điệp từ rank {peer}, nhưng rank {peer} đã kết thúc: thiếu một lệnh "
        "send, hoặc hai rank không thống nhất về số thông điệp.",
    },
    "diagnose:all send": {
        "en": "Every stuck rank is in a blocking send. gloo's send waits until the peer posts the matching "
        "recv, so when all ranks send first nobody receives: let ranks alternate (for example even ranks "
        "send first), or use isend/irecv and wait on both.",
        "vi": "Mọi rank bị kẹt đều đang ở trong một send chặn (blocking send). send của gloo chờ tới khi "
        "peer gọi recv tương ứng, nên khi mọi rank đều send trước thì không ai nhận cả: hãy cho các rank "
        "luân phiên (ví dụ rank chẵn send trước), hoặc dùng isend/irecv rồi wait cả hai.",
    },
    "diagnose:all recv": {
        "en": "Every stuck rank waits to receive and nobody sends: check the order of sends and receives, "
        "and that each rank computes its peers the same way.",
        "vi": "Mọi rank bị kẹt đều đang chờ nhận và không ai gửi: hãy kiểm tra thứ tự các lệnh send và recv, "
        "và xem mọi rank có tính peer của mình theo cùng một cách không.",
    },
    "diagnose:cycle": {
        "en": "Ranks wait on each other in a cycle: {cycle}.",
        "vi": "Các rank chờ lẫn nhau thành một vòng tròn: {cycle}.",
    },
    "diagnose:other": {
        "en": "Some ranks wait for peers that never reach the matching call.",
        "vi": "Một số rank đang chờ các peer không bao giờ tới được lời gọi tương ứng.",
    },
    "rank:finished": {"en": "  rank {rank}: finished its part", "vi": "  rank {rank}: đã xong phần của nó"},
    "rank:peer gone": {
        "en": "  rank {rank}: stopped with a gloo connection error (its peer was gone)",
        "vi": "  rank {rank}: dừng với lỗi kết nối gloo (peer của nó đã không còn)",
    },
    "rank:raised": {
        "en": "  rank {rank}: raised {type}: {message}",
        "vi": "  rank {rank}: gặp ngoại lệ {type}: {message}",
    },
    "rank:in python": {
        "en": "running Python code, not in any torch.distributed call",
        "vi": "đang chạy code Python, không ở trong lời gọi torch.distributed nào",
    },
    "rank:printed": {
        "en": "rank {rank} printed (last lines):\n{tail}",
        "vi": "rank {rank} đã in ra (các dòng cuối):\n{tail}",
    },
    "who:one": {"en": "rank {ranks}", "vi": "rank {ranks}"},
    "who:many": {"en": "ranks {ranks}", "vi": "các rank {ranks}"},
    "hang:head": {
        "en": "{exercise}: the task did not finish within its {deadline:g} s deadline ({who} stuck).",
        "vi": "{exercise}: tác vụ không hoàn thành trong thời hạn {deadline:g} s ({who} bị kẹt).",
    },
    "crash:head": {"en": "{exercise}: {who} crashed.", "vi": "{exercise}: {who} bị sập."},
    "crash:while": {"en": " while {status}", "vi": " trong khi {status}"},
    "crash:killed": {"en": "killed by {signal}", "vi": "bị dừng bởi tín hiệu {signal}"},
    "crash:exited": {"en": "exited with code {code}", "vi": "đã thoát với mã {code}"},
    "crash:stopped answering": {"en": "stopped answering", "vi": "không còn phản hồi"},
    "crash:corrupt reply": {
        "en": "sent a corrupt reply ({error})",
        "vi": "đã gửi một phản hồi bị hỏng ({error})",
    },
    "crash:SIGABRT:hint": {
        "en": "gloo aborts a process when a receive and its matching send have different sizes (or one "
        "side sends 0 bytes and the other expects data): check that both sides agree on every chunk's "
        "size",
        "vi": "gloo dừng (abort) tiến trình khi một lệnh recv và lệnh send tương ứng có kích thước khác "
        "nhau (hoặc một bên gửi 0 byte trong khi bên kia chờ dữ liệu): hãy kiểm tra hai bên thống nhất "
        "kích thước của từng chunk",
    },
    "crash:SIGSEGV:hint": {
        "en": "a segmentation fault: native memory was corrupted (ctypes, or a tensor freed while in use)",
        "vi": "lỗi segmentation fault: bộ nhớ native bị hỏng (do ctypes, hoặc một tensor bị giải phóng khi "
        "vẫn đang được dùng)",
    },
    "crash:SIGKILL:hint": {
        "en": "the process was killed from outside, often for using too much memory",
        "vi": "tiến trình bị dừng từ bên ngoài, thường là do dùng quá nhiều bộ nhớ",
    },
    "crash:exit:hint": {
        "en": "student code ended the worker process (os._exit or similar): never exit from an exercise",
        "vi": "code của sinh viên đã kết thúc tiến trình worker (os._exit hoặc tương tự): đừng bao giờ "
        "thoát tiến trình trong một bài tập",
    },
    "crash:others": {"en": "the other ranks:", "vi": "các rank còn lại:"},
    "stuck:one": {
        "en": "{exercise}: {failed} raised an exception, and {stuck} was left waiting for it.",
        "vi": "{exercise}: {failed} gặp ngoại lệ, và {stuck} bị bỏ lại chờ nó.",
    },
    "stuck:many": {
        "en": "{exercise}: {failed} raised an exception, and {stuck} were left waiting for it.",
        "vi": "{exercise}: {failed} gặp ngoại lệ, và {stuck} bị bỏ lại chờ nó.",
    },
    "stuck:traceback": {
        "en": "rank {rank} traceback (your code):\n{traceback}",
        "vi": "traceback của rank {rank} (code của bạn):\n{traceback}",
    },
}

#: What each door of ``graders.catalog.DOORS`` does, said after "rank R" ("banned:door").
_DOORS: dict[str, dict[str, str]] = {
    "banned:door:sys._getframe": {
        "en": "reads the interpreter's frames",
        "vi": "đọc các frame của trình thông dịch",
    },
    "banned:door:sys._current_frames": {
        "en": "reads the interpreter's frames",
        "vi": "đọc các frame của trình thông dịch",
    },
    "banned:door:frame": {
        "en": "reads a frame through a traceback or a generator",
        "vi": "đọc một frame thông qua traceback hoặc generator",
    },
    "banned:door:sys.settrace": {"en": "traces the interpreter", "vi": "theo dõi (trace) trình thông dịch"},
    "banned:door:sys.setprofile": {"en": "traces the interpreter", "vi": "theo dõi (trace) trình thông dịch"},
    "banned:door:gc.get_objects": {
        "en": "walks every live object",
        "vi": "duyệt qua mọi đối tượng đang tồn tại",
    },
    "banned:door:gc.get_referrers": {
        "en": "walks live objects",
        "vi": "duyệt qua các đối tượng đang tồn tại",
    },
    "banned:door:gc.get_referents": {
        "en": "walks live objects",
        "vi": "duyệt qua các đối tượng đang tồn tại",
    },
    "banned:door:function.__new__": {
        "en": "builds a function from a code object",
        "vi": "tạo một hàm từ một code object",
    },
    "banned:door:code.__new__": {"en": "builds a code object", "vi": "tạo một code object"},
    "banned:door:function.__code__": {
        "en": "reads or rewrites a function's code object",
        "vi": "đọc hoặc viết lại đối tượng code của một hàm",
    },
    "banned:door:ctypes": {"en": "calls native code", "vi": "gọi mã native"},
    "banned:door:graders.*": {
        "en": "imports the grading kit, whose references are the answers",
        "vi": "import bộ chấm, mà các reference trong đó chính là đáp án",
    },
    "banned:door:signal.signal": {
        "en": "installs a signal handler, which is handed the interrupted frame",
        "vi": "cài một signal handler, thứ sẽ được trao frame đang bị ngắt",
    },
    "banned:door:thread": {
        "en": "starts a thread, whose calls and memory would escape the graders",
        "vi": "khởi chạy một thread, mà các lời gọi và bộ nhớ của nó sẽ lọt khỏi tầm giám sát của bộ chấm",
    },
    "banned:door:side channel": {
        "en": "moves data behind the graders' back (a file written, a socket)",
        "vi": "chuyển dữ liệu sau lưng bộ chấm (ghi một tệp, mở một socket)",
    },
    "banned:door:dispatch": {
        "en": "steps out of the graders' dispatch modes",
        "vi": "thoát ra khỏi các dispatch mode của bộ chấm",
    },
    "banned:door:c10d ops": {
        "en": "calls torch's collective operators (torch.ops.c10d, torch.ops._c10d_functional), which the"
        " graders' recorder does not see",
        "vi": "gọi các toán tử collective của torch (torch.ops.c10d, torch.ops._c10d_functional), thứ mà"
        " bộ ghi (recorder) của bộ chấm không nhìn thấy",
    },
    "banned:door:process group": {
        "en": "calls a ProcessGroup's or a backend's own methods (or takes its store), which the graders'"
        " recorder does not see",
        "vi": "gọi trực tiếp các phương thức của một ProcessGroup hay backend (hoặc lấy store của nó), thứ"
        " mà bộ ghi (recorder) của bộ chấm không nhìn thấy",
    },
}

WORLD: dict[str, dict[str, str]] = {**_WORLD, **_DOORS}
