"""``python -m starbench``: the ``starbench`` command."""

import sys

from starbench.commands.cli import main

sys.exit(main())
