"""Chapter 10 across ranks: expert parallelism (``expert_parallel.py``),
its groups (``groups.py``) and its gradients."""
