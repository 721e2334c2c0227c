"""Chapter 2 graders: collectives from point-to-point calls, and their cost model."""
