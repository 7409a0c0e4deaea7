"""``python -m fake_honcho.divergences``: print the register page (docs/divergences.md)."""

from fake_honcho.divergences import render_markdown

print(render_markdown(), end="")
