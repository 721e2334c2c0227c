"""Chapter 8: mixed precision and memory techniques."""
