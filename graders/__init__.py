"""dtlab: auto-graded exercises for distributed deep-learning training.

The ``graders`` package is the grading library: the persistent worker world, the
communication recorder, checks, hypothesis strategies, the chapter graders, the pytest
plugin and the command line. Student code never runs in the process that imports it.
"""

__version__ = "0.1.0"
