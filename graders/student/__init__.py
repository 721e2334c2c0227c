"""The student's commands: ``dtlab progress`` (every chapter at a glance, re-graded only where
something changed), ``dtlab check`` (one chapter or exercise, with teaching feedback) and
``dtlab watch`` (re-grades on every save the exercises whose code changed).

``progress`` and ``check`` grade as ``pytest exercises/chN`` does, with the student profile, in a
pytest subprocess that writes its gradebook as JSON (``--dtlab-report``): the points are the
points table's. ``watch`` runs that pytest in its own process, again and again, in one world pool.
"""
