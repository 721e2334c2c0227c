"""Chapter 11 graders: the rank grid of 5D parallelism, its process groups and their placement."""
