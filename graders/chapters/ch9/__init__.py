"""Chapter 9: long sequences."""
