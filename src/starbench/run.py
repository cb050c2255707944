"""``python -m starbench.run``: the Hydra app's old path (now ``starbench.commands.run``, which
``starbench run`` calls), kept for one release; importing it gives that module."""

import sys

from starbench.ground.aliases import moved

if __name__ == "__main__":
    from starbench.commands.run import main

    sys.exit(main())
else:
    sys.modules[__name__] = moved(__name__)
