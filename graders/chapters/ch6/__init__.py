"""Chapter 6: tensor parallelism."""
