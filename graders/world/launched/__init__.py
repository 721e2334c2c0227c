"""Launched worlds: torchrun's own elastic launcher starts the ranks of one task."""
