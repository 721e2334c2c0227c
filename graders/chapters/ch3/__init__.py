"""Chapter 3 graders: optimizers and the memory their state costs."""
