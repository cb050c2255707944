"""The faces nothing imports: the ``starbench`` command (``cli``), the Hydra app (``run``) and
the subcommands ``solve``, ``bench``, ``latency``, ``match``, with the docs' generated
reference pages (``reference``) and the help texts (``help``, ``catalog``)."""
