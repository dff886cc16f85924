"""Pilot and snapshot tests of the lineage view (`l`): model and dataset lineage of every job."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from textual.widgets import Input, Static
from uihelp import MINDSPORE_LOGS, MTIME, T0, make_app, run_pilot, wait_for, write_run

from tui_insight.summary.formats.writer import LineageWriter
from tui_insight.ui.dialogs import ExportScreen
from tui_insight.ui.screens.dashboard import DashboardScreen, ViewScreen
from tui_insight.ui.screens.help import HelpScreen
from tui_insight.ui.views.lineage import LineageView
from tui_insight.ui.widgets.lineage_columns import LineageColumnsScreen
from tui_insight.ui.widgets.lineage_table import LineageTable

MNIST_GRAPH = {
    "op_type": "Batch", "batch_size": 16, "drop_remainder": True,
    "children": [{"op_type": "Map", "input_columns": ["image"],
                  "operations": [{"tensor_op_name": "Resize", "tensor_op_params": "{\"size\": [32, 32]}"},
                                 {"tensor_op_name": "HwcToChw"}],
                  "children": [{"op_type": "MnistDataset", "dataset_dir": "/data/mnist", "usage": "train",
                                "children": []}]}],
}
GEN_GRAPH = {"op_type": "Batch", "batch_size": 32, "drop_remainder": False,
             "children": [{"op_type": "GeneratorDataset", "num_parallel_workers": 2, "children": []}]}


def write_lineage(root: Path, name: str, *, lr: float, optimizer: str, metric: dict | None,
                  graph: dict | None = None, user: dict | None = None, mtime: float = MTIME,
                  timestamp: int = int(T0), **train) -> Path:
    """A job with a lineage file (train, optional eval, user-defined, dataset graph)."""
    directory = root / name
    directory.mkdir(parents=True, exist_ok=True)
    with LineageWriter(directory, timestamp=timestamp) as writer:
        writer.write_train(optimizer=optimizer, learning_rate=lr, network=train.pop("network", "LeNet5"),
                           loss=train.pop("loss", 0.5), epoch=train.pop("epoch", 2),
                           batch_size=train.pop("batch_size", 32), train_dataset_path="/data/train", **train)
        if metric is not None:
            writer.write_eval(metric, valid_dataset_path="/data/test", valid_dataset_size=100)
        if user:
            writer.write_user_defined(user)
        if graph is not None:
            writer.write_dataset_graph(graph)
    for path in directory.iterdir():
        os.utime(path, (mtime, mtime))
    return directory


@pytest.fixture
def lineage_logs(tmp_path: Path) -> Path:
    """Three jobs with lineage (one without evaluation, so no metrics) and one without."""
    root = tmp_path / "logs"
    write_lineage(root, "adam_a", lr=0.001, optimizer="Adam", metric={"Accuracy": 0.91, "Loss": 0.3},
                  graph=MNIST_GRAPH, user={"seed": 1}, mtime=MTIME - 30, loss=0.25)
    write_lineage(root, "mom_b", lr=0.1, optimizer="Momentum", metric={"Accuracy": 0.62, "Loss": 0.9},
                  graph=GEN_GRAPH, user={"seed": 2}, mtime=MTIME - 20, loss=0.75)
    write_lineage(root, "mom_c", lr=0.01, optimizer="Momentum", metric=None, graph=GEN_GRAPH,
                  mtime=MTIME - 10, loss=0.5)
    write_run(root, "plain_d")  # scalars only: no lineage, not listed
    return root


def record_notices(app) -> list[str]:
    """What the app is asked to notify from now on (run_test shows no toasts to read back)."""
    said: list[str] = []
    notify = app.notify

    def recording(message, **kwargs):
        said.append(str(message))
        return notify(message, **kwargs)

    app.notify = recording
    return said


def view(app) -> LineageView:
    return app.screen.query_one(LineageView)


def shown(app) -> list[str]:
    return list(view(app).active_table.order)


def message(app) -> str:
    return str(view(app).query_one("#lineage-message", Static).render())


def status(app) -> str:
    return str(view(app).query_one("#lineage-status", Static).render())


async def open_lineage(pilot) -> None:
    await pilot.press("l")
    await pilot.pause()


async def to_column(pilot, app, column: str) -> None:
    table = view(app).active_table
    keys = [c.key for c in table.columns]
    await pilot.press("ctrl+left", *["right"] * keys.index(column))
    assert table.current_column_key == column


# -- rows and columns (against MindInsight's answers) -------------------------------------------

OPENING_COLUMNS = ["summary_dir", "network", "optimizer", "learning_rate", "epoch", "batch_size", "loss"]


def test_rows_are_the_jobs_with_lineage_in_mindinsights_order_with_the_settings_and_metrics(truth, fixture_cache):
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        await open_lineage(pilot)
        table = view(app).model_table
        return list(table.order), [c.key for c in table.columns], dict(table.cells)

    order, columns, cells = run_pilot(app, body)
    served = truth["lineage"]["all"]["object"]
    # Only jobs with lineage are listed, newest first as MindInsight lists them.
    assert order == [obj["summary_dir"] for obj in served]
    assert set(fixture_cache.jobs) - set(order)  # the other fixture jobs exist, but are not rows
    metrics = sorted(k for k, v in truth["lineage"]["all"]["customized"].items() if v["required"])
    # Learning rate, batch size, epoch, optimizer, loss and metrics; the long dataset paths wait for `v`.
    assert columns == [*OPENING_COLUMNS, *metrics]
    for obj in served:
        row = dict(zip(columns, cells[obj["summary_dir"]]))
        lineage = obj["model_lineage"]
        for name in ("network", "optimizer"):
            assert row[name] == lineage[name]
        for name in ("epoch", "batch_size"):
            assert row[name] == (str(lineage[name]) if lineage[name] is not None else None)
        for name in ("loss", "learning_rate"):
            assert float(row[name]) == pytest.approx(lineage[name], rel=1e-5)
        for metric in metrics:
            assert float(row[metric]) == pytest.approx(lineage["metric"][metric.split("/", 1)[1]], rel=1e-5)


def test_v_shows_the_dataset_paths_and_fits_them_by_their_end(truth):
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        await open_lineage(pilot)
        hidden_status = status(app)
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, LineageColumnsScreen)
        # The list: loss_function, train_dataset_path, train_dataset_count, test_dataset_path, ...
        await pilot.press("down", "space", "down", "down", "space", "escape")
        await pilot.pause()
        table = view(app).model_table
        return hidden_status, [c.key for c in table.columns], dict(table.cells)

    hidden_status, columns, cells = run_pilot(app, body)
    assert "hidden (v)" in hidden_status
    assert columns[:3] == ["summary_dir", "train_dataset_path", "test_dataset_path"]
    for obj in truth["lineage"]["all"]["object"]:
        row = dict(zip(columns, cells[obj["summary_dir"]]))
        lineage = obj["model_lineage"]
        for name in ("train_dataset_path", "test_dataset_path"):
            if lineage[name] is None:
                assert row[name] is None  # drawn as a dim "-"
            else:
                assert row[name].lstrip("…") and lineage[name].endswith(row[name].lstrip("…"))


def test_v_chooses_columns_and_d_restores_the_defaults(lineage_logs):
    app = make_app(lineage_logs)

    async def body(pilot):
        await open_lineage(pilot)
        defaults = [c.key for c in view(app).model_table.columns]
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, LineageColumnsScreen)
        await pilot.press("n", "space", "down", "space", "escape")  # only the first two columns
        await pilot.pause()
        picked = [c.key for c in view(app).model_table.columns]
        picked_status = status(app)
        await pilot.press("v", "a", "escape")
        await pilot.pause()
        every = [c.key for c in view(app).model_table.columns]
        await pilot.press("v", "d", "escape")
        await pilot.pause()
        return defaults, picked, picked_status, every, [c.key for c in view(app).model_table.columns]

    defaults, picked, picked_status, every, restored = run_pilot(app, body)
    assert defaults == [*OPENING_COLUMNS, "metric/Accuracy", "metric/Loss"]
    assert picked == ["summary_dir", "loss_function", "train_dataset_path"]
    assert "hidden (v)" in picked_status
    assert "learning_rate" in every and "user_defined/seed" in every and "dataset_mark" in every
    assert restored == defaults


# -- sort ---------------------------------------------------------------------------------------------

def test_s_sorts_by_the_column_under_the_cursor_both_ways_with_missing_values_last(lineage_logs):
    app = make_app(lineage_logs)

    async def body(pilot):
        await open_lineage(pilot)
        newest_first = shown(app)
        await to_column(pilot, app, "metric/Accuracy")
        await pilot.press("s")
        ascending = shown(app)
        header = view(app).model_table.header_labels()
        await pilot.press("s")
        descending = shown(app)
        await pilot.press("S")
        reversed_again = shown(app)
        await to_column(pilot, app, "loss")
        await pilot.press("s")
        by_loss = shown(app)
        await pilot.press("o")
        return newest_first, ascending, header, descending, reversed_again, by_loss, shown(app), status(app)

    newest_first, ascending, header, descending, reversed_again, by_loss, back, text = run_pilot(app, body)
    assert newest_first == ["./mom_c", "./mom_b", "./adam_a"]  # update time, newest first
    assert ascending == ["./mom_b", "./adam_a", "./mom_c"]  # 0.62, 0.91, then the job without metrics
    assert "metric/Accuracy ▲" in header
    assert descending == ["./adam_a", "./mom_b", "./mom_c"]  # missing still last
    assert reversed_again == ascending
    assert by_loss == ["./adam_a", "./mom_c", "./mom_b"]  # 0.25, 0.5, 0.75
    assert back == newest_first and "newest first" in text


def test_clicking_a_header_sorts_by_it(lineage_logs):
    app = make_app(lineage_logs)

    async def body(pilot):
        await open_lineage(pilot)
        table = view(app).model_table
        x = table.column_x("optimizer") + 2
        await pilot.click(LineageTable, offset=(x, 0))
        await pilot.pause()
        return shown(app), view(app).state.sort_column

    order, column = run_pilot(app, body, size=(160, 30))
    assert column == "optimizer"
    assert order == ["./adam_a", "./mom_c", "./mom_b"]  # Adam, then the Momentums newest first (stable)


# -- filter ------------------------------------------------------------------------------------------

def test_filter_conditions_keep_the_matching_jobs(truth):
    app = make_app(MINDSPORE_LOGS)
    text = "learning_rate>=0.01 optimizer=Momentum metric/Accuracy>0.1"

    async def body(pilot):
        await open_lineage(pilot)
        await pilot.press("slash")
        view(app).query_one("#lineage-filter", Input).value = text  # as typed (typing is tested below)
        await pilot.pause()
        filtered = shown(app)
        await pilot.press("enter")
        await pilot.pause()
        return filtered, message(app), status(app), app.focused

    filtered, hint, text_status, focused = run_pilot(app, body)
    expected = [obj["summary_dir"] for obj in truth["lineage"]["all"]["object"]
                if obj["model_lineage"]["learning_rate"] >= 0.01 and obj["model_lineage"]["optimizer"] == "Momentum"
                and obj["model_lineage"]["metric"]["Accuracy"] > 0.1]
    assert filtered == expected and expected
    assert "all must hold" in hint  # no error: the operators are listed
    assert f"{len(expected)}[/b] shown" in text_status or f"{len(expected)} shown" in text_status
    assert isinstance(focused, LineageTable)


BAD_FILTERS = [
    ("lerning_rate>=0.01", "unknown column 'lerning_rate'; did you mean learning_rate?"),
    ("epoch>two", "epoch needs a whole number"),
    ("optimizer>Adam", "optimizer is text"),
    ("metric/Nope>1", "unknown column 'metric/Nope'"),
    ("loss", "expected an operator"),
    ('network="LeNet5', "unclosed quote"),
]


def test_a_filter_that_cannot_be_read_says_why_and_the_table_keeps_the_last_good_one(lineage_logs):
    app = make_app(lineage_logs)

    async def body(pilot):
        await open_lineage(pilot)
        await pilot.press("slash", *"optimizer=Momentum")
        await pilot.pause()
        good = shown(app)
        box = view(app).query_one("#lineage-filter", Input)
        seen = []
        for bad, _ in BAD_FILTERS:
            box.value = f"optimizer=Momentum {bad}"
            await pilot.pause()
            seen.append((shown(app), message(app), view(app).query_one("#lineage-message").has_class("-error")))
        box.value = "optimizer=Adam"
        await pilot.pause()
        return good, seen, (shown(app), view(app).query_one("#lineage-message").has_class("-error"))

    good, seen, recovered = run_pilot(app, body)
    assert good == ["./mom_c", "./mom_b"]
    for (bad, says), (after, text, is_error) in zip(BAD_FILTERS, seen):
        assert after == good, bad
        assert says in text and is_error, (bad, text)
        assert "last good filter" in text
    assert recovered == (["./adam_a"], False)


def test_escape_clears_the_filter_then_goes_back(lineage_logs):
    app = make_app(lineage_logs)

    async def body(pilot):
        await open_lineage(pilot)
        await pilot.press("slash", *"learning_rate<0.05", "enter")
        await pilot.pause()
        filtered = shown(app)
        await pilot.press("escape")
        await pilot.pause()
        cleared = shown(app), view(app).query_one("#lineage-filter-box").has_class("-shown")
        await pilot.press("escape")
        await pilot.pause()
        return filtered, cleared, app.screen

    filtered, (all_rows, box_shown), screen = run_pilot(app, body)
    assert filtered == ["./mom_c", "./adam_a"]
    assert all_rows == ["./mom_c", "./mom_b", "./adam_a"] and not box_shown
    assert not isinstance(screen, ViewScreen)


# -- opening a job -------------------------------------------------------------------------------------

def test_enter_opens_the_jobs_dashboard_and_escape_returns_to_the_same_row(lineage_logs):
    app = make_app(lineage_logs)

    async def body(pilot):
        await open_lineage(pilot)
        await pilot.press("down", "right")
        await pilot.press("enter")
        await pilot.pause()
        dashboard = app.screen
        await pilot.press("escape")
        await pilot.pause()
        table = view(app).model_table
        return dashboard, table.current_row_key, table.current_column_key

    dashboard, row, column = run_pilot(app, body)
    assert isinstance(dashboard, DashboardScreen) and dashboard.train_ids == ("./mom_b",)
    assert (row, column) == ("./mom_b", "network")


# -- dataset lineage -------------------------------------------------------------------------------------

def test_t_shows_dataset_lineage_side_by_side_with_the_pipeline_of_the_selected_job(truth):
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        await open_lineage(pilot)
        await pilot.press("t")
        await pilot.pause()
        table = view(app).dataset_table
        rows = list(table.order)
        keys = [c.key for c in table.columns]
        groups = [c.group for c in table.columns]
        details = {}
        for tid in rows:
            table.move_to(row_key=tid)
            await pilot.pause()
            details[tid] = view(app).query_one("#lineage-detail", Static).content
        return rows, keys, groups, dict(table.cells), details, app.focused

    rows, keys, groups, cells, details, focused = run_pilot(app, body, size=(160, 48))
    served = {obj["summary_dir"]: obj for obj in truth["lineage"]["all"]["object"]}
    assert rows == list(served)  # the same jobs in the same order as the model table
    assert isinstance(focused, LineageTable) and focused.id == "lineage-dataset-table"

    def op_types(graph):
        return [t for child in graph.get("children", []) for t in op_types(child)] + [graph["op_type"]]

    for tid, obj in served.items():
        graph = obj["dataset_graph"]
        row = dict(zip(keys, cells[tid]))
        assert row["dataset_mark"] == obj["model_lineage"]["dataset_mark"]
        assert getattr(row["Batch.batch_size"], "plain", row["Batch.batch_size"]) == str(graph["batch_size"])
        from rich.console import Console
        console = Console(width=70, record=True)
        console.print(details[tid])
        text = console.export_text()
        positions = [text.index(op) for op in op_types(graph)]  # source first, output last
        assert positions == sorted(positions)
    lenet = dict(zip(keys, cells["./lenet_lr0.01"]))
    assert lenet["MnistDataset.dataset_dir"] == "/data/experiments/_dataset/mnist_synth"
    assert lenet["Map.operations"] == "Resize, Rescale, HwcToChw"
    assert "MnistDataset" in groups and "Batch" in groups


def test_s_in_the_dataset_table_sorts_by_pipeline_and_says_why_a_stage_column_does_not_sort(lineage_logs):
    app = make_app(lineage_logs)

    async def body(pilot):
        await open_lineage(pilot)
        await pilot.press("t")
        await to_column(pilot, app, "dataset_mark")
        await pilot.press("s", "s")  # pipeline, descending
        by_mark = shown(app), list(view(app).model_table.order)
        said = record_notices(app)
        await pilot.press("right", "s")  # a stage parameter: not a lineage column
        await pilot.pause()
        return by_mark, shown(app), said

    (by_mark, model_order), after, said = run_pilot(app, body)
    assert by_mark == ["./adam_a", "./mom_c", "./mom_b"]  # marks "3", "2", "2" (newest first within a mark)
    assert model_order == by_mark  # both tables show the same order
    assert after == by_mark
    assert any("follows the model table" in text for text in said)


# -- live updates -------------------------------------------------------------------------------------------

def test_rows_follow_lineage_files_as_they_appear_change_and_go(lineage_logs):
    app = make_app(lineage_logs, load=False, start_loading=True, reload_interval=0.1)

    async def body(pilot):
        await open_lineage(pilot)
        assert await wait_for(pilot, lambda: len(view(app).model_table.order) == 3)
        await to_column(pilot, app, "optimizer")
        await pilot.press("down")  # ./mom_b
        # plain_d gets lineage: a new row; the cursor stays on its job and column.
        write_lineage(lineage_logs, "plain_d", lr=0.2, optimizer="SGD", metric={"Accuracy": 0.5},
                      graph=GEN_GRAPH, mtime=MTIME + 100, timestamp=int(T0) + 5)
        assert await wait_for(pilot, lambda: "./plain_d" in view(app).model_table.order)
        table = view(app).model_table
        kept = table.current_row_key, table.current_column_key
        # adam_a's lineage changes: a later lineage file with another optimizer.
        write_lineage(lineage_logs, "adam_a", lr=0.001, optimizer="AdamW", metric={"Accuracy": 0.95},
                      graph=MNIST_GRAPH, mtime=MTIME + 200, timestamp=int(T0) + 10)
        column = [c.key for c in table.columns].index("optimizer")
        assert await wait_for(pilot, lambda: "./adam_a" in table.cells and table.cells["./adam_a"][column] == "AdamW")
        # mom_c disappears.
        shutil.rmtree(lineage_logs / "mom_c")
        assert await wait_for(pilot, lambda: "./mom_c" not in view(app).model_table.order)
        return kept, list(view(app).model_table.order), list(view(app).dataset_table.order), \
            view(app).model_table.current_row_key

    kept, order, dataset_order, current = run_pilot(app, body)
    assert kept == ("./mom_b", "optimizer")
    assert set(order) == {"./adam_a", "./mom_b", "./plain_d"} and order == dataset_order
    assert current == "./mom_b"


def test_a_filter_still_applies_to_rows_that_arrive_later(lineage_logs):
    app = make_app(lineage_logs, load=False, start_loading=True, reload_interval=0.1)

    async def body(pilot):
        await open_lineage(pilot)
        assert await wait_for(pilot, lambda: len(view(app).data.rows) == 3)
        await pilot.press("slash", *"optimizer=Momentum", "enter")
        write_lineage(lineage_logs, "mom_new", lr=0.3, optimizer="Momentum", metric=None, mtime=MTIME + 50)
        write_lineage(lineage_logs, "sgd_new", lr=0.3, optimizer="SGD", metric=None, mtime=MTIME + 50)
        assert await wait_for(pilot, lambda: len(view(app).data.rows) == 5)
        return shown(app)

    assert run_pilot(app, body) == ["./mom_new", "./mom_c", "./mom_b"]


# -- export, help ----------------------------------------------------------------------------------------

def test_e_exports_the_lineage_of_the_shown_jobs(lineage_logs, tmp_path):
    app = make_app(lineage_logs)
    out = tmp_path / "export"

    async def body(pilot):
        await open_lineage(pilot)
        await pilot.press("slash", *"optimizer=Momentum", "enter")
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        what = str(app.screen.query_one(Static).render())
        app.screen.query_one("#export-path", Input).value = str(out)
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, ExportScreen))
        return what

    what = run_pilot(app, body)
    assert "2 shown jobs" in what
    lines = (out / "lineage.csv").read_text().splitlines()
    header = lines[0].split(",")
    assert header[0] == "summary_dir" and "learning_rate" in header
    assert sorted(line.split(",")[0] for line in lines[1:]) == ["./mom_b", "./mom_c"]
    assert len((out / "scalars.csv").read_text().splitlines()) == 1  # lineage only: a bare header


def test_help_lists_every_lineage_key_with_its_id(lineage_logs):
    app = make_app(lineage_logs)

    async def body(pilot):
        await open_lineage(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        return app.screen.text

    text = run_pilot(app, body)
    for binding in LineageView.BINDINGS + LineageTable.BINDINGS:
        assert binding.id and binding.id.startswith("lineage.")
        assert binding.id in text


def test_no_job_with_lineage_shows_an_empty_table_with_a_message(tmp_path):
    root = tmp_path / "logs"
    write_run(root, "plain")
    app = make_app(root)

    async def body(pilot):
        await open_lineage(pilot)
        await pilot.press("s", "enter", "t", "s", "down", "t", "v")  # v: on the model tab only
        await pilot.pause()
        return app.screen, status(app) if isinstance(app.screen, ViewScreen) else ""

    screen, _ = run_pilot(app, body)
    assert isinstance(screen, LineageColumnsScreen)  # nothing crashed on the way


# -- the state: remembered, restored; the keyboard ------------------------------------------------

def test_the_view_remembers_its_state_and_a_new_one_starts_from_it(lineage_logs):
    app = make_app(lineage_logs)

    async def change(pilot):
        await open_lineage(pilot)
        await to_column(pilot, app, "loss")
        await pilot.press("s", "s")  # loss descending
        await pilot.press("slash", *"optimizer=Momentum", "enter")
        await pilot.press("end", "home")  # the cursor on the first row: ./mom_b
        await pilot.press("v", "home", "space", "escape")  # loss_function shown too
        await pilot.press("t")
        await pilot.pause()
        return app.workspace.get("*", "lineage"), view(app).state

    saved, state = run_pilot(app, change)
    assert saved == state.to_json()
    assert (state.sort_column, state.descending, state.filter, state.mode) == ("loss", True, "optimizer=Momentum",
                                                                              "dataset")
    assert "loss_function" in state.chosen and state.row == "./mom_b"

    again = make_app(lineage_logs, workspace=app.workspace)

    async def reopen(pilot):
        await open_lineage(pilot)
        v = view(again)
        return (v.state, shown(again), list(v.model_table.order), [c.key for c in v.model_table.columns],
                v.query_one("#lineage-filter", Input).value, again.focused, v.dataset_table.current_row_key)

    restored, order, model_order, columns, box, focused, row = run_pilot(again, reopen)
    assert restored == state
    assert order == model_order == ["./mom_b", "./mom_c"]  # Momentum only, loss 0.75 then 0.5
    assert "loss_function" in columns
    assert box == "optimizer=Momentum"
    assert focused is not None and focused.id == "lineage-dataset-table"
    assert row == "./mom_b"


def test_a_remembered_state_that_no_longer_fits_is_tolerated(lineage_logs):
    app = make_app(lineage_logs)
    app.workspace.remember("*", "lineage", {"mode": "sideways", "sort_column": "gone_column", "row": "./gone",
                                            "chosen": ["nope", 3], "known": "x", "filter": "nope>1"})

    async def body(pilot):
        await open_lineage(pilot)
        return shown(app), message(app), view(app).state.mode, app.focused

    order, text, mode, focused = run_pilot(app, body)
    assert sorted(order) == ["./adam_a", "./mom_b", "./mom_c"]  # the filter cannot be read: no filter
    assert "unknown column 'nope'" in text
    assert mode == "model" and isinstance(focused, LineageTable)


def test_keys_pressed_right_after_l_reach_the_table(lineage_logs):
    app = make_app(lineage_logs)

    async def body(pilot):
        await pilot.press("l", "down", "s")  # no pause: the view takes the keys as soon as it is up
        await pilot.pause()
        return app.focused, view(app).state

    focused, state = run_pilot(app, body)
    assert isinstance(focused, LineageTable) and focused.id == "lineage-model"
    assert state.row == "./mom_b" and state.sort_column == "summary_dir"


# -- text from the files is text -----------------------------------------------------------------

def test_summary_dirs_user_values_and_dataset_params_are_shown_literally(tmp_path):
    root = tmp_path / "logs"
    graph = {"op_type": "Batch", "batch_size": 4,
             "children": [{"op_type": "MnistDataset", "dataset_dir": "/data/[b]mnist[/b]", "children": []}]}
    write_lineage(root, "[red]run[/]", lr=0.1, optimizer="[i]Adam[/i]", metric={"Accuracy": 0.5}, graph=graph,
                  user={"note": "[bold]x[/]"})
    app = make_app(root)

    async def body(pilot):
        await open_lineage(pilot)
        await pilot.press("v", "a", "escape")
        await pilot.pause()
        table = view(app).model_table
        row = dict(zip([c.key for c in table.columns], table.cells["./[red]run[/]"]))
        line = table.render_line(1).text
        await pilot.press("t")
        await pilot.pause()
        detail = view(app).query_one("#lineage-detail", Static).content
        from rich.console import Console
        console = Console(width=100, record=True)
        console.print(detail)
        await pilot.press("slash", *"[x]>1")
        await pilot.pause()
        return row, line, console.export_text(), message(app)

    row, line, detail, text = run_pilot(app, body, size=(200, 30))
    assert row["summary_dir"] == "./[red]run[/]" and row["optimizer"] == "[i]Adam[/i]"
    assert row["user_defined/note"] == "[bold]x[/]"
    assert "./[red]run[/]" in line and "[i]Adam[/i]" in line
    assert "./[red]run[/]" in detail and "/data/[b]mnist[/b]" in detail
    assert "[x]" in text and "last good filter" in text


# -- snapshots ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_snapshot_model_lineage(snap_compare, lineage_logs, size):
    # Sorted by loss, descending: the cursor walks right past the fixed summary_dir column.
    assert snap_compare(make_app(lineage_logs), press=["l", "_", *["right"] * 6, "s", "s"], terminal_size=size)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_snapshot_dataset_lineage(snap_compare, lineage_logs, size):
    assert snap_compare(make_app(lineage_logs), press=["l", "_", "t", "end"], terminal_size=size)


def test_snapshot_filter_error(snap_compare, lineage_logs):
    assert snap_compare(make_app(lineage_logs), press=["l", "_", "slash", *"lern_rate>0.01 opt=Adam"],
                        terminal_size=(80, 24))


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_the_column_picker_marks_what_is_chosen_and_v_is_only_on_the_model_tab(lineage_logs, size):
    from textual.widgets import SelectionList

    app = make_app(lineage_logs)

    def rows() -> list[str]:
        listing = app.screen.query_one(SelectionList)
        return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]

    async def body(pilot):
        await open_lineage(pilot)
        await pilot.press("v")
        await pilot.pause()
        before = rows()
        await pilot.press("space")  # the first column flips
        await pilot.pause()
        after = rows()
        await pilot.press("escape", "t")  # to the dataset lineage tab
        await pilot.pause()
        footer = " ".join(str(key.render()) for key in app.screen.query("FooterKey"))
        await pilot.press("v")
        await pilot.pause()
        return before, after, footer, type(app.screen).__name__

    before, after, footer, screen = run_pilot(app, body, size)
    assert all(row[:2] in ("✓ ", "· ") for row in before)  # a mark, not only brightness
    assert before[0][2:] == after[0][2:] and before[0][:2] != after[0][:2]
    assert "Columns" not in footer and screen != "LineageColumnsScreen"
