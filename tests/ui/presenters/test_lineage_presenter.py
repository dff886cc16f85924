"""What the lineage view shows (table cells, status, filter message, read-outs), over runs the
lineage writer wrote (`tests/lineage_runs.py`) and rows the summary queries made: no app, no Pilot."""
from __future__ import annotations

import pytest
from lineage_runs import write_lineage_runs

from rich.console import Console

from tui_insight.summary.formats.writer import LineageWriter
from tui_insight.summary.queries.importance import importances
from tui_insight.summary.queries.lineage import (
    LineageQueryError,
    columns,
    dataset_stages,
    model_rows,
    parse_conditions,
    with_dataset_values,
)
from tui_insight.summary.queries.parallel import axis_for
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.presenters import lineage as present
from tui_insight.ui.state.lineage import CHART, DATASET, IMPORTANCE, LineageState
from tui_insight.ui.widgets.lineage_data import entries


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    root = tmp_path_factory.mktemp("lineage")
    write_lineage_runs(root, 12)
    cache = SummaryCache(str(root))
    cache.reload()
    return cache.jobs


@pytest.fixture(scope="module")
def data(jobs):
    return present.lineage_data(jobs)


@pytest.fixture(scope="module")
def rows(data):
    return data.rows, data.stages, data.dataset_columns


def test_the_data_is_every_run_with_lineage_with_its_pipelines_values_and_columns(jobs, data):
    first = model_rows(jobs)
    stages = dataset_stages(first)
    with_values, dataset_columns = with_dataset_values(first, stages)
    assert [row.summary_dir for row in data.rows] == [row.summary_dir for row in with_values]
    assert len(data.rows) == 12 and data.rows[0].get("dataset/Batch.batch_size") is not None
    assert data.columns == columns(first) and data.stages == stages and data.dataset_columns == dataset_columns
    assert data.by_id == {row.summary_dir: row for row in data.rows}
    assert data.filter_columns == [*data.columns, *dataset_columns]
    assert present.lineage_data({}).rows == [] and present.NO_ROWS.filter_columns == []


def test_the_rows_shown_are_those_the_filter_keeps_in_the_states_order(data):
    conditions = parse_conditions("learning_rate>=0.01", data.filter_columns)
    kept = present.ordered_rows(data.rows, conditions, LineageState())
    assert kept and all(row.get("learning_rate") >= 0.01 for row in kept)
    assert kept == [row for row in data.rows if row.get("learning_rate") >= 0.01]  # newest first, as read
    rates = [row.get("learning_rate") for row in present.ordered_rows(data.rows, [], LineageState().sort_by("learning_rate"))]
    assert len(rates) == 12 and rates == sorted(rates)
    falling = present.ordered_rows(data.rows, conditions, LineageState().sort_by("learning_rate", descending=True))
    assert [row.get("learning_rate") for row in falling] == sorted((row.get("learning_rate") for row in kept), reverse=True)


def test_the_model_table_right_justifies_numbers_and_fills_each_runs_cells(rows):
    found, _, _ = rows
    names = ["summary_dir", "learning_rate", "optimizer", "user_defined/seed", "metric/Accuracy"]
    table_columns, cells = present.model_table(found, names)
    assert [(c.key, c.numeric) for c in table_columns] == [
        ("summary_dir", False), ("learning_rate", True), ("optimizer", False), ("user_defined/seed", True),
        ("metric/Accuracy", True)]
    assert set(cells) == {row.summary_dir for row in found}
    unevaluated = [row.summary_dir for row in found if row.get("metric/Accuracy") is None]
    assert unevaluated and all(cells[tid][4] is None for tid in unevaluated)  # drawn as a dim "-"
    assert all(cells[row.summary_dir][2] == row.get("optimizer") for row in found)


def test_the_dataset_table_has_a_column_per_stage_parameter_dim_where_runs_agree(rows):
    found, stages, _ = rows
    table_columns, cells = present.dataset_table(found, stages)
    keys = [c.key for c in table_columns]
    assert keys[:2] == ["summary_dir", present.MARK_COLUMN]
    buffer = keys.index(next(k for k in keys if k.endswith(".buffer_size")))
    folder = keys.index(next(k for k in keys if k.endswith(".dataset_dir")))
    assert table_columns[folder].group and table_columns[folder].label == "dataset_dir"
    values = [cells[row.summary_dir] for row in found]
    assert {str(v[buffer]) for v in values} == {"1000", "10000"} and all(isinstance(v[buffer], str) for v in values)
    assert all(str(v[folder].style) == "dim" for v in values)  # the same in every run: dim


