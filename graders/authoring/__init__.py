"""Tools for the kit's own authors: stubs from the solutions, the student release, the graders'
coverage (the mutants, the known bugs the graders must catch: :mod:`graders.misconceptions`)."""
