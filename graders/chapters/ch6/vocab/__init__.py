"""Chapter 6's vocabulary-parallel layers (``layers.py``): the embedding and the cross-entropy."""
