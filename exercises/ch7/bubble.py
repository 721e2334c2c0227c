# Generated from solutions/ch7/bubble.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 7: the pipeline bubble.

The *bubble fraction* is the idle share of the total time: the time all stages spend waiting,
divided by ``p`` times the time from the first forward to the last backward. It assumes every
stage takes the same time for a forward (and for a backward) of one microbatch, and that
communication is free.
"""


def bubble_fraction(schedule_name: str, p: int, m: int, v: int = 1) -> float:
    """Idle share of total time of ``schedule_name`` on ``p`` stages with ``m`` microbatches.

    ``schedule_name`` is ``"gpipe"``, ``"1f1b"`` or ``"interleaved"`` (interleaved 1F1B with ``v``
    chunks per stage, each 1/v of the stage's work; ``m`` a multiple of ``p``). ``v`` is used
    only by ``"interleaved"``. Returns a float in [0, 1); any other name raises ``ValueError``.
    """
    raise NotImplementedError("[dtlab TODO] ch7/bubble.py: implement bubble_fraction")
