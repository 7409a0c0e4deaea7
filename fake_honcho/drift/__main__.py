"""``python -m fake_honcho.drift``: the drift report, as ``fake-honcho compare``."""

from fake_honcho.drift.cli import main

raise SystemExit(main())
