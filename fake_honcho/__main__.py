"""``python -m fake_honcho``: the same as the ``fake-honcho`` command."""

import sys

from fake_honcho.cli import main

sys.exit(main())
