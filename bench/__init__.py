"""Benchmarks for honcho-contract-kit, each measured against a baseline in the same run.

Run ``python -m bench`` for the full set or ``python -m bench --quick`` for the smaller
sizes CI uses. Absolute times on a shared machine mean little, so every table carries a
ratio against a baseline timed in the same process, interleaved with the candidate.
"""
