"""Benchmark 7: what the ``pytest11`` plugin costs a host project that never uses it.

pytest loads every installed plugin in every run, so a host that installs the kit
(for its backend, say) pays the plugin's import and registration on each
``pytest``. The same small host project is collected (``pytest --co``) with the
kit's entry module and without it, interleaved; the difference of the medians is
the cost. Other installed plugins are kept out of both runs (plugin autoload off)
so their own start-up time does not drown the difference. Child CPU time is
reported beside wall time because a busy machine inflates the wall clock of both
runs alike.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import Settings
from bench.report import Table, verdict

REPO = Path(__file__).resolve().parent.parent
ENTRY = "contract_tests._entry"
TARGET_MS = 50.0
HOST_MODULES = 20
HOST_TESTS_PER_MODULE = 10

BASE = [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider"]
VARIANTS = {
    "without the plugin": BASE,
    "with the plugin": [*BASE, "-p", ENTRY],
}


def write_host_project(root: Path) -> None:
    """A host project's test tree: plain tests, nothing of the kit's."""
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    body = "".join(
        f"def test_{n}():\n    assert {n} + 1 > {n}\n\n" for n in range(HOST_TESTS_PER_MODULE)
    )
    for module in range(HOST_MODULES):
        (root / f"test_host_{module}.py").write_text(body, encoding="utf-8")


def collect_once(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and child-CPU milliseconds of one collection run (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stdout[-500:]}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def import_ms(env: dict[str, str]) -> float:
    """Milliseconds to import the entry module and what it loads, pytest already imported."""
    probe = (
        "import importlib, time, pytest\n"
        "started = time.perf_counter_ns()\n"
        f"entry = importlib.import_module({ENTRY!r})\n"
        "for name in entry.pytest_plugins:\n"
        "    importlib.import_module(name)\n"
        "print((time.perf_counter_ns() - started) / 1e6)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout)


def run(settings: Settings) -> list[Table]:
    table = Table(
        f"7. Plugin cost for a host that does not use it (`pytest --co`, "
        f"{HOST_MODULES * HOST_TESTS_PER_MODULE} tests)",
        ["run", "wall median", "CPU median", "target", "result"],
    )
    repeats = 3 if settings.quick else 9
    env = {
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in VARIANTS}
    with tempfile.TemporaryDirectory(prefix="plugin-cost-") as tmp:
        host = Path(tmp)
        write_host_project(host)
        for command in VARIANTS.values():  # warm the file system caches
            collect_once(command, host, env)
        for _ in range(repeats):
            for name, command in VARIANTS.items():
                samples[name].append(collect_once(command, host, env))
        imports = [import_ms(env) for _ in range(repeats)]
    medians = {
        name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
        for name, runs in samples.items()
    }
    for name, (wall, cpu) in medians.items():
        table.add(name, f"{wall:.0f} ms", f"{cpu:.0f} ms", "-", verdict(None))
    (wall_off, cpu_off), (wall_on, cpu_on) = medians.values()
    cost = cpu_on - cpu_off
    table.add(
        "cost (difference)",
        f"{wall_on - wall_off:+.0f} ms",
        f"{cost:+.0f} ms",
        f"CPU < {TARGET_MS:.0f} ms",
        verdict(cost < TARGET_MS),
    )
    table.add(
        "import of the entry and the plugins it loads",
        f"{statistics.median(imports):.1f} ms",
        "-",
        f"< {TARGET_MS:.0f} ms",
        verdict(statistics.median(imports) < TARGET_MS),
    )
    table.notes.append(
        f"medians of {repeats} interleaved runs with PYTEST_DISABLE_PLUGIN_AUTOLOAD=1; "
        f"the plugin is loaded as its entry point loads it, with `-p {ENTRY}`"
    )
    return [table]
