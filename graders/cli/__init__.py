"""The ``dtlab`` command: one home for every subcommand (:mod:`graders.cli.main`)."""
