"""Chapter graders: per chapter, the cases drawn, the worker tasks, the references and the checks."""
