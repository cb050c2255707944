"""``python -m starbench.run``: the Hydra app (``starbench.commands.run``, which ``starbench run``
calls) by the path 0.2 documented; ``python -m`` needs a module file, so this one stays.  Only
``-m`` is served: importing ``starbench.run`` is importing a command, not the app's module
(``starbench.commands.run``)."""

import sys

if __name__ == "__main__":
    from starbench.commands.run import main

    sys.exit(main())
