"""``/_fake/faults``: fault-injection control routes, outside ``/v3`` (see ``fake_honcho.faults``)."""

from fake_honcho.faults import routes

__all__ = ["routes"]
