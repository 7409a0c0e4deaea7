"""``/_fake/faults``: the fault-injection control routes (see ``fake_honcho.faults``)."""

from fake_honcho.faults import routes

__all__ = ["routes"]
