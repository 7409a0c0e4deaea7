"""``python -m fake_honcho.permissions``: print the permission table page (docs/permissions.md)."""

import sys

from fake_honcho.permissions import render_markdown

sys.stdout.write(render_markdown())
