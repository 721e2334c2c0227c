"""Chapter 11's planner (``planner.py``): a parallel layout for a model, a cluster and a batch."""
