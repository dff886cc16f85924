"""Sizes and times from a remote listing become a stat without raising, whatever they are: a
hostile or broken remote may list an mtime of inf or NaN, a negative size or one past int64."""
import math

import pytest

from tui_insight.summary.sources.local import ListedFiles, RangeCache


def unused_fetch(path, start, end):
    raise AssertionError("nothing is read")


@pytest.mark.parametrize("size,mtime,shown", [
    (10, math.inf, (10, 0.0)), (10, math.nan, (10, 0.0)), (10, -math.inf, (10, 0.0)), (10, 1e300, (10, 0.0)),
    (-5, 1700000000.5, (0, 1700000000.5)), (2 ** 70, 1700000000.0, (0, 1700000000.0)),
    (10, 1700000000.25, (10, 1700000000.25)),
])
def test_a_listed_file_s_numbers_make_a_stat(size, mtime, shown):
    files = ListedFiles(RangeCache(unused_fetch))
    files.update([("/logs/run/events.summary.1", size, mtime, mtime)])
    st = files.stat("/logs/run/events.summary.1")
    assert (st.st_size, st.st_mtime) == shown
    assert st.st_mtime_ns == int(shown[1] * 1e9)
