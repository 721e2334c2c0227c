"""Where classes live: Gradescope, nbgrader (and the notebooks its assignments run)."""
