"""Misconceptions: which known plausible bug a failing implementation behaves like.

* :mod:`~graders.misconceptions.mutants`: the library of known bugs, as edits of the reference
  solutions (``fixtures/mutants/chN.toml``), and grading them (each must be caught);
* :mod:`~graders.misconceptions.battery`: the diagnostic battery, what an implementation does on
  a fixed set of cases of an exercise (its values, its traffic, its failures), recorded;
* :mod:`~graders.misconceptions.matcher`: which mutants behave like it, from the records;
* :mod:`~graders.misconceptions.shipped`: each chapter's batteries of the reference and the
  mutants, shipped with it (``dtlab battery``, ``--check``);
* :mod:`~graders.misconceptions.student_view`: the misconception a student's own run names;
* :mod:`~graders.misconceptions.teacher_view`: the misconceptions of a class, for the reports.

The wing shares the pytest plugin's layer: the plugin names a student's misconceptions once a
run is graded, and the battery runs the chapters' graders as the plugin loads them.
"""
