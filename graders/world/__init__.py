"""The persistent multi-process worker world."""
