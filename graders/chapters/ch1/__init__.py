"""Chapter 1 graders: the memory ledger, torchrun's environment and a first DDP script."""
