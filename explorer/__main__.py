"""Entry point for ``python -m explorer``: hands argv to the CLI dispatcher."""

import sys

from explorer.cli import main

sys.exit(main())
