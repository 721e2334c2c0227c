"""Chapter 6's parallel blocks (``blocks.py``): the MLP and the attention block."""
