"""Which job list columns fit a width (`fit_columns`), without a terminal."""
from __future__ import annotations

from tui_insight.ui.state.job_columns import COLUMNS, ID_MIN_WIDTH, SORTABLE, fit_columns, next_column, state_glyph

# Natural widths of a 1,000-run sweep's columns (header or widest cell).
WIDTHS = {"mark": 1, "id": 11, "state": 2, "health": 8, "live": 4, "value": 8, "best": 13, "trend": 10,
          "change": 9, "speed": 7, "since": 5, "step": 9, "updated": 7, "tags": 12, "files": 13}
EMPTY = ("live", "since")


def test_80_columns_keep_the_job_health_and_headline_and_drop_files_tags_updated_first():
    fit = fit_columns(WIDTHS, 78, ("health",), EMPTY)
    assert fit.keys == ("mark", "id", "state", "health", "value", "best", "trend", "change")
    assert fit.width(WIDTHS) <= 78 and fit.id_width == 11


def test_160_columns_show_every_column_that_says_something():
    fit = fit_columns(WIDTHS, 158, ("health",), EMPTY)
    assert fit.keys == tuple(c.key for c in COLUMNS if c.key not in EMPTY)


def test_columns_go_in_priority_order_as_the_width_shrinks():
    dropped = []
    shown = set(WIDTHS) - set(EMPTY)
    for width in range(160, 40, -1):
        keys = set(fit_columns(WIDTHS, width, (), EMPTY).keys)
        dropped += sorted(shown - keys)
        shown = keys
    assert dropped[:3] == ["files", "tags", "updated"]
    assert dropped.index("trend") > dropped.index("change") > dropped.index("speed")


def test_an_empty_column_collapses_unless_sorted_by_or_telling_even_empty():
    assert "live" not in fit_columns(WIDTHS, 300, (), ("live",)).keys
    assert "live" in fit_columns(WIDTHS, 300, ("live",), ("live",)).keys  # the sort column stays
    assert "health" in fit_columns(WIDTHS, 300, (), ("health",)).keys  # no badge: worth seeing


def test_the_sort_and_cursor_columns_are_shown_at_any_width_and_others_make_room():
    fit = fit_columns(WIDTHS, 60, ("files", "updated"), EMPTY)
    assert {"mark", "id", "files", "updated"} <= set(fit.keys)
    assert fit.width(WIDTHS) <= 60


def test_a_long_job_name_is_cut_before_telling_columns_go():
    widths = {**WIDTHS, "id": 40}
    fit = fit_columns(widths, 78, ("health",), EMPTY)
    assert {"value", "best", "trend"} <= set(fit.keys)
    assert ID_MIN_WIDTH <= fit.id_width < 40 and fit.width(widths) <= 78
    # Too narrow for even the kept columns: the name keeps ID_MIN_WIDTH (the edge cuts the rest).
    tiny = fit_columns(widths, 20, (), EMPTY)
    assert tiny.keys == ("mark", "id") and tiny.id_width == ID_MIN_WIDTH


def test_the_column_cursor_moves_by_column_and_stops_at_the_ends():
    assert next_column("health", 1) == "live"
    assert next_column("health", 1, ("id", "health", "value")) == "value"
    assert next_column(SORTABLE[-1], 1) == SORTABLE[-1] and next_column("id", -1) == "id"
    assert next_column("trend", 1) == SORTABLE[0]  # not a sortable column: back to the first


def test_state_glyphs():
    assert [state_glyph(s) for s in ("ok", "loading", "growing", "truncated", "unreadable: gone")] == \
        ["✓", "…", "+", "!", "!"]
