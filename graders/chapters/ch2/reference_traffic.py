"""What the kit's reference collectives (solutions/ch2) were measured to send.

``bytes_sent_per_rank [measured]`` compares a cost model with these numbers, the traffic of
the reference implementation, rather than with the student's own collectives: a banned or
wrong collective already loses its own points, and must not take the cost model's too.
``tests/chapters/test_ch2.py`` runs the reference collectives again on real gloo worlds and fails,
printing the table afresh, when it drifts.

Key: (collective, ranks, float32 elements per rank); value: the bytes each rank sent.
"""

MEASURED: dict[tuple[str, int, int], tuple[int, ...]] = {
    ("all_reduce", 2, 2): (8, 8),
    ("all_reduce", 2, 6): (24, 24),
    ("all_reduce", 2, 128): (512, 512),
    ("all_reduce", 3, 3): (16, 16, 16),
    ("all_reduce", 3, 9): (48, 48, 48),
    ("all_reduce", 3, 192): (1024, 1024, 1024),
    ("all_reduce", 4, 4): (24, 24, 24, 24),
    ("all_reduce", 4, 12): (72, 72, 72, 72),
    ("all_reduce", 4, 256): (1536, 1536, 1536, 1536),
    ("all_gather", 2, 2): (8, 8),
    ("all_gather", 2, 6): (24, 24),
    ("all_gather", 2, 128): (512, 512),
    ("all_gather", 3, 3): (24, 24, 24),
    ("all_gather", 3, 9): (72, 72, 72),
    ("all_gather", 3, 192): (1536, 1536, 1536),
    ("all_gather", 4, 4): (48, 48, 48, 48),
    ("all_gather", 4, 12): (144, 144, 144, 144),
    ("all_gather", 4, 256): (3072, 3072, 3072, 3072),
    ("reduce_scatter", 2, 2): (4, 4),
    ("reduce_scatter", 2, 6): (12, 12),
    ("reduce_scatter", 2, 128): (256, 256),
    ("reduce_scatter", 3, 3): (8, 8, 8),
    ("reduce_scatter", 3, 9): (24, 24, 24),
    ("reduce_scatter", 3, 192): (512, 512, 512),
    ("reduce_scatter", 4, 4): (12, 12, 12, 12),
    ("reduce_scatter", 4, 12): (36, 36, 36, 36),
    ("reduce_scatter", 4, 256): (768, 768, 768, 768),
    ("broadcast", 2, 2): (8, 0),
    ("broadcast", 2, 6): (24, 0),
    ("broadcast", 2, 128): (512, 0),
    ("broadcast", 3, 3): (24, 0, 0),
    ("broadcast", 3, 9): (72, 0, 0),
    ("broadcast", 3, 192): (1536, 0, 0),
    ("broadcast", 4, 4): (32, 0, 16, 0),
    ("broadcast", 4, 12): (96, 0, 48, 0),
    ("broadcast", 4, 256): (2048, 0, 1024, 0),
    ("reduce", 2, 2): (0, 8),
    ("reduce", 2, 6): (0, 24),
    ("reduce", 2, 128): (0, 512),
    ("reduce", 3, 3): (0, 12, 12),
    ("reduce", 3, 9): (0, 36, 36),
    ("reduce", 3, 192): (0, 768, 768),
    ("reduce", 4, 4): (0, 16, 16, 16),
    ("reduce", 4, 12): (0, 48, 48, 48),
    ("reduce", 4, 256): (0, 1024, 1024, 1024),
}
