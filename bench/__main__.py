"""``python -m bench [--quick] [--only NAME ...]``: print one table per benchmark.

Exit status is 0 whatever the figures (targets are reported as PASS/MISS, never
asserted), and 1 if a benchmark could not run at all, so CI notices a benchmark
that has rotted.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import platform
import sys
import time
import timeit
import traceback

from bench.harness import Settings

#: name -> module with ``run(settings) -> list[Table]``, in the order they print.
BENCHMARKS = {
    "throughput": "bench.throughput",
    "validation": "bench.validation",
    "search": "bench.search_scaling",
    "workspaces": "bench.workspace_scaling",
    "wire": "bench.wire_cost",
    "memory": "bench.memory",
    "suite": "bench.suite_time",
    "plugin": "bench.plugin_cost",
    "hybrid": "bench.hybrid_search",
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Benchmarks with same-run baselines; targets print as PASS/MISS.",
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats (CI)")
    parser.add_argument(
        "--only",
        action="append",
        choices=list(BENCHMARKS),
        metavar="NAME",
        help=f"run only this benchmark (repeatable): {', '.join(BENCHMARKS)}",
    )
    parser.add_argument(
        "--honcho-url",
        metavar="URL",
        help="also time the same operations against this Honcho server (real / fake columns)",
    )
    parser.add_argument(
        "--honcho-api-key",
        metavar="KEY",
        default=os.environ.get("HONCHO_API_KEY"),
        help="Bearer key for --honcho-url (default: $HONCHO_API_KEY; never printed)",
    )
    return parser.parse_args(argv)


def machine_line() -> str:
    """What the absolute figures depend on: CPUs, load, and a reference loop's speed."""
    loop_us = min(timeit.repeat("sum(range(1000))", number=200, repeat=5)) / 200 * 1e6
    averages = os.getloadavg()
    cpus = os.cpu_count() or 1
    load = ", ".join(f"{value:.1f}" for value in averages)
    line = (
        f"Python {platform.python_version()} on {cpus} CPUs; load average {load}; "
        f"reference loop sum(range(1000)) = {loop_us:.1f} µs"
    )
    if averages[0] > cpus:
        line += (
            ".\nThe machine is busy: wall-clock figures include waiting for a CPU; "
            "the CPU columns show the code's own cost."
        )
    return line


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # Backends log swallowed write failures as warnings; the tables already count them.
    logging.basicConfig(level=logging.ERROR, format="%(name)s: %(message)s")
    settings = Settings(
        quick=args.quick, honcho_url=args.honcho_url, honcho_api_key=args.honcho_api_key
    )
    names = [name for name in BENCHMARKS if not args.only or name in args.only]
    mode = "quick" if args.quick else "full"
    print(f"# honcho-contract-kit benchmarks ({mode})\n\n{machine_line()}\n", flush=True)
    broken, misses = [], 0
    for name in names:
        started = time.perf_counter()
        try:
            tables = importlib.import_module(BENCHMARKS[name]).run(settings)
        except Exception:
            broken.append(name)
            print(f"### {name}: could not run\n\n```\n{traceback.format_exc()}```\n", flush=True)
            continue
        for table in tables:
            misses += table.misses
            print(table.render(), flush=True)
        print(f"({name}: {time.perf_counter() - started:.1f} s)\n", flush=True)
    print(
        f"Targets missed: {misses}. Benchmarks that could not run: {', '.join(broken) or 'none'}."
    )
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
