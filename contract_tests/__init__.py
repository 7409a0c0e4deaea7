"""Reusable pytest contract suites for Honcho and DeerFlow-style memory backends."""
