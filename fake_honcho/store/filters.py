"""Honcho's filter language, compiled to a predicate over stored rows.

Follows ``src/utils/filter.py`` of the server: ``AND``/``OR``/``NOT`` lists (``NOT``
is ``IS NOT TRUE`` per sub-filter, AND-ed), operator objects (``gte lte gt lt ne in
contains icontains``), ``"*"`` matching everything, ``null`` as ``IS NULL``, a bare
list as ``in`` on plain columns, and ``metadata`` as JSONB containment with operator
objects allowed per metadata key. Keys and values are checked while compiling, so a
bad filter is a 422 whatever the data, with the server's texts.

SQL's three-valued logic is kept where it shows: a comparison with a missing value is
unknown (a predicate answers None, which selects nothing), and ``AND``/``OR`` combine
unknowns as SQL does.

Where server versions differ the compiler takes a :class:`Dialect`, chosen by
:func:`dialect_for` from whether the version speaks ``Feature.STRICT_FILTERS``: 3.1
(#947) negates with ``IS NOT TRUE`` and compares ``ne`` with ``IS DISTINCT FROM``, so
rows whose column is unset survive a negation (3.0.12: plain ``NOT`` and ``<>``, which
drop them); 3.1 refuses a value outside a closed column's set (``level``). 3.0.12 binds
an operand as it comes, so one of a type the column does not take fails in the database:
with ``real_bugs="reproduce"`` (:func:`dialect_for`) that is its 500 (register entry
``real-filter-errors-500``), otherwise the 422 3.1 answers. Numbers compare as
PostgreSQL compares them (``fake_honcho.store.filter_numbers``); metadata text PostgreSQL
cannot read as a number is its 500 when reproducing (``real-numeric-filter-500``), and
matches nothing otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from typing import Any

from fake_honcho.errors import HonchoError, UnhandledError
from fake_honcho.store.filter_numbers import SQL_TESTS, CastError, Key, bind_metadata_operand
from fake_honcho.store.filter_numbers import key as number_key
from fake_honcho.store.state import Row
from fake_honcho.versions import Feature, HonchoVersion

#: True, False, or None for SQL's unknown (a comparison with a missing value).
Predicate = Callable[[Row], bool | None]

COMPARISON_OPERATORS = frozenset({"gte", "lte", "gt", "lt", "ne", "in", "contains", "icontains"})
NUMERIC_OPERATORS = frozenset({"gte", "lte", "gt", "lt", "ne"})
MAX_DEPTH = 5

# External key -> (internal column name, python type of the column).
_COLUMNS: dict[str, tuple[str, type]] = {
    "id": ("name", str),
    "created_at": ("created_at", datetime),
    "is_active": ("is_active", bool),
    "workspace_id": ("workspace_name", str),
    "session_id": ("session_name", str),
    "peer_id": ("peer_name", str),
    "metadata": ("h_metadata", dict),
    "token_count": ("token_count", int),
    "observer_id": ("observer", str),
    "observed_id": ("observed", str),
    "level": ("level", str),
    "content": ("content", str),
    "times_derived": ("times_derived", int),
    "source_ids": ("source_ids", list),
}

GENERIC_KEYS = (
    "id",
    "created_at",
    "is_active",
    "workspace_id",
    "session_id",
    "peer_id",
    "metadata",
)
MESSAGE_KEYS = ("workspace_id", "session_id", "peer_id", "token_count", "created_at", "metadata")


class Model:
    """What a filter may name for one resource: its allowed keys and real columns.

    ``linked_sources``: ``source_ids`` is read as pull request 952's links between
    conclusions (3.2), not as the JSONB column it is in 3.1. ``raw_keys``: any other key
    is looked up as a column of the table (Honcho's documents), so an unknown one is a
    column that does not exist rather than one that is not allowed.
    """

    def __init__(
        self,
        name: str,
        allowed: tuple[str, ...],
        columns: tuple[str, ...],
        *,
        linked_sources: bool = False,
        raw_keys: bool = False,
    ) -> None:
        self.name = name
        self.allowed = allowed
        self.columns = frozenset(columns)
        self.linked_sources = linked_sources
        self.raw_keys = raw_keys


WORKSPACE = Model("Workspace", GENERIC_KEYS, ("id", "created_at", "metadata"))
PEER = Model("Peer", GENERIC_KEYS, ("id", "created_at", "workspace_id", "metadata"))
SESSION = Model(
    "Session", GENERIC_KEYS, ("id", "created_at", "is_active", "workspace_id", "metadata")
)
MESSAGE = Model("Message", MESSAGE_KEYS, MESSAGE_KEYS)
# Conclusions are Honcho's `documents`; besides the documented keys the server falls
# back to raw columns (`id`, `level`, `content`, `created_at`, `times_derived`).
# `observer`/`observed` are renamed to `observer_id`/`observed_id` by the conclusions
# routes before compiling.
CONCLUSION_KEYS = (
    "session_id",
    "workspace_id",
    "observer_id",
    "observed_id",
    "metadata",
    "id",
    "level",
    "content",
    "created_at",
    "times_derived",
)
CONCLUSION = Model("Document", CONCLUSION_KEYS, CONCLUSION_KEYS, raw_keys=True)
# 3.1's strict filters reach the raw `source_ids` column too, as JSONB (3.0.12: a 500).
SOURCED_CONCLUSION = Model(
    "Document", (*CONCLUSION_KEYS, "source_ids"), (*CONCLUSION_KEYS, "source_ids"), raw_keys=True
)
# From 3.2 (pull request 952) `source_ids` is membership in the list of conclusions a
# conclusion was derived from (see `_source_ids`).
ATTRIBUTED_CONCLUSION = Model(
    "Document",
    (*CONCLUSION_KEYS, "source_ids"),
    (*CONCLUSION_KEYS, "source_ids"),
    linked_sources=True,
    raw_keys=True,
)


@dataclass(frozen=True)
class Dialect:
    """How one server version's filter builder differs from another's."""

    null_safe_negation: bool
    """``NOT`` is ``IS NOT TRUE`` and ``ne`` is ``IS DISTINCT FROM`` (3.1, #947)."""
    closed_values: bool
    """A value outside a closed column's set is a 422 (3.1)."""
    numbers_only_ranges: bool
    """``gte lte gt lt ne`` on a text column cast their operand to a number first, so a
    word is a 422 (3.0.12; a number fails in the database, a declared 500)."""
    exact_numbers: bool
    """An integer column's operand binds exactly (``Decimal``; a float stays a float) where
    3.0.12 binds ``float(value)``: a number string such as ``"sNaN"`` is then numeric's
    NaN, not a 422 (3.1)."""
    raw_binds: bool
    """Operands are bound as they come, so one of a type the column does not take fails
    in the database (3.0.12; :func:`_legacy_bind_fails`)."""
    reproduce_bugs: bool = False
    """The server's failures are answered as its 500s (``real_bugs="reproduce"``)."""


LEGACY = Dialect(
    null_safe_negation=False,
    closed_values=False,
    numbers_only_ranges=True,
    exact_numbers=False,
    raw_binds=True,
)
"""Honcho 3.0.12's filters."""
STRICT = Dialect(
    null_safe_negation=True,
    closed_values=True,
    numbers_only_ranges=False,
    exact_numbers=True,
    raw_binds=False,
)
"""Honcho 3.1's filters (``Feature.STRICT_FILTERS``)."""

#: Columns whose values come from a closed set, and the set (the strict dialect refuses others).
CLOSED_VALUES: dict[str, frozenset[str]] = {
    "level": frozenset({"explicit", "deductive", "inductive", "contradiction"}),
}


@cache  # every list and search request asks: dataclasses.replace costs 2 µs each time
def dialect_for(version: HonchoVersion, real_bugs: str) -> Dialect:
    """The filter dialect ``version`` speaks; with ``real_bugs="reproduce"`` its failures
    are its 500s."""
    dialect = STRICT if version.speaks(Feature.STRICT_FILTERS) else LEGACY
    return replace(dialect, reproduce_bugs=real_bugs == "reproduce")


def filter_error(detail: str) -> HonchoError:
    return HonchoError(422, detail)


FILTER_BUG = "real-filter-errors-500"
CAST_BUG = "real-numeric-filter-500"


def _binds(kind: type, value: Any) -> bool:
    """Whether the database driver takes ``value`` for a parameter of a ``kind`` column
    (asyncpg checks the Python type; a JSON value is never a datetime)."""
    if value is None or kind is dict:
        return True
    if kind is int:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, kind)


def _legacy_bind_fails(kind: type, operator: str, operand: Any) -> bool:
    """Whether 3.0.12's filter builder hands the database a condition it fails on:
    ``src/utils/filter.py`` casts a range operand with ``float()`` (a TypeError escapes
    it), binds ``in`` members and an equality operand as given, and builds ILIKE on any
    column. A datetime string it validates first (a 422), so it binds as a datetime."""
    if kind is datetime and isinstance(operand, str) and operator not in ("in", "eq"):
        return operator in ("contains", "icontains")  # ILIKE on a timestamp
    if operator in NUMERIC_OPERATORS:
        try:
            number = float(operand)
        except ValueError:
            return False  # its own 422: Invalid numeric value
        except (TypeError, OverflowError):  # escapes the builder: unhandled
            return True
        return not _binds(kind, number)
    if operator == "in":
        if not isinstance(operand, list):
            return False  # its own 422
        if kind is datetime:
            return any(not isinstance(item, str) and item is not None for item in operand)
        return not all(_binds(kind, item) for item in operand)
    if operator in ("contains", "icontains"):
        return kind not in (str, dict)
    return not _binds(kind, operand)  # equality


#: The database failures 3.0.12's builder has set up so far in the filter being compiled:
#: its own 422s come first (it builds the whole condition before the query runs).
_FAILURES: ContextVar[list[str]] = ContextVar("filter_failures")


def _fails_in_database(dialect: Dialect, failing: bool = True) -> bool:
    """Note a condition 3.0.12's database fails on, when reproducing; True when noted (the
    caller then builds nothing for it), False to go on to the corrected 422."""
    if failing and dialect.raw_binds and dialect.reproduce_bugs:
        _FAILURES.get().append(FILTER_BUG)
        return True
    return False


def compile_filter(
    filters: dict[str, Any] | None, model: Model, dialect: Dialect = LEGACY
) -> Predicate | None:
    """A predicate for ``filters`` (``None`` when it selects everything)."""
    if filters is None:
        return None
    failures: list[str] = []
    token = _FAILURES.set(failures)
    try:
        predicate = _compile(filters, model, 0, dialect)
    finally:
        _FAILURES.reset(token)
    if failures:
        raise UnhandledError(failures[0])
    return predicate


def matches_all(predicate: Predicate | None, row: Row) -> bool:
    return predicate is None or predicate(row) is True


def _compile(filters: Any, model: Model, depth: int, dialect: Dialect) -> Predicate | None:
    if depth > MAX_DEPTH:
        raise filter_error("Filter nesting exceeds maximum depth of 5")
    if not isinstance(filters, dict):
        raise filter_error("Invalid filter configuration")
    parts: list[Predicate] = []
    for logical in ("AND", "OR", "NOT"):
        if logical not in filters:
            continue
        value = filters[logical]
        if logical == "NOT" and value is None:
            raise filter_error("NOT operator cannot be None")
        if not isinstance(value, list):
            raise filter_error(f"{logical} operator must contain a list, got {_type_name(value)}")
        subs = [
            p for p in (_compile(sub, model, depth + 1, dialect) for sub in value) if p is not None
        ]
        if not subs:
            continue
        if logical == "AND":
            parts.append(_all(subs))
        elif logical == "OR":
            parts.append(_any(subs))
        else:
            parts.append(_none(subs) if dialect.null_safe_negation else _not_each(subs))
    for key, value in filters.items():
        if key in ("AND", "OR", "NOT"):
            continue
        condition = _field(key, value, model, dialect)
        if condition is not None:
            parts.append(condition)
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else _all(parts)


def _all(parts: list[Predicate]) -> Predicate:
    """SQL's ``AND``: false if any is false, else unknown if any is unknown."""
    return _three_valued(parts, decisive=False)


def _any(parts: list[Predicate]) -> Predicate:
    """SQL's ``OR``: true if any is true, else unknown if any is unknown."""
    return _three_valued(parts, decisive=True)


def _three_valued(parts: list[Predicate], *, decisive: bool) -> Predicate:
    """``decisive`` if any part is, else unknown (None) if any part is, else ``not decisive``."""

    def predicate(row: Row) -> bool | None:
        unknown = False
        for part in parts:
            value = part(row)
            if value is decisive:
                return decisive
            unknown = unknown or value is None
        return None if unknown else not decisive

    return predicate


def _none(parts: list[Predicate]) -> Predicate:
    """``NOT [...]`` of the strict dialect: each sub-filter ``IS NOT TRUE``, AND-ed."""
    return lambda row: not any(p(row) is True for p in parts)


def _not_each(parts: list[Predicate]) -> Predicate:
    """``NOT [...]`` of the legacy dialect: plain ``NOT`` of each, AND-ed (unknown stays)."""
    return _all([_negated(part) for part in parts])


def _negated(part: Predicate) -> Predicate:
    def predicate(row: Row) -> bool | None:
        value = part(row)
        return None if value is None else not value

    return predicate


def _contains(key: str, wanted: Any) -> Predicate:
    def predicate(row: Row) -> bool | None:
        value = row.get(key)
        return None if value is None else jsonb_contains(value, wanted)

    return predicate


def _text_contains(key: str, pattern: re.Pattern[str]) -> Predicate:
    def predicate(row: Row) -> bool | None:
        value = row.get(key)
        return None if value is None else _text_matches(value, pattern)

    return predicate


def _field(key: str, value: Any, model: Model, dialect: Dialect) -> Predicate | None:
    if key not in model.allowed and not model.raw_keys:
        raise filter_error(
            f"Column '{key}' is not allowed to be filtered on or does not exist on {model.name}"
        )
    if key not in model.columns:
        raise filter_error(f"Column '{key}' does not exist on {model.name}")
    column, kind = _COLUMNS[key]
    if kind is list:
        if model.linked_sources:
            return _source_ids(key, value)
        kind = dict  # the JSONB column itself, whose bare list is an `in` as on other columns
        value = {"in": value} if isinstance(value, list) else value
    if _is_wildcard(value):
        return None
    if value is None:
        return lambda row: row.get(key) is None
    if isinstance(value, list) and kind is not dict:
        value = {"in": value}
    if isinstance(value, dict):
        if any(op in COMPARISON_OPERATORS for op in value):
            return _comparisons(key, column, kind, value, dialect)
        if kind is dict:
            return _metadata_fields(key, value, dialect)
        if _fails_in_database(dialect):  # 3.0.12: the column equals a dict
            return None
        raise filter_error(
            f"Invalid filter for column '{key}': unsupported operator(s) {sorted(value)}. "
            f"Expected one of {sorted(COMPARISON_OPERATORS)} or a scalar value."
        )
    scalar_containment = kind is dict and not isinstance(value, list)
    if _fails_in_database(dialect, scalar_containment or _legacy_bind_fails(kind, "eq", value)):
        return None
    operand = _coerce(column, kind, value, dialect=dialect)
    if kind is dict:
        return _contains(key, operand)
    return _compare(key, kind, "eq", operand)


def _source_ids(key: str, value: Any) -> Predicate | None:
    """A ``source_ids`` filter as pull request 952 reads it: a string is membership, a
    bare list needs every entry, ``{"contains": id}`` is membership and ``{"in": [...]}``
    any entry; ``"*"`` matches everything, and nothing else is accepted."""

    def member(wanted: Any) -> Predicate:
        if not isinstance(wanted, str) or not wanted:
            raise filter_error("source_ids filter entries must be non-empty strings")
        return lambda row: wanted in (row.get(key) or ())

    if _is_wildcard(value):
        return None
    if isinstance(value, str):
        return member(value)
    if isinstance(value, list):
        if "*" in value:
            return None
        everyone = [member(item) for item in value]
        return _all(everyone) if everyone else None
    if isinstance(value, dict):
        parts: list[Predicate] = []
        for operator, operand in value.items():
            if _is_wildcard(operand):
                continue
            if operator == "contains":
                parts.append(member(operand))
            elif operator == "in":
                if not isinstance(operand, list):
                    raise filter_error(
                        f"Invalid value for 'in' operator: {operand}. Expected an iterable"
                    )
                if "*" in operand:
                    continue
                anyone = [member(item) for item in operand]
                if anyone:
                    parts.append(_any(anyone))
            else:
                raise filter_error(f"Operator '{operator}' is not supported on source_ids")
        return _all(parts) if parts else None
    raise filter_error(f"Invalid source_ids filter value: {value}")


def _comparisons(
    key: str, column: str, kind: type, comparisons: dict[str, Any], dialect: Dialect
) -> Predicate | None:
    parts: list[Predicate] = []
    for operator, operand in comparisons.items():
        if operator not in COMPARISON_OPERATORS:
            raise filter_error(f"Unsupported comparison operator: {operator}")
        if _is_wildcard(operand):
            continue
        legacy_date = dialect.raw_binds and kind is datetime and isinstance(operand, str)
        if legacy_date and parse_datetime(operand) is None:  # 3.0.12 validates it first
            raise filter_error(f"Invalid datetime value: {operand}")
        if _fails_in_database(dialect, _legacy_bind_fails(kind, operator, operand)):
            continue
        if operand is None and dialect.raw_binds and operator in ("contains", "icontains"):
            operand = "None"  # 3.0.12 matches str(value)
        if operand is None:
            if operator != "ne":
                raise filter_error(
                    f"Operator '{operator}' does not accept null. Use {{\"ne\": null}} for a "
                    "not-null check, or null on its own for a null check."
                )
            parts.append(lambda row: row.get(key) is not None)
            continue
        if operator == "in":
            if not isinstance(operand, list):
                raise filter_error(
                    f"Invalid value for 'in' operator: {operand}. Expected an iterable "
                    f"(list, tuple, set), got {_type_name(operand)}"
                )
            if "*" in operand:
                continue
            if dialect.raw_binds and kind is datetime:
                for item in operand:
                    if isinstance(item, str) and parse_datetime(item) is None:
                        raise filter_error(f"Invalid datetime value in list: {item}")
            members = [
                None
                if item is None and dialect.raw_binds
                else _coerce(column, kind, item, operator, dialect)
                for item in operand
            ]
            parts.append(_membership(key, kind, members))
            continue
        if dialect.numbers_only_ranges and kind in (str, bool) and operator in NUMERIC_OPERATORS:
            _check_number_word(operand)
        coerced = _coerce(column, kind, operand, operator, dialect)
        if operator in ("contains", "icontains"):
            if kind is dict:
                parts.append(_contains(key, coerced))
            else:
                parts.append(_text_contains(key, _literal_pattern(str(operand))))
            continue
        if operator == "ne" and dialect.null_safe_negation:
            operator = "distinct"
        parts.append(_compare(key, kind, operator, coerced))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else _all(parts)


def _literal_pattern(text: str) -> re.Pattern[str]:
    """``ILIKE '%text%'`` with the operand escaped, as the server builds it."""
    return re.compile(re.escape(text), re.IGNORECASE | re.DOTALL)


def _text_matches(value: Any, pattern: re.Pattern[str]) -> bool:
    return isinstance(value, str) and pattern.search(value) is not None


def _membership(key: str, kind: type, members: list[Any]) -> Predicate:
    if kind is datetime:
        return lambda row: None if (v := _row_datetime(row.get(key))) is None else v in members
    if kind is int:
        return lambda row: (
            None if (v := row.get(key)) is None else number_key(Decimal(v)) in members
        )
    allowed = set(members)
    return lambda row: None if (v := row.get(key)) is None else v in allowed


def _compare(key: str, kind: type, operator: str, operand: Any) -> Predicate:
    def read(row: Row) -> Any:
        value = row.get(key)
        if value is None:
            return None
        if kind is datetime:
            return _row_datetime(value)
        if kind is int:
            return number_key(Decimal(value))
        return value

    return _operator(read, operator, operand)


def _operator(read: Callable[[Row], Any], operator: str, operand: Any) -> Predicate:
    if operator == "distinct":  # IS DISTINCT FROM: a missing value differs from any operand
        return lambda row: read(row) != operand
    test: Callable[[Any, Any], bool] = {
        "eq": lambda a, b: a == b,
        "ne": lambda a, b: a != b,
        "gte": lambda a, b: a >= b,
        "lte": lambda a, b: a <= b,
        "gt": lambda a, b: a > b,
        "lt": lambda a, b: a < b,
    }[operator]

    def predicate(row: Row) -> bool | None:
        value = read(row)
        if value is None:
            return None
        try:
            return test(value, operand)
        except TypeError:
            return False

    return predicate


def _coerce(
    column: str, kind: type, value: Any, operator: str = "", dialect: Dialect = LEGACY
) -> Any:
    """The server's ``_coerce_operand``: bind ``value`` to the column's type or refuse."""
    if kind is dict:
        if operator in ("", "contains") and isinstance(value, dict | list):
            return value
        raise filter_error(
            f"Invalid filter for column '{column}': a JSONB column takes an object, "
            "optionally under 'contains'"
        )
    if operator in ("contains", "icontains"):
        if kind is not str:
            raise filter_error(
                f"Operator '{operator}' requires a text column, but '{column}' is {kind.__name__}"
            )
        return value
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise filter_error(
            f"Invalid value for column '{column}': expected true or false, got {_type_name(value)}"
        )
    if kind is datetime:
        if isinstance(value, str):
            parsed = parse_datetime(value)
            if parsed is None:
                raise filter_error(f"Invalid datetime value: {value}")
            return parsed
        raise filter_error(
            f"Invalid value for column '{column}': expected a datetime, got {_type_name(value)}"
        )
    if kind is int:
        return _numeric(value, exact=dialect.exact_numbers)
    if not isinstance(value, str):
        raise filter_error(
            f"Invalid value for column '{column}': expected a string, got {_type_name(value)}"
        )
    if dialect.closed_values:
        _check_closed(column, value)
    return value


def _check_number_word(operand: Any) -> None:
    """The legacy dialect: a word compared with a text column fails Python's ``float()``."""
    if isinstance(operand, str):
        try:
            float(operand)
        except ValueError:
            raise filter_error(
                f"Invalid numeric value: {operand}. Expected a number, got str"
            ) from None


def _check_closed(column: str, value: str) -> None:
    """The strict dialect: a closed column takes only a value of its set."""
    allowed = CLOSED_VALUES.get(column)
    if allowed is not None and value not in allowed:
        raise filter_error(
            f"Invalid value for column '{column}': {value!r}. Expected one of {sorted(allowed)}"
        )


def _numeric(value: Any, *, exact: bool) -> Key:
    """A number compared with an integer column, bound as the server binds it: 3.0.12 as
    ``float(value)``; with ``exact`` (3.1) a float stays a float and anything else becomes
    a ``Decimal``. A bool or an int is exact either way (3.0.12 rounds an int past 2**53,
    and cannot bind one beyond a double at all: a 500)."""
    try:
        if isinstance(value, bool):
            return number_key(Decimal(int(value)))
        if isinstance(value, int):
            return number_key(Decimal(value))
        if isinstance(value, float) or not exact:
            return number_key(float(value))
        return number_key(Decimal(str(value)))
    except (TypeError, ValueError, ArithmeticError):
        raise filter_error(
            f"Invalid numeric value: {value}. Expected a number, got {_type_name(value)}"
        ) from None


def parse_datetime(text: str) -> datetime | None:
    """A filter's datetime: ISO 8601 (``Z`` or offset), naive values taken as UTC."""
    text = text.strip()
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _row_datetime(value: Any) -> datetime | None:
    return parse_datetime(value) if isinstance(value, str) else None


def _metadata_fields(key: str, conditions: dict[str, Any], dialect: Dialect) -> Predicate | None:
    """``{"metadata": {"k": v, "n": {"gte": 5}}}``: containment or ``->>`` comparisons."""
    parts: list[Predicate] = []
    for field, wanted in conditions.items():
        if isinstance(wanted, dict) and any(op in COMPARISON_OPERATORS for op in wanted):
            for operator, operand in wanted.items():
                condition = _metadata_comparison(key, field, operator, operand, dialect)
                if condition is not None:
                    parts.append(condition)
        elif not _is_wildcard(wanted):
            parts.append(_contains(key, {field: wanted}))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else _all(parts)


def _metadata_comparison(
    key: str, field: str, operator: str, operand: Any, dialect: Dialect
) -> Predicate | None:
    if operator not in COMPARISON_OPERATORS:
        raise filter_error(f"Unsupported comparison operator: {operator}")
    if _is_wildcard(operand):
        return None

    def text_of(row: Row) -> str | None:
        metadata = row.get(key)
        if not isinstance(metadata, dict) or field not in metadata:
            return None
        return _astext(metadata[field])

    if operator in NUMERIC_OPERATORS:
        return _metadata_numeric(text_of, operator, operand, dialect.reproduce_bugs)
    if operator == "in":
        if isinstance(operand, str) or not isinstance(operand, list | dict):
            raise filter_error(
                f"Invalid value for 'in' operator: {operand}. Expected an iterable "
                f"(list, tuple, set), got {_type_name(operand)}"
            )
        if "*" in operand:
            return None
        allowed = {str(item) for item in operand}
        return lambda row: None if (text := text_of(row)) is None else text in allowed
    pattern = _literal_pattern(str(operand))
    return lambda row: None if (text := text_of(row)) is None else _text_matches(text, pattern)


def _metadata_numeric(
    text_of: Callable[[Row], str | None], operator: str, operand: Any, reproduce_bugs: bool
) -> Predicate:
    """``metadata->>field`` against an operand bound as the server binds it
    (``fake_honcho.store.filter_numbers``): as numeric, double precision or text. SQL's NULL (no
    value) is unknown; a row whose text PostgreSQL cannot cast fails the whole query (its
    500 when ``reproduce_bugs``; else that row is unknown too). An operand it cannot bind
    is refused inside the two messages of its cast and comparison builders, and an int
    beyond 64 bits fails to bind at all."""
    bound = bind_metadata_operand(operand)
    if bound is None:
        kind = type(operand).__name__
        cause = f"Invalid value for numeric operator: {operand}. Expected a number, got {kind}"
        raise filter_error(
            f"Failed to build numeric comparison condition for operator '{operator}' with "
            f"value '{operand}': Failed to process numeric cast for value '{operand}': {cause}"
        )
    if reproduce_bugs and isinstance(operand, int) and not -(2**63) <= operand < 2**63:
        raise UnhandledError(CAST_BUG)
    test = SQL_TESTS[operator]

    def predicate(row: Row) -> bool | None:
        try:
            value = bound.read(text_of(row))
        except CastError:
            if reproduce_bugs:
                raise UnhandledError(CAST_BUG) from None
            return None
        return None if value is None else test(value, bound.value)

    return predicate


def _astext(value: Any) -> str | None:
    """PostgreSQL's ``jsonb ->> key`` rendering."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, separators=(", ", ": "))


def jsonb_contains(container: Any, contained: Any) -> bool:
    """PostgreSQL's ``@>`` on JSON values."""
    if isinstance(contained, dict):
        return isinstance(container, dict) and all(
            name in container and jsonb_contains(container[name], value)
            for name, value in contained.items()
        )
    if isinstance(contained, list):
        if not isinstance(container, list):
            return False
        return all(any(jsonb_contains(item, wanted) for item in container) for wanted in contained)
    if isinstance(container, list) and not isinstance(contained, dict | list):
        return False
    if isinstance(contained, bool) or isinstance(container, bool):
        return type(contained) is type(container) and contained == container
    return bool(container == contained)


def _is_wildcard(value: Any) -> bool:
    return isinstance(value, str) and value == "*"


def _type_name(value: Any) -> str:
    return {
        dict: "dict",
        list: "list",
        str: "str",
        int: "int",
        float: "float",
        bool: "bool",
        type(None): "NoneType",
    }.get(type(value), type(value).__name__)
