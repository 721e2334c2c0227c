"""Chapter 8's simulated FP8 (``fp8.py``)."""
