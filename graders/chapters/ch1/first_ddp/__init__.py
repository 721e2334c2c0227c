"""Chapter 1's first DDP script (``first_ddp.py``), run by torchrun on two processes."""