def test_the_status_counts_jobs_filter_order_marks_and_hidden_columns(rows):
    found, _, dataset_columns = rows
    conditions = parse_conditions("learning_rate>=0.01", [*columns(found), *dataset_columns])
    text = present.status_text(LineageState(), 20, len(found), conditions, 5, 2, 3, loading=False)
    assert text.startswith(f"[b]{len(found)}[/b] of 20 jobs with lineage · [b]5[/b] shown by [i]learning_rate")
    assert text.endswith("2 marked · 3 columns hidden (v)")
    dataset = present.status_text(LineageState().with_mode(DATASET), 1, 0, [], 0, 0, 1, loading=True)
    assert dataset.startswith("[b]0[/b] of 1 job with lineage") and "hidden" not in dataset
    assert dataset.endswith("[dim]loading…[/dim]")
    assert present.filter_error_text("no column [x]") == "no column \\[x] · the table keeps the last good filter"
    assert present.empty_text(False, loading=True) == "loading…"
    assert "escape clears it" in present.empty_text(True, loading=False)


def test_the_chart_readout_names_the_axis_its_range_and_the_highlighted_run(rows):
    found, _, dataset_columns = rows
    axis = axis_for("learning_rate", [row.get("learning_rate") for row in found])
    run = found[0]
    inside = {row.summary_dir for row in found}
    state = LineageState(row=run.summary_dir)
    text = present.chart_readout(state, axis, found, inside, [], len(found), "loss", {run.summary_dir}).plain
    assert text.startswith("learning_rate  ") and " … " in text
    assert f" · ▶ {run.summary_dir} " in text and "(marked)" in text
    assert text.endswith(f" · {len(found)}/{len(found)} runs inside · colour loss")
    brushed = parse_conditions("learning_rate>=0.01", [*columns(found), *dataset_columns])
    ranged = present.chart_readout(LineageState(), axis, found, set(), brushed, len(found), None, ()).plain
    assert ranged.startswith("learning_rate  range ") and ranged.endswith(f" · 0/{len(found)} runs inside")
    assert present.chart_readout(LineageState(), None, found, inside, [], 0, None, ()).plain.startswith(
        "no column to draw")


def test_the_scatter_says_what_the_ranking_says_and_reads_the_run(rows):
    found, _, _ = rows
    ranking = importances(found, columns(found))
    target = ranking[0]
    item = target.params[0]
    title = present.scatter_title(ranking, target.target, item.param)
    assert title == item.reason or title.startswith(f"|Pearson| {item.importance:.3f} · Spearman")
    text = present.scatter_readout(("./run_001", 0.01, 0.5), "learning_rate", "loss", {"./run_001"}).plain
    assert text.startswith("./run_001  learning_rate 0.01 · loss 0.5 (marked)  · ← → runs")
    assert present.scatter_readout(None, "a", "b", ()).plain == present.SCATTER_KEYS
    assert present.importance_readout(7).plain.startswith("over the 7 runs the filter shows")


def test_the_chart_places_each_run_and_walks_them_up_the_picked_axis(rows):
    found, _, _ = rows
    runs = present.chart_runs(found, ["learning_rate", "batch_size"], "loss")
    assert runs.ids == tuple(row.summary_dir for row in found) and runs.positions.shape == (len(found), 2)
    assert runs.colour is not None and runs.colour.column == "loss"
    state = LineageState()
    axis = present.picked_axis(runs, state)
    assert axis is not None and axis.column == "learning_rate"
    inside = {row.summary_dir for row in found[::2]}
    order = present.run_order(runs, state, inside)
    assert set(order) == inside
    rates = [next(r for r in found if r.summary_dir == tid).get("learning_rate") for tid in order]
    assert rates == sorted(rates)  # bottom of the axis first
    look = present.chart_look(runs, LineageState(row=found[0].summary_dir), inside, [])
    assert look.inside == bytes(tid in inside for tid in runs.ids) and look.highlight == 0
    assert present.chart_look(runs, LineageState(row=found[1].summary_dir), inside, []).highlight is None


def test_the_importance_cursor_falls_back_to_the_first_pair_and_the_scatter_follows_it(rows):
    found, _, _ = rows
    ranking = importances(found, columns(found))
    first = (ranking[0].target, ranking[0].params[0].param)
    assert present.importance_cursor(ranking, LineageState()) == first
    data = present.scatter_data(ranking, LineageState(), found)
    assert (data.target, data.param) == first and data.points
    assert {point[0] for point in data.points} <= {row.summary_dir for row in found}
    assert present.scatter_data([], LineageState(), found).points == ()


