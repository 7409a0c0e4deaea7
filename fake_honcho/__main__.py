"""``python -m fake_honcho``: the same as the ``fake-honcho`` command."""

import sys

from fake_honcho._launch import main

sys.exit(main())
