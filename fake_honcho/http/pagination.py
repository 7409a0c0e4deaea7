"""``fastapi-pagination``'s ``Page``: query ``page`` (>= 1) and ``size`` (1..100, default 50).

An empty result is ``{"items": [], "total": 0, "page": 1, "size": 50, "pages": 0}``; a
page past the end has no items but the true ``total`` and ``pages``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import islice
from typing import Any, NamedTuple

from starlette.requests import Request

from fake_honcho.errors import UnhandledError
from fake_honcho.http.endpoint import fake_of, query_bool, query_int
from fake_honcho.http.render_memo import RenderMemo
from fake_honcho.http.wire import PublicRows
from fake_honcho.store.state import Row

DEFAULT_SIZE = 50
MAX_SIZE = 100
#: PostgreSQL's OFFSET is a bigint: a page whose offset passes it fails the real query.
MAX_OFFSET = 2**63 - 1
OFFSET_OVERFLOW = "real-page-beyond-int64-500"


class PageParams(NamedTuple):  # a tuple: one per list request, built quicker than a dataclass
    page: int = 1
    size: int = DEFAULT_SIZE
    reverse: bool = False
    #: Answer an offset beyond :data:`MAX_OFFSET` with the real server's 500.
    overflow_fails: bool = False

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.size


def page_params(request: Request, *, with_reverse: bool = True) -> PageParams:
    """``page``/``size`` (and ``reverse`` on the POST list routes) from the query string."""
    page = query_int(request, "page", 1, ge=1)
    size = query_int(request, "size", DEFAULT_SIZE, ge=1, le=MAX_SIZE)
    reverse = query_bool(request, "reverse", False) if with_reverse else False
    assert page is not None and size is not None
    fails = fake_of(request).real_bugs == "reproduce"
    return PageParams(page=page, size=size, reverse=reverse, overflow_fails=fails)


def page_of(
    rows: Sequence[Any],
    params: PageParams,
    render: Callable[[Any], Any] | None = None,
    *,
    fetch: Callable[[list[Any]], list[Row]] | None = None,
    memo: RenderMemo | None = None,
) -> dict[str, Any]:
    """One page of ``rows`` (already filtered and in order; ``reverse`` applied here).

    Items are ``render(row)``; without ``render`` they are the stored rows themselves,
    sent without internal keys (:class:`PublicRows`, reusing JSON kept in ``memo``).
    ``fetch`` turns the page's rows into stored rows first (a page of ids: only the
    page's rows are read).
    """
    total = len(rows)
    start = params.offset
    if start > MAX_OFFSET and params.overflow_fails:
        raise UnhandledError(OFFSET_OVERFLOW)
    if params.reverse:
        # Walk from the end without copying the whole sequence.
        stop_index = total - start
        first = max(stop_index - params.size, 0)
        window = [rows[i] for i in range(stop_index - 1, first - 1, -1)] if stop_index > 0 else []
    elif start < total:
        # islice, not a slice: a deque of ids (the message index) pages without a copy.
        window = list(islice(rows, start, start + params.size))
    else:
        # Past the end (even beyond sys.maxsize, which islice refuses): an empty page.
        window = []
    stored = window if fetch is None else fetch(window)
    return {
        "items": PublicRows(stored, memo=memo) if render is None else [render(r) for r in stored],
        "total": total,
        "page": params.page,
        "size": params.size,
        "pages": -(-total // params.size),
    }
