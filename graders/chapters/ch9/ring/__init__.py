"""Chapter 9's Ring Attention (``ring_attention.py``) and its zigzag layout (``context_parallel.py``)."""
