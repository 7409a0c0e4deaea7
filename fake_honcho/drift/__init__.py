"""Drift between the fake and a real Honcho: scripted exchanges, recordings, the report."""
