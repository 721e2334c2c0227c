"""Worker side: who is asking? Graded code, the kit, or torch and the standard library.

The guard and the recorder run code on behalf of whoever called a function or caused an
audited event, so they must tell graded code from everything else, without trusting any
state graded code could reach:

* a frame is **graded** when its file is in the graded folder, or when it runs code graded
  code compiled itself (``exec``, ``timeit``) in a graded module's globals;
* graded code **is on the stack** when any frame below is graded, or when the call runs on a
  thread other than the worker's own (graded code started it: the kit starts none);
* the **requester** is the nearest frame that is not torch's (or a helper that only hands
  graded code what it asked for: ``inspect``, ``ctypes``, ``logging.currentframe``,
  ``traceback.walk_stack``); the kit's own frames are trusted wherever they run.
"""

from __future__ import annotations

import importlib.util
import inspect
import logging
import os
import threading
import traceback

import torch

TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
KIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # .../graders/
GRADED_PACKAGE = "dtlab_impl"
_CTYPES_DIR = os.path.dirname(importlib.util.find_spec("ctypes").origin) + os.sep
_MAIN_THREAD = threading.main_thread().ident

#: functions whose job is to hand their caller a frame, or what a frame holds
_HANDS_BACK_FRAMES = {
    fn.__code__
    for fn in (
        inspect.currentframe,
        inspect.stack,
        inspect.trace,
        inspect.getouterframes,
        inspect.getinnerframes,
        inspect.getframeinfo,
        logging.currentframe,
        traceback.walk_stack,
        traceback.walk_tb,
        traceback.extract_stack,
        traceback.StackSummary.extract.__func__,
        traceback.StackSummary._extract_from_extended_frame_gen.__func__,
        traceback._walk_tb_with_full_positions,
    )
    if hasattr(fn, "__code__")
}


def is_graded_frame(frame, root: str) -> bool:
    if root and frame.f_code.co_filename.startswith(root):
        return True
    name = frame.f_globals.get("__name__", "")
    compiled_here = frame.f_code.co_filename.startswith("<")
    return compiled_here and (name == GRADED_PACKAGE or str(name).startswith(GRADED_PACKAGE + "."))


def is_kit_frame(frame) -> bool:
    return frame.f_code.co_filename.startswith(KIT_DIR)


def graded_on_stack(frame, root: str) -> bool:
    """Whether graded code is anywhere on the stack from ``frame`` down, or runs this thread."""
    if threading.get_ident() != _MAIN_THREAD:
        return True
    while frame is not None:
        if is_graded_frame(frame, root):
            return True
        frame = frame.f_back
    return False


def requester(frame, *, skip_files: tuple[str, ...] = (), skip_torch: bool = True):
    """The nearest frame from ``frame`` that is neither torch's (unless ``skip_torch`` is
    false), nor in ``skip_files``, nor a helper that hands back frames or native calls."""
    skipped = (TORCH_DIR, _CTYPES_DIR, *skip_files) if skip_torch else (_CTYPES_DIR, *skip_files)
    while frame is not None:
        code = frame.f_code
        passing = code in _HANDS_BACK_FRAMES or code.co_filename.startswith(skipped)
        if not passing:
            return frame
        frame = frame.f_back
    return None


def graded_asks(frame, root: str) -> bool:
    """Whether graded code itself receives what ``frame`` is doing: the requester is graded.
    (Torch and the standard library may read frames for themselves, for a log line, say.)"""
    asking = requester(frame, skip_torch=False)
    return asking is not None and is_graded_frame(asking, root)


def graded_request(frame, root: str, *, skip_files: tuple[str, ...] = ()) -> bool:
    """Whether graded code is behind what ``frame`` is doing: the requester is graded, or it is
    not the kit and graded code is on the stack (a helper it called, a thread it started)."""
    asking = requester(frame, skip_files=skip_files)
    if asking is None:
        return graded_on_stack(frame, root)
    if is_graded_frame(asking, root):
        return True
    if is_kit_frame(asking):
        return False
    return graded_on_stack(asking, root)
