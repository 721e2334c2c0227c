"""Chapter 4 graders: data parallelism (parameter server, DDP, sharded data parallelism)."""
