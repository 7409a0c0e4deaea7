"""The divergence register's page, ``docs/divergences.md`` (``python -m fake_honcho.divergences``).

The register itself (its entries, their probes, the contract tests they skip) is
``fake_honcho.harness.divergences``; this module renders it for users.
"""

from __future__ import annotations

from fake_honcho.harness.divergences import DIVERGENCES, Divergence

__all__ = ["render_markdown"]


def _applies_line(entry: Divergence) -> str:
    versions = ", ".join(entry.versions)
    fixed = (
        f" (no divergence from the version serving `{entry.fixed_by}` on)" if entry.fixed_by else ""
    )
    since = f" (from the version serving `{entry.since}` on)" if entry.since else ""
    return f"- **Applies to:** {versions}{fixed}{since}."


#: How a reproduced entry's ``fake`` text introduces what ``real_bugs="correct"`` answers.
CORRECTED = "corrected: "


def corrected_line(entry: Divergence) -> str | None:
    """What ``real_bugs="correct"`` changes, for a ``real-bug`` entry (None for others)."""
    if entry.kind != "real-bug":
        return None
    if not entry.reproduced:
        changes = "nothing: the fake answers as above with either setting"
    else:
        changes = entry.fake.split(CORRECTED, 1)[1]
    return f'- **With `real_bugs="correct"`:** {changes}.'


def render_markdown() -> str:
    """The user-facing page, ``docs/divergences.md``."""
    lines = [
        "# Where the fake differs from a real Honcho",
        "",
        "And, for its newer versions, what it models from today's SDKs because no server"
        " here shows it (kind `modelled`: not verified; the Honcho version each entry is"
        " about is in its first line).",
        "",
        "Generated from the register (`fake_honcho/harness/divergences.py`) by"
        " `python -m fake_honcho.divergences`;"
        " do not edit by hand.",
        "Each entry is checked: `tests/fidelity/test_divergences.py` runs its probe against"
        " the fake (and against a real server with `--honcho-url`, for the entries that apply"
        " to the version that server is probed to serve) and fails once the difference is gone.",
        "Contract tests an entry names are skipped against a real server the entry applies to,"
        " with the entry's id as the reason. A real-server bug a later version fixed is no"
        " divergence at that version.",
        "",
        "A `real-bug` entry marked *reproduced* is no difference by default: the fake answers"
        ' as the real server does (`real_bugs="reproduce"`), 500s included, and'
        ' `FakeHoncho(real_bugs="correct")` (`fake-honcho --real-bugs correct`) gives the'
        " corrected answer each entry's last line names: a clear 4xx where the server"
        " fails, never a 500, with the state unchanged.",
        "",
        "| id | kind | versions | summary |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| [`{e.id}`](#{e.id}) | {e.kind}{' (reproduced)' if e.reproduced else ''} |"
        f" {', '.join(e.versions)} | {e.summary} |"
        for e in DIVERGENCES
    ]
    for entry in DIVERGENCES:
        lines += [
            "",
            f"## {entry.id}",
            "",
            _applies_line(entry),
            f"- **Real {entry.first_version}:** {entry.real}.",
            f"- **Fake:** {entry.fake}."
            + (
                " Choose with `FakeHoncho(real_bugs=...)` / `--real-bugs`."
                if entry.reproduced
                else ""
            ),
            f"- **Why the fake keeps it:** {entry.reason}.",
            f"- **Evidence:** {entry.evidence}.",
        ]
        corrected = corrected_line(entry)
        if corrected is not None:
            lines.append(corrected)
        if entry.affects:
            names = ", ".join(f"`{name}`" for name in entry.affects)
            lines.append(f"- **Skipped on a real server:** {names}.")
    return "\n".join(lines) + "\n"
