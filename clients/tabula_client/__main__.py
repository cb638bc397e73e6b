"""``python -m tabula_client``."""

import sys

from tabula_client.cli import main

sys.exit(main())
