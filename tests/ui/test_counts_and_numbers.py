"""Counts and numbers written one way across the UI: `1 job`, `0.07`."""
from __future__ import annotations


def test_one_job_and_one_file_are_singular(tmp_path):
    """The job list's progress line read "1 jobs · 1 file"; the landscape metadata read
    MindInsight's `7.000000e-02` where every other view reads 0.07."""
    from tui_insight.summary.formats.writer import SummaryWriter
    from tui_insight.summary.store.cache import SummaryCache
    from tui_insight.ui.common.format import count, value_text
    from tui_insight.ui.widgets.progress import progress_text

    with SummaryWriter(tmp_path / "run_a", timestamp=1_700_000_000) as writer:
        writer.add_scalar("loss", 1.0)
        writer.record(1)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    text = progress_text(cache, 0)
    assert text.startswith("1 job · 1 file · "), text
    assert count(2, "job") == "2 jobs" and count(0, "problem") == "0 problems"
    assert value_text("7.000000e-02") == "0.07" and value_text("Momentum") == "Momentum"
