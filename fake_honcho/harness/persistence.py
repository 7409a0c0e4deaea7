"""``--state-file``: the store's change records in an append-only JSON-lines file.

Every ``Store.put``/``delete`` appends one line with a single ``write`` on an
``O_APPEND`` descriptor, inside the store's lock and so before any response that
depends on it is sent: a process killed with SIGKILL loses nothing it acknowledged
(the data is in the OS page cache; only a power cut could lose it). A request costs
the same however much is stored. Opening the file replays it into the store, then
rewrites it as a compact snapshot (one record per live row) through a new temporary
file and an atomic rename; closing compacts again. The same format, compacted, is
what ``GET /_fake/state`` exports and ``PUT /_fake/state`` loads
(:func:`dump_state`, :func:`read_records`).

A sidecar ``<file>.lock`` (an advisory ``flock``, released by the kernel even on
SIGKILL) keeps a second process from interleaving its log with ours; it holds a
marker line, so a ``.lock`` file that is not ours is never taken over, and it is
removed at close.

The file is never rewritten unless it is a fake-honcho state file: anything else
stops start-up with :class:`StateFileError` naming the file and line, and leaves it
byte-identical. The tolerated damage is what a crash in the middle of a write
leaves: a torn final record (no trailing newline) is dropped with a warning, and a
file holding only a torn header (a prefix of it) counts as empty.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

from fake_honcho.deriver import OWNED_COLLECTIONS
from fake_honcho.http.keyring import ISSUED_KEYS
from fake_honcho.store.state import Key, Row, Store, compact_message, decode_key, encode_key

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, single-process use only
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "KNOWN_COLLECTIONS",
    "Record",
    "StateFile",
    "StateFileError",
    "apply_records",
    "dump_state",
    "read_records",
]

logger = logging.getLogger("fake_honcho.persistence")

FORMAT = "fake-honcho-state"
VERSION = 1
HEADER = json.dumps({"format": FORMAT, "version": VERSION}, separators=(",", ":")) + "\n"
LOCK_MARKER = b"fake-honcho state file lock"
RECORD_START = b'{"c":'  # how every record line this module writes begins

#: Every collection the fake stores. A new collection must be added here, or a state
#: file holding it refuses to load (tests/fake/test_persistence.py checks a workload).
KNOWN_COLLECTIONS: frozenset[str] = frozenset(
    {
        "workspaces",
        "peers",
        "sessions",
        "session_peers",
        "messages",
        "webhooks",
        ISSUED_KEYS,
        *OWNED_COLLECTIONS,
    }
)

Record = tuple[str, Key, Row | None]
"""One change: collection, key, and the new row (None: deleted)."""


class StateFileError(Exception):
    """The state file cannot be used; start-up must stop rather than lose its contents."""


def _record(collection: str, key: Key, row: Row | None) -> bytes:
    record: dict[str, Any] = {"c": collection, "k": encode_key(key)}
    if row is not None:
        record["r"] = row
    return (json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def dump_state(store: Store) -> Iterator[bytes]:
    """The store as a compact state file: the header, then one record per live row."""
    yield HEADER.encode()
    for collection in store.collections():
        for key, row in store.items(collection):
            yield _record(collection, key, row)


def _parse_record(record: Any, known: Collection[str]) -> Record:
    """A decoded record line, checked: ValueError when malformed, LookupError when unknown."""
    if not isinstance(record, dict) or not isinstance(record.get("c"), str):
        raise ValueError("not a change record")
    raw_key = record.get("k")
    if not isinstance(raw_key, str) and not (
        isinstance(raw_key, list) and all(isinstance(part, str) for part in raw_key)
    ):
        raise ValueError("bad key")
    row = record.get("r")
    if "r" in record and not isinstance(row, dict):
        raise ValueError("row is not an object")
    if record["c"] not in known:
        raise LookupError(f"unknown collection {record['c']!r}")
    return record["c"], decode_key(raw_key), row


def _check_header(source: str, line: bytes) -> None:
    try:
        header = json.loads(line)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise StateFileError(f"{source}:1: not a fake-honcho state file")
    if header.get("version") != VERSION:
        raise StateFileError(
            f"{source}:1: unsupported state file version {header.get('version')!r}"
        )


def read_records(
    data: bytes,
    source: str,
    *,
    torn_tail: bool = True,
    known: Collection[str] = KNOWN_COLLECTIONS,
) -> list[Record]:
    """Every record of a state file's bytes, checked before any is applied.

    Raises :class:`StateFileError` naming ``source`` and the line for anything but a
    state file. ``torn_tail`` tolerates what a crash mid-write leaves: a header cut
    short (the whole file a prefix of it: no records) or a final record cut short
    (dropped, with a warning); a final record missing only its newline is kept.
    """
    lines = data.split(b"\n")
    last = lines.pop()  # b"" when the data ends with a newline
    if not lines:
        if torn_tail and HEADER.encode().startswith(last):
            return []
        lines, last = [last], b""
    _check_header(source, lines[0])
    records = _fast_records(source, lines, known)
    if records is None:
        records = [
            _checked(source, number, line, known) for number, line in enumerate(lines[1:], start=2)
        ]
    if last:
        number = len(lines) + 1
        try:
            records.append(_checked(source, number, last, known))
        except StateFileError:
            if not (torn_tail and _torn_record(last)):
                raise
            logger.warning(
                "%s:%d: dropping a torn final line (an interrupted write)", source, number
            )
    return records


def _fast_records(source: str, lines: list[bytes], known: Collection[str]) -> list[Record] | None:
    """The records after the header, decoded in one ``json.loads`` (several times faster
    than a call per line); None when that fails, to find the bad line one line at a time."""
    try:
        decoded = json.loads(b"[" + b",".join(lines[1:]) + b"]")
    except ValueError:
        return None
    if len(decoded) != len(lines) - 1:
        return None  # a line held more than one value
    return [_checked(source, number, value, known) for number, value in enumerate(decoded, start=2)]


def _checked(source: str, number: int, line: bytes | Any, known: Collection[str]) -> Record:
    """One record (a line, or its already decoded value), or a StateFileError naming it."""
    try:
        return _parse_record(json.loads(line) if isinstance(line, bytes) else line, known)
    except LookupError as error:
        raise StateFileError(f"{source}:{number}: record names an {error.args[0]}") from None
    except ValueError as error:
        raise StateFileError(
            f"{source}:{number}: corrupt state record ({error}); refusing partial state"
        ) from None


def _torn_record(line: bytes) -> bool:
    """Whether ``line`` can be the start of a record this module wrote, cut short."""
    if not line.startswith(RECORD_START) and not RECORD_START.startswith(line):
        return False
    try:
        json.loads(line)
    except ValueError:
        return True
    return False  # complete JSON, so not cut short: it is simply wrong


def apply_records(store: Store, records: list[Record]) -> None:
    """Replay ``records`` into ``store`` (through ``put``/``delete``, so indexes follow)."""
    with store.lock:
        for collection, key, row in records:
            if row is None:
                store.delete(collection, key)
            else:
                store.put(
                    collection, key, compact_message(row) if collection == "messages" else row
                )


class StateFile:
    """Keeps ``store`` in ``path``: replays it now, then logs every change until ``close``."""

    def __init__(self, path: str | os.PathLike[str], store: Store) -> None:
        self.path = Path(path)
        self.store = store
        self._fd: int | None = None
        self._lock_path = self.path.with_name(self.path.name + ".lock")
        self._lock_fd: int | None = self._lock()
        created = not self.path.exists()
        try:
            with store.lock:
                apply_records(store, self._read())
                self._compact()
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                store.subscribe(self._on_change)
        except BaseException:
            if created:  # a start that failed leaves no new file behind
                self.path.unlink(missing_ok=True)
            self._unlock()
            raise

    # -- the lock file ---------------------------------------------------------------

    def _lock(self) -> int:
        if self.path.is_dir():
            raise StateFileError(f"{self.path}: is a directory, not a state file")
        directory = self._lock_path.parent
        if not directory.is_dir():
            raise StateFileError(
                f"{self.path}: cannot create lock file {self._lock_path}: "
                f"directory {directory} does not exist"
            )
        while True:
            try:
                fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError as error:
                raise StateFileError(
                    f"{self.path}: cannot create lock file {self._lock_path}: {error.strerror}"
                ) from error
            try:
                if self._take(fd):
                    return fd
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)  # another process removed the file between our open and lock

    def _take(self, fd: int) -> bool:
        """Lock ``fd`` and mark it ours; False when it is no longer the file at the path."""
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as error:
                raise StateFileError(
                    f"{self.path}: state file is in use by another process"
                ) from error
        try:
            current = os.stat(self._lock_path)
        except FileNotFoundError:
            return False
        if not os.path.samestat(os.fstat(fd), current):
            return False
        content = os.read(fd, len(LOCK_MARKER) + 64)
        if content and not content.startswith(LOCK_MARKER):
            raise StateFileError(
                f"{self.path}: {self._lock_path} exists and is not a fake-honcho lock file; "
                "refusing to touch it"
            )
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, LOCK_MARKER + f" (pid {os.getpid()})\n".encode())
        return True

    def _unlock(self) -> None:
        """Remove the lock file (while still holding it) and release it."""
        fd, self._lock_fd = self._lock_fd, None
        if fd is None:
            return
        try:
            if os.path.samestat(os.fstat(fd), os.stat(self._lock_path)):
                os.unlink(self._lock_path)
        except OSError:
            pass  # already gone, or the directory went away: nothing left to clean up
        finally:
            os.close(fd)

    # -- the log ---------------------------------------------------------------------

    def _read(self) -> list[Record]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as error:
            raise StateFileError(f"{self.path}: cannot read state file: {error}") from error
        return read_records(data, str(self.path))

    def _compact(self) -> None:
        """Rewrite the file as one record per live row (new temp file, fsync, atomic rename)."""
        temporary: str | None = None
        try:
            fd, temporary = tempfile.mkstemp(
                dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".compacting"
            )
            with open(fd, "wb") as out:
                out.writelines(dump_state(self.store))
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        except OSError as error:
            if temporary is not None and os.path.exists(temporary):
                os.unlink(temporary)
            raise StateFileError(f"{self.path}: cannot write state file: {error}") from error

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        if self._fd is None:
            return
        data = memoryview(_record(collection, key, new))
        while data:
            data = data[os.write(self._fd, data) :]

    def close(self) -> None:
        """Stop logging, leave a compact file behind, remove the lock file. Idempotent."""
        with self.store.lock:
            if self._fd is None:
                return
            self.store.unsubscribe(self._on_change)
            os.close(self._fd)
            self._fd = None
            try:
                self._compact()
            finally:
                self._unlock()

    def __repr__(self) -> str:
        state = "open" if self._fd is not None else "closed"
        return f"<StateFile {str(self.path)!r} {state}>"
