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


#: The reference loop's spread (slowest over fastest of its repeats, minus 1) above which
#: the machine is too unsteady for a timed target to be judged.
NOISY_SPREAD = 0.15


def machine_line() -> tuple[str, bool]:
    """What the absolute figures depend on (CPUs, load, a reference loop's speed and how much
    it varies between repeats), and whether the machine is too noisy to judge timings."""
    loops = [t / 200 * 1e6 for t in timeit.repeat("sum(range(1000))", number=200, repeat=9)]
    spread = max(loops) / min(loops) - 1
    averages = os.getloadavg()
    cpus = os.cpu_count() or 1
    load = ", ".join(f"{value:.1f}" for value in averages)
    line = (
        f"Python {platform.python_version()} on {cpus} CPUs; load average {load}; "
        f"reference loop sum(range(1000)) = {min(loops):.1f} µs, varying {spread:.0%} over "
        f"{len(loops)} repeats"
    )
    noisy = averages[0] > cpus or spread > NOISY_SPREAD
    if noisy:
        line += (
            ".\nThe machine is busy or unsteady: wall-clock figures include waiting for a "
            "CPU (the CPU columns show the code's own cost), and a timed target missed within "
            "the noise is NOISY, not MISS."
        )
    return line, noisy


def summary(misses: int, noisy: int, machine_noisy: bool, broken: list[str]) -> str:
    """The last line: the misses outside the noise, then what the noise left undecided."""
    line = f"Targets missed: {misses}"
    if noisy:
        line += (
            f" (outside the noise); {noisy} more within it (NOISY): the median misses, the "
            "faster quartile meets the target"
        )
        if machine_noisy:
            line += "; the machine is too noisy to judge them, rerun on a quiet one"
    return f"{line}. Benchmarks that could not run: {', '.join(broken) or 'none'}."


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # Backends log swallowed write failures as warnings; the tables already count them.
    logging.basicConfig(level=logging.ERROR, format="%(name)s: %(message)s")
    settings = Settings(
        quick=args.quick, honcho_url=args.honcho_url, honcho_api_key=args.honcho_api_key
    )
    names = [name for name in BENCHMARKS if not args.only or name in args.only]
    mode = "quick" if args.quick else "full"
    machine, machine_noisy = machine_line()
    print(f"# honcho-contract-kit benchmarks ({mode})\n\n{machine}\n", flush=True)
    broken, misses, noisy = [], 0, 0
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
            noisy += table.noisy
            print(table.render(), flush=True)
        print(f"({name}: {time.perf_counter() - started:.1f} s)\n", flush=True)
    print(summary(misses, noisy, machine_noisy, broken))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
