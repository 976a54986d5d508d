"""``row_chunks`` at its row limit, from both sides (issue 47 item 8).

Both backends split a batch for ``n_jobs`` threads with
:func:`reference.parallel.row_chunks`: contiguous chunks of at most ``max_rows`` rows (so
that Ctrl-C waits for one short C call at most). ``test_n_jobs.py`` checks that the chunks
cover the rows in order and that the outputs do not depend on them; here the size limit is
pinned: ``jobs * max_rows`` rows make ``jobs`` chunks of exactly ``max_rows``, one row more
makes more chunks, none longer than ``max_rows``.
"""

from __future__ import annotations

import pytest

from reference.parallel import row_chunks


@pytest.mark.parametrize("jobs", [1, 2, 3, 8])
@pytest.mark.parametrize("max_rows", [1, 5, 2048])
def test_chunks_never_exceed_max_rows_at_and_past_the_limit(jobs: int, max_rows: int) -> None:
    full = jobs * max_rows
    at = row_chunks(full, jobs, max_rows)
    assert at == [(k * max_rows, (k + 1) * max_rows) for k in range(jobs)]
    past = row_chunks(full + 1, jobs, max_rows)
    assert len(past) > jobs
    assert past[0][0] == 0 and past[-1][1] == full + 1
    assert all(a[1] == b[0] for a, b in zip(past, past[1:], strict=False))
    assert max(b - a for a, b in past) <= max_rows


def test_fewer_rows_than_threads_make_one_row_chunks() -> None:
    assert row_chunks(3, 8, 100) == [(0, 1), (1, 2), (2, 3)]
    assert row_chunks(1, 2, 100) == [(0, 1)]
