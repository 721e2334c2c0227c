"""Worlds inside a torchrun-launched job: the driver's cluster and each process's rank host."""
