"""Plain Markdown tables, so a run's output can be pasted into an issue unchanged."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bench.harness import Timing

PASS = "PASS"
MISS = "MISS"
NOISY = "NOISY"
INFO = "-"


def verdict(ok: bool | None, *, within_noise: bool = False) -> str:
    """``PASS``/``MISS`` for a row with a target, ``-`` for an informational row.

    A timed row whose median misses its target but whose favourable end of the noise (its
    faster quartile; for a ratio, over the slower quartile of its baseline) meets it is
    ``NOISY``: the machine was too unsteady to tell, not a miss.
    """
    if ok is None:
        return INFO
    if ok:
        return PASS
    return NOISY if within_noise else MISS


@dataclass
class Table:
    """One benchmark's result: a title, a header, rows of cells and notes printed below."""

    title: str
    headers: Sequence[str]
    rows: list[Sequence[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, *cells: object) -> None:
        if len(cells) != len(self.headers):
            raise ValueError(
                f"{self.title}: row has {len(cells)} cells, header {len(self.headers)}"
            )
        self.rows.append([str(cell) for cell in cells])

    @property
    def misses(self) -> int:
        return sum(1 for row in self.rows if MISS in row)

    @property
    def noisy(self) -> int:
        return sum(1 for row in self.rows if NOISY in row)

    def render(self) -> str:
        widths = [len(h) for h in self.headers]
        for row in self.rows:
            widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

        def line(cells: Sequence[str]) -> str:
            return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

        out = [f"### {self.title}", "", line(self.headers), line(["-" * w for w in widths])]
        out.extend(line(row) for row in self.rows)
        if self.notes:
            out.append("")
            out.extend(f"- {note}" for note in self.notes)
        return "\n".join(out) + "\n"


def fmt_ratio(value: float) -> str:
    return f"{value:.2f}x"


def fmt_duration(ns: float) -> str:
    """A per-operation time in the unit that keeps three significant digits readable."""
    if ns < 1_000:
        return f"{ns:.0f} ns"
    if ns < 1_000_000:
        return f"{ns / 1_000:.1f} µs"
    if ns < 1_000_000_000:
        return f"{ns / 1_000_000:.2f} ms"
    return f"{ns / 1_000_000_000:.2f} s"


def fmt_quartiles(timing: Timing) -> str:
    """The faster and slower quartiles of a timing: where its noise lies."""
    return f"{fmt_duration(timing.fast)} .. {fmt_duration(timing.slow)}"


def fmt_rate(ns_per_op: float) -> str:
    return f"{1e9 / ns_per_op:,.0f}/s"


def fmt_bytes(count: float) -> str:
    if count < 10_000:
        return f"{count:,.0f} B"
    if count < 10_000_000:
        return f"{count / 1_000:,.1f} kB"
    return f"{count / 1_000_000:,.1f} MB"
