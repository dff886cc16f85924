"""Digests of a job's scalar tags made together (`digests`) are each tag's own `digest`."""
from __future__ import annotations

import math

import numpy as np

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.digest import digest


def test_tags_of_one_layout_get_each_their_own_digest(tmp_path):
    # "loss", "acc" and "odd" are written every step (one event layout: shared step and wall
    # columns), "odd" with a NaN and an infinity; "lr" every third step, "one" once.
    run = tmp_path / "run"
    writer = SummaryWriter(run, timestamp=1_700_000_000, wall_time=1_700_000_000.0)
    for step in range(1, 61):
        writer.add_scalar("loss", 1.0 / step)
        writer.add_scalar("acc", 1.0 - 1.0 / (step + 1))
        writer.add_scalar("odd", math.nan if step == 7 else math.inf if step == 40 else float(step % 5))
        writer.add_scalar("ties", -0.0 if step % 4 == 2 else float(step % 4 == 0))  # the first min and max win
        if step % 3 == 0:
            writer.add_scalar("lr", 0.1 * step)
        if step == 30:
            writer.add_scalar("one", 2.5)
        writer.record(step, wall_time=1_700_000_000.0 + 2 * step + (step > 30) * step)
    writer.close()
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./run")
    expected = {tag: digest(series) for (plugin, tag), series in view.tags.items() if plugin == "scalar"}
    assert list(view.digests) == ["loss", "acc", "odd", "ties", "lr", "one"] == list(expected)
    for tag, made in expected.items():
        got = view.digests[tag]
        assert got is not None and made is not None
        for name in made.__dataclass_fields__:
            a, b = getattr(got, name), getattr(made, name)
            assert type(a) is type(b) and (np.asarray(a, dtype=float).tobytes() == np.asarray(b, dtype=float).tobytes()
                                           if name == "spark" else (a == b or (a != a and b != b))), (tag, name, a, b)
    # what differs between the tags is theirs, what they share is the same
    assert view.digests["odd"].nonfinite == 2 and view.digests["loss"].nonfinite == 0
    assert view.digests["ties"].min_step == 1 and view.digests["ties"].max_step == 4
    assert view.digests["lr"].first_step == 3 and view.digests["loss"].first_step == 1
    assert view.digests["one"].count == 1 and view.digests["one"].step_interval is None
    assert view.digests["loss"].step_interval == view.digests["acc"].step_interval == 3.0
    assert view.digests["lr"].last_wall == view.digests["loss"].last_wall == 1_700_000_180.0
