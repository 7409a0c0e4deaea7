"""``--state-file``: the store's change records in an append-only JSON-lines file.

Every ``Store.put``/``delete`` appends one line with a single ``write`` on an
``O_APPEND`` descriptor, inside the store's lock and so before any response that
depends on it is sent: a process killed with SIGKILL loses nothing it acknowledged
(the data is in the OS page cache; only a power cut could lose it). A request costs
the same however much is stored. Opening the file replays it into the store, then
rewrites it as a compact snapshot (one record per live row) through a temporary
file and an atomic rename; closing compacts again.

A sidecar ``<file>.lock`` (an advisory ``flock``, released by the kernel even on
SIGKILL) keeps a second process from interleaving its log with ours.

A corrupt file stops start-up with :class:`StateFileError` naming the file and line.
The one tolerated damage is a torn final line (no trailing newline) from a crash in
the middle of a write: it is dropped with a warning.
"""

from __future__ import annotations

import json
import os
import warnings
from contextlib import suppress
from pathlib import Path
from typing import Any

from fake_honcho.state import Key, Row, Store, decode_key, encode_key

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, single-process use only
    fcntl = None  # type: ignore[assignment]

__all__ = ["StateFile", "StateFileError"]

FORMAT = "fake-honcho-state"
VERSION = 1
HEADER = json.dumps({"format": FORMAT, "version": VERSION}, separators=(",", ":")) + "\n"


class StateFileError(Exception):
    """The state file cannot be used; start-up must stop rather than lose its contents."""


def _record(collection: str, key: Key, row: Row | None) -> bytes:
    record: dict[str, Any] = {"c": collection, "k": encode_key(key)}
    if row is not None:
        record["r"] = row
    return (json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def _apply(store: Store, record: Any) -> None:
    if not isinstance(record, dict) or not isinstance(record.get("c"), str):
        raise ValueError("not a change record")
    raw_key = record.get("k")
    if not isinstance(raw_key, str) and not (
        isinstance(raw_key, list) and all(isinstance(part, str) for part in raw_key)
    ):
        raise ValueError("bad key")
    key = decode_key(raw_key)
    if "r" not in record:
        store.delete(record["c"], key)
    elif isinstance(record["r"], dict):
        store.put(record["c"], key, record["r"])
    else:
        raise ValueError("row is not an object")


class StateFile:
    """Keeps ``store`` in ``path``: replays it now, then logs every change until ``close``."""

    def __init__(self, path: str | os.PathLike[str], store: Store) -> None:
        self.path = Path(path)
        self.store = store
        self._fd: int | None = None
        self._lock_fd = self._lock()
        try:
            with store.lock:
                self._replay()
                self._compact()
                self._fd = self._open_for_append()
                store.subscribe(self._on_change)
        except BaseException:
            os.close(self._lock_fd)
            raise

    def _lock(self) -> int:
        if self.path.is_dir():
            raise StateFileError(f"{self.path}: is a directory, not a state file")
        lock_path = self.path.with_name(self.path.name + ".lock")
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as error:
            raise StateFileError(f"{self.path}: cannot create lock file: {error}") from error
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as error:
                os.close(fd)
                raise StateFileError(
                    f"{self.path}: state file is in use by another process"
                ) from error
        return fd

    def _replay(self) -> None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as error:
            raise StateFileError(f"{self.path}: cannot read state file: {error}") from error
        if not data:
            return
        lines = data.split(b"\n")
        complete, torn = lines[:-1], lines[-1]
        if torn:
            try:
                json.loads(torn)
            except ValueError:
                warnings.warn(
                    f"{self.path}:{len(lines)}: dropping a torn final line (an interrupted write)",
                    RuntimeWarning,
                    stacklevel=3,
                )
            else:
                complete.append(torn)  # only the newline was lost
        if not complete:
            # A header torn by a crash during the very first write: nothing was acknowledged.
            return
        self._check_header(complete[0])
        for number, line in enumerate(complete[1:], start=2):
            try:
                _apply(self.store, json.loads(line))
            except ValueError as error:
                raise StateFileError(
                    f"{self.path}:{number}: corrupt state record ({error}); "
                    "refusing to start with partial state"
                ) from error

    def _check_header(self, line: bytes) -> None:
        try:
            header = json.loads(line)
        except ValueError:
            header = None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise StateFileError(f"{self.path}:1: not a fake-honcho state file")
        if header.get("version") != VERSION:
            raise StateFileError(
                f"{self.path}:1: unsupported state file version {header.get('version')!r}"
            )

    def _compact(self) -> None:
        """Rewrite the file as one record per live row (temp file, fsync, atomic rename)."""
        temporary = self.path.with_name(self.path.name + ".compacting")
        try:
            with open(temporary, "wb") as out:
                out.write(HEADER.encode())
                for collection in self.store.collections():
                    for key, row in self.store.items(collection):
                        out.write(_record(collection, key, row))
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        except OSError as error:
            raise StateFileError(f"{self.path}: cannot write state file: {error}") from error

    def _open_for_append(self) -> int:
        return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        if self._fd is None:
            return
        data = memoryview(_record(collection, key, new))
        while data:
            data = data[os.write(self._fd, data) :]

    def close(self) -> None:
        """Stop logging and leave a compact file behind. Idempotent."""
        with self.store.lock:
            if self._fd is None:
                return
            self.store.unsubscribe(self._on_change)
            os.close(self._fd)
            self._fd = None
            try:
                self._compact()
            finally:
                with suppress(OSError):
                    os.close(self._lock_fd)

    def __repr__(self) -> str:
        state = "open" if self._fd is not None else "closed"
        return f"<StateFile {str(self.path)!r} {state}>"
