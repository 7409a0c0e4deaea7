"""``python -m bench [--quick] [--only NAME ...]``: print one table per benchmark.

Exit status is 0 whatever the figures (targets are reported as PASS/MISS, never
asserted), and 1 if a benchmark could not run at all, so CI notices a benchmark
that has rotted.
"""

from __future__ import annotations

import argparse
import importlib
import platform
import sys
import time
import traceback

from bench.harness import Settings

#: name -> module with ``run(settings) -> list[Table]``, in the order they print.
BENCHMARKS = {
    "throughput": "bench.throughput",
    "validation": "bench.validation",
    "search": "bench.search_scaling",
    "wire": "bench.wire_cost",
    "memory": "bench.memory",
    "suite": "bench.suite_time",
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
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    settings = Settings(quick=args.quick)
    names = [name for name in BENCHMARKS if not args.only or name in args.only]
    print(
        f"# honcho-contract-kit benchmarks ({'quick' if args.quick else 'full'}; "
        f"Python {platform.python_version()}, {platform.machine()})\n",
        flush=True,
    )
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
