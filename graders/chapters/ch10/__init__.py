"""Chapter 10: Mixture of Experts."""
