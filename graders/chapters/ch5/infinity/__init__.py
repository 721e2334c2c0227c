"""Chapter 5's ZeRO-Infinity (``infinity.py``): the drive, the paging and the prefetch."""
