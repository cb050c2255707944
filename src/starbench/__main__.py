"""``python -m starbench``: the ``starbench`` command."""

import sys

from starbench.cli import main

sys.exit(main())
