"""Chapter 8's mixed-precision trainer (``mixed_precision.py``)."""
