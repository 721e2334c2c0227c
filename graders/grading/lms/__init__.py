"""Where classes live: Gradescope, nbgrader (and the notebooks its assignments run), and the
gradebook files Moodle and Canvas import."""
