"""A DeerFlow-compatible memory backend on top of Honcho v3."""
