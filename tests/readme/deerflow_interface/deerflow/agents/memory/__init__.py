"""Stand-in package (see tests/readme/deerflow_interface/README.md)."""