def test_the_charts_keys_pick_an_axis_walk_the_runs_colour_and_write_a_range_into_the_filter(data):
    runs = present.chart_runs(data.rows, ["learning_rate", "batch_size"], None)
    inside, known = set(data.by_id), data.filter_columns
    state = LineageState(panel=CHART)

    def key(name, step=0, at=state):
        return present.chart_command(at, name, step, runs, inside, known)

    assert key("axis", 1).axis == "batch_size" and key("colour").colour == "learning_rate"
    assert key("run", 1).row == present.run_order(runs, state, inside)[0]  # up from nothing: the lowest run
    ranged = key("high", -1)
    assert ranged.filter == "learning_rate<=0.01"
    assert key("clear", at=ranged).filter == ""
    with pytest.raises(LineageQueryError):
        key("low", 1, at=state.with_filter("learning_rate>>"))  # the filter must read first
    assert present.chart_command(state, "low", 1, present.chart_runs(data.rows, [], None), inside, known) == state
    text = present.range_error_text(present.picked_axis(runs, state), LineageQueryError("no [b]"))
    assert text == "No range on learning_rate: no \\[b] (the filter must read first: /)"


def test_the_rankings_keys_move_its_cursor_and_open_the_scatter_whose_keys_walk_its_runs(data):
    ranking = importances(data.rows, data.columns)
    found = entries(ranking)
    state = LineageState(panel=IMPORTANCE)
    moved = present.importance_command(state, "param", 1, ranking)
    assert (moved.target, moved.param) == found[1]  # from the first line, one down
    gone = LineageState(panel=IMPORTANCE, target="loss", param="no such column")
    assert present.importance_command(gone, "param", 0, ranking).param == found[0][1]
    opened = present.importance_command(moved, "scatter", 0, ranking)
    assert opened.scatter and (opened.target, opened.param) == found[1]
    assert present.importance_command(state, "scatter", 0, []) == state  # nothing ranked: nothing to open
    scatter = present.scatter_data(ranking, opened, data.rows)
    walked = present.scatter_command(opened, "point", 1, scatter)
    assert walked.row == scatter.points[0][0] and present.scatter_cursor(scatter, walked.row) == 0
    assert present.scatter_cursor(scatter, None) is None
    assert not present.scatter_command(opened, "back", 0, scatter).scatter


def test_the_readout_under_the_panel_is_the_shown_parts(data):
    runs = present.chart_runs(data.rows, ["learning_rate"], None)
    shown = data.rows[:5]
    ranking = importances(shown, data.columns)
    chart = LineageState(panel=CHART, row=shown[0].summary_dir)
    text = present.panel_readout(chart, runs, data, shown, [], ranking, {shown[0].summary_dir}).plain
    assert text.startswith("learning_rate  ") and text.endswith(" · 5/12 runs inside") and "(marked)" in text
    ranked = present.panel_readout(LineageState(panel=IMPORTANCE), None, data, shown, [], ranking, ())
    assert ranked.plain.startswith("over the 5 runs the filter shows")
    scatter = present.panel_readout(LineageState(panel=IMPORTANCE, scatter=True), None, data, shown, [], ranking, ())
    assert scatter.plain == present.SCATTER_KEYS  # no run highlighted yet: the keys
    assert present.panel_readout(LineageState(), None, data, shown, [], ranking, ()).plain == ""
    assert present.mark_note("./a[b]", True, 2) == "./a\\[b] marked for comparison · 2 marked (c in the job list compares them)"
    assert present.mark_note("./a", False, 0).startswith("./a unmarked · 0 marked")


def test_the_detail_shows_a_jobs_whole_pipeline_source_first_or_says_it_has_none(data, tmp_path):
    with LineageWriter(tmp_path / "nograph", timestamp=1_700_000_000) as writer:
        writer.write_train(optimizer="SGD", learning_rate=0.5, loss=0.4, epoch=1, batch_size=8)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    without = present.lineage_data(cache.jobs)

    def text(renderable) -> str:
        console = Console(width=80, record=True)
        console.print(renderable)
        return console.export_text()

    assert "no dataset graph in this job's lineage" in text(present.detail("./nograph", without.by_id, without.stages))
    run = data.rows[0].summary_dir
    shown = text(present.detail(run, data.by_id, data.stages))
    assert shown.startswith(f"{run}  pipeline ")
    assert shown.index("MnistDataset") < shown.index("↓ Shuffle") < shown.index("↓ Batch")  # source first
    assert present.detail(None, data.by_id, data.stages) == present.detail("./gone", data.by_id, data.stages)
