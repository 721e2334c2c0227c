"""The student's commands: ``dtlab progress`` (every chapter at a glance, re-graded only where
something changed) and ``dtlab check`` (one chapter or exercise, with teaching feedback).

Both grade as ``pytest exercises/chN`` does, with the student profile, in a pytest subprocess
that writes its gradebook as JSON (``--dtlab-report``): the points are the points table's.
"""
