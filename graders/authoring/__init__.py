"""Tools for the kit's own authors: stubs from the solutions, the student release, mutants."""
