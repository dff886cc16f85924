"""Lineage queries (compat §6.2, §6.3): differential tests against MindInsight's answers, and
unit tests on lineage written with our writer."""
from __future__ import annotations

import pytest

from tui_insight.summary.formats.lineage import JobLineage
from tui_insight.summary.queries.lineage import (
    DEFAULT_COLUMNS, FIXED_COLUMNS, Condition, LineageQueryError, LineageRow, columns, conditions_text,
    customized, dataset_axes, dataset_stages, default_columns, filter_rows, model_rows, page, parse_conditions, sort_rows, with_dataset_values,
)
from tui_insight.summary.formats.writer import LineageWriter
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.job_view import JobView

# -- differential: MindInsight's POST /lineagemgr/lineages answers ---------------------------------


@pytest.fixture(scope="module")
def rows(fixture_cache):
    return model_rows(fixture_cache.jobs)


def _check_objects(ours, expected, model=True, dataset=True):
    assert [row.summary_dir for row in ours] == [obj["summary_dir"] for obj in expected]
    for row, obj in zip(ours, expected):
        if model:
            # Every column, floats as MindInsight gives them (loss 2.4609091), metric and user_defined.
            assert row.model_lineage() == obj["model_lineage"], row.summary_dir
        if dataset:
            assert row.dataset_graph == obj["dataset_graph"], row.summary_dir
        assert obj["added_info"] == {}


def test_all_rows_match_mindinsight(rows, truth):
    expected = truth["lineage"]["all"]
    assert len(rows) == expected["count"] == 3
    _check_objects(rows, expected["object"])
    assert customized(rows) == expected["customized"]
    # The flat values agree with the nested answer, column by column.
    for row, obj in zip(rows, expected["object"]):
        lineage = obj["model_lineage"]
        for column in FIXED_COLUMNS[1:]:
            assert row.get(column) == lineage[column]
            assert type(row.get(column)) is type(lineage[column])
        for key, value in lineage["metric"].items():
            assert row.get(f"metric/{key}") == value
        for key, value in lineage["user_defined"].items():
            assert row.get(f"user_defined/{key}") == value
            assert type(row.get(f"user_defined/{key}")) is type(value)


def test_sorted_by_summary_dir_matches_mindinsight(rows, truth):
    model = truth["lineage"]["model_sorted_by_summary_dir"]
    _check_objects(sort_rows(rows, "summary_dir"), model["object"], dataset=False)
    assert all("dataset_graph" not in obj for obj in model["object"])
    dataset = truth["lineage"]["dataset_sorted_by_summary_dir"]
    _check_objects(sort_rows(rows, "summary_dir"), dataset["object"], model=False)
    assert all("model_lineage" not in obj for obj in dataset["object"])
    assert customized(rows) == model["customized"] == dataset["customized"]


def test_page_matches_mindinsight(rows, truth):
    expected = truth["lineage"]["paged_limit2_offset0"]
    first = page(rows, limit=2, offset=0)
    assert len(rows) == expected["count"]  # count is before paging
    _check_objects(first, expected["object"])
    assert customized(first) == expected["customized"]
    assert [r.summary_dir for r in page(rows, limit=2, offset=1)] == [rows[2].summary_dir]


def test_columns_cover_mindinsight_customized(rows, truth):
    cols = columns(rows)
    assert cols[:len(FIXED_COLUMNS)] == list(FIXED_COLUMNS)
    custom = truth["lineage"]["all"]["customized"]
    assert cols[len(FIXED_COLUMNS):] == sorted(custom, key=lambda c: (not c.startswith("metric/"), c))
    assert default_columns(rows) == [*DEFAULT_COLUMNS, "metric/Accuracy", "metric/Loss"]


def test_marks_and_filters_on_fixture(rows, truth):
    marks = {o["summary_dir"]: o["model_lineage"]["dataset_mark"] for o in truth["lineage"]["all"]["object"]}
    assert {row.summary_dir: row.get("dataset_mark") for row in rows} == marks
    momentum = filter_rows(rows, parse_conditions("optimizer=Momentum learning_rate>=0.05"))
    assert [r.summary_dir for r in momentum] == ["./lenet_lr0.1"]
    assert [r.summary_dir for r in filter_rows(rows, parse_conditions("dataset_mark=2"))] == [
        "./resnetish_bs32", "./lenet_lr0.1"]
    # Missing test_dataset_path: a comparison fails, not_in holds (as in MindInsight).
    assert len(filter_rows(rows, parse_conditions("test_dataset_path in x,y"))) == 0
    assert len(filter_rows(rows, parse_conditions("test_dataset_path not_in x,y"))) == 3


def test_dataset_values_of_the_fixture_pipelines(rows):
    """Each job's pipeline parameters as `dataset/<stage>.<param>` values (what the dataset table,
    its filter and its chart read): read once per dataset_mark, numbers kept, a sampler or a
    list as the text its cell shows; the chart's axes are the parameters where the jobs differ."""
    stages = dataset_stages(rows)
    by_dir = {row.summary_dir: row for row in rows}
    assert stages["./resnetish_bs32"] is stages["./lenet_lr0.1"]  # dataset_mark 2: one pipeline read once
    assert [s.name for s in stages["./lenet_lr0.01"]] == ["MnistDataset", "Map", "Map#2", "Batch"]
    valued, dataset_columns = with_dataset_values(rows, stages)
    assert dataset_columns[:2] == ["dataset/GeneratorDataset.num_parallel_workers",
                                   "dataset/GeneratorDataset.connector_queue_size"]  # source first, knobs last
    lenet = {row.summary_dir: row for row in valued}["./lenet_lr0.01"]
    assert lenet.get("dataset/Batch.batch_size") == 16  # a number stays one (filters compare it)
    assert lenet.get("dataset/MnistDataset.sampler") == "SequentialSampler(num_samples=96 start_index=0)"
    assert lenet.get("dataset/Map.input_columns") == '["image"]'
    assert lenet.get("dataset/GeneratorDataset.num_parallel_workers") is None  # not its pipeline
    assert lenet.get("network") == by_dir["./lenet_lr0.01"].get("network")  # the model values kept
    axes = dataset_axes(valued, dataset_columns)
    assert "dataset/MnistDataset.usage" in axes and "dataset/Batch.num_parallel_workers" not in axes
    same = [row for row in valued if row.get("dataset_mark") == 2]
    assert dataset_axes(same, dataset_columns) == dataset_columns  # none differs: every one


# -- rows from our own lineage files ---------------------------------------------------------------

def _job(tmp_path, name, stamp, *, train=None, metric=None, user=None, dataset=None):
    directory = tmp_path / name
    directory.mkdir()
    with LineageWriter(directory, timestamp=stamp) as writer:
        if train is not None:
            writer.write_train(**train)
        if metric is not None:
            writer.write_eval(metric, valid_dataset_size=10)
        if dataset is not None:
            writer.write_dataset_graph(dataset)
        if user is not None:
            writer.write_user_defined(user)


def test_rows_from_written_lineage(tmp_path):
    graph = {"op_type": "Batch", "batch_size": 8, "children": [{"op_type": "MnistDataset", "children": []}]}
    _job(tmp_path, "a", 1_700_000_001, train={"optimizer": "SGD", "learning_rate": 0.1, "epoch": 3},
         metric={"acc": 0.5}, dataset=graph, user={"seed": 7})
    _job(tmp_path, "b", 1_700_000_002, train={"optimizer": "Adam", "loss": 1.25, "model_size": 99},
         dataset=graph)
    _job(tmp_path, "c", 1_700_000_003, train={"network": "Net"})  # no dataset graph: {} gets a mark too
    (tmp_path / "d").mkdir()  # a job without lineage gives no row
    with LineageWriter(tmp_path / "d", timestamp=1_700_000_004) as writer:
        writer.write_user_defined({"only": 1})
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    rows = {row.summary_dir: row for row in model_rows(cache.jobs)}
    assert set(rows) == {"./a", "./b", "./c"}
    a, b, c = rows["./a"], rows["./b"], rows["./c"]
    assert list(a.values)[:len(FIXED_COLUMNS)] == list(FIXED_COLUMNS)
    assert a.get("learning_rate") == 0.1 and a.get("epoch") == 3 and a.get("loss") is None
    assert a.get("metric/acc") == 0.5 and a.get("user_defined/seed") == 7
    assert a.get("test_dataset_count") == 10 and a.get("test_dataset_path") is None
    assert b.get("loss") == 1.25 and b.get("model_size") == 99 and b.get("metric/acc") is None
    assert a.get("dataset_mark") == b.get("dataset_mark") != c.get("dataset_mark")
    assert {a.get("dataset_mark"), c.get("dataset_mark")} == {"2", "3"}
    assert c.dataset_graph == {}
    assert a.dataset_graph["op_type"] == "Batch"
    assert columns(rows.values())[len(FIXED_COLUMNS):] == ["metric/acc", "user_defined/seed"]


def _rows(values_list):
    return [LineageRow(f"./r{i}", {"summary_dir": f"./r{i}", **values}, {}, {}, {}, float(i))
            for i, values in enumerate(values_list)]


def test_model_rows_order_and_marks_follow_update_time():
    def view(tid, update_time, graph):
        return JobView(tid, "/x", lineage=JobLineage(train={"epoch": 1}, dataset_graph=graph),
                       update_time=update_time)
    g1, g2 = {"op_type": "A", "children": []}, {"op_type": "B", "children": []}
    jobs = {"./old": view("./old", 1.0, g1), "./new": view("./new", 3.0, g2), "./mid": view("./mid", 2.0, g1),
            "./tie": view("./tie", 3.0, g1), "./none": JobView("./none", "/x", update_time=9.0)}
    rows = model_rows(jobs)
    assert [r.summary_dir for r in rows] == ["./new", "./tie", "./mid", "./old"]
    assert [r.get("dataset_mark") for r in rows] == ["2", "3", "3", "3"]


# -- conditions -----------------------------------------------------------------------------------

def test_parse_the_documented_example():
    conditions = parse_conditions("learning_rate>=0.01 optimizer=Momentum metric/Accuracy>0.5 "
                                  "network!=LeNet5 summary_dir in ./a,./b")
    assert conditions == [
        Condition("learning_rate", "ge", 0.01), Condition("optimizer", "eq", "Momentum"),
        Condition("metric/Accuracy", "gt", 0.5), Condition("network", "not_in", ("LeNet5",)),
        Condition("summary_dir", "in", ("./a", "./b"))]


def test_parse_operators_spacing_and_quotes():
    assert parse_conditions("epoch == 3") == [Condition("epoch", "eq", 3)]
    assert parse_conditions("epoch<3 batch_size <= 32 loss> 1.5") == [
        Condition("epoch", "lt", 3), Condition("batch_size", "le", 32), Condition("loss", "gt", 1.5)]
    assert parse_conditions("optimizer not_in SGD, Adam") == [Condition("optimizer", "not_in", ("SGD", "Adam"))]
    assert parse_conditions("optimizer not in SGD") == [Condition("optimizer", "not_in", ("SGD",))]
    assert parse_conditions('user_defined/note="high lr" and user_defined/seed=7') == [
        Condition("user_defined/note", "eq", "high lr"), Condition("user_defined/seed", "eq", 7)]
    assert parse_conditions("user_defined/tag='7'") == [Condition("user_defined/tag", "eq", "7")]
    assert parse_conditions("train_dataset_path=/data/a,b") == [Condition("train_dataset_path", "eq", "/data/a,b")]
    assert parse_conditions("   ") == []


@pytest.mark.parametrize("text, message", [
    ("lern_rate>0.1", "unknown column 'lern_rate'; did you mean learning_rate?"),
    ("batchsz>2", "did you mean batch_size?"),
    ("optimzer=SGD", "did you mean optimizer?"),
    ("foo=1", "unknown column 'foo'"),
    ("optimizer>SGD", "optimizer is text: use =, !=, in or not_in"),
    ("epoch>=2.5", "epoch needs a whole number, not '2.5'"),
    ("epoch=-1", "whole number from 0"),
    ("batch_size='32'", "batch_size needs a whole number"),
    ("loss<low", "loss needs a number, not 'low'"),
    ("metric/acc>nan", "metric/acc needs a number"),
    ("epoch", "expected an operator"),
    ("epoch ~ 3", "expected an operator"),
    ("epoch>=", "missing value after 'epoch'"),
    ("epoch in 1,", "missing value"),
    ('network="LeNet', "unclosed quote"),
    ("metric/=1", "unknown column 'metric/'"),
])
def test_bad_conditions_say_why(text, message):
    with pytest.raises(LineageQueryError, match=message.replace("?", r"\?").replace("(", r"\(")):
        parse_conditions(text)


def test_aliases_and_ranges_read_as_the_columns_they_name():
    assert parse_conditions("lr 0.01..0.1 bs>=32 opt=Adam") == [
        Condition("learning_rate", "ge", 0.01), Condition("learning_rate", "le", 0.1),
        Condition("batch_size", "ge", 32), Condition("optimizer", "eq", "Adam")]
    assert parse_conditions("epoch 3.. loss ..0.5") == [Condition("epoch", "ge", 3), Condition("loss", "le", 0.5)]
    for text, message in (("optimizer a..b", "expected an operator"), ("lr 0.01..x", "or a range"),
                          ("epoch 1.5..3", "whole number"), ("summary_dir 1..2", "summary_dir is text")):
        with pytest.raises(LineageQueryError, match=message):
            parse_conditions(text)


def test_conditions_read_back_from_their_text():
    text = ('learning_rate>=0.001 loss<2.4609091 network in "Le Net",ResNet optimizer!=SGD '
            'user_defined/tag="7" user_defined/seed=7 user_defined/note="it\'s, a=b" '
            'dataset/Batch.drop_remainder=True dataset/Map.input_columns="[image]"')
    conditions = parse_conditions(text)
    assert len(conditions) == 9
    assert parse_conditions(conditions_text(conditions)) == conditions


def test_known_columns_check_metric_names():
    known = ["metric/Accuracy", "user_defined/seed"]
    assert parse_conditions("metric/Accuracy>0.1", known) == [Condition("metric/Accuracy", "gt", 0.1)]
    with pytest.raises(LineageQueryError, match="did you mean metric/Accuracy"):
        parse_conditions("metric/accuracy>0.1", known)
    with pytest.raises(LineageQueryError, match="did you mean metric/Accuracy"):
        parse_conditions("accuracy>0.1", known)
    assert parse_conditions("metric/anything>0.1") == [Condition("metric/anything", "gt", 0.1)]


def test_filter_semantics():
    rows = _rows([{"loss": 1.0, "optimizer": "SGD", "user_defined/x": "a"},
                  {"loss": None, "optimizer": "Adam", "user_defined/x": 3},
                  {"loss": 3.0, "optimizer": None, "user_defined/x": 5}])

    def names(text):
        return [r.summary_dir for r in filter_rows(rows, parse_conditions(text))]
    assert names("loss<5") == ["./r0", "./r2"]  # missing fails a comparison
    assert names("loss>=1 loss<2") == ["./r0"]  # AND
    assert names("optimizer=SGD") == ["./r0"]
    assert names("optimizer!=SGD") == ["./r1", "./r2"]  # missing is "not in"
    assert names("optimizer in SGD,Adam") == ["./r0", "./r1"]
    assert names("user_defined/x>2") == ["./r1", "./r2"]  # text vs number: no match, no error
    assert names("user_defined/x=a") == ["./r0"]
    assert names("") == ["./r0", "./r1", "./r2"]


def test_sort_missing_last_stable_and_mixed():
    rows = _rows([{"loss": 2.0}, {"loss": None}, {"loss": 1.0}, {"loss": 2.0}, {}, {"loss": float("nan")},
                  {"loss": 0.5}])
    ascending = [r.summary_dir for r in sort_rows(rows, "loss")]
    assert ascending == ["./r6", "./r2", "./r0", "./r3", "./r1", "./r4", "./r5"]
    descending = [r.summary_dir for r in sort_rows(rows, "loss", descending=True)]
    assert descending == ["./r0", "./r3", "./r2", "./r6", "./r1", "./r4", "./r5"]  # ties keep order
    mixed = _rows([{"v": "b"}, {"v": 2}, {"v": {"k": 1}}, {"v": "a"}, {"v": 1.5}, {"v": True}])
    assert [r.get("v") for r in sort_rows(mixed, "v")] == [True, 1.5, 2, "a", "b", {"k": 1}]
    assert sort_rows([], "loss") == []


def test_customized_types():
    rows = [LineageRow("./a", {}, {"acc": 1}, {"n": "x", "m": 1}, {}),
            LineageRow("./b", {}, {"acc": 0.5}, {"n": 2}, {})]
    assert customized(rows) == {
        "metric/acc": {"label": "metric/acc", "required": True, "type": "float"},
        "user_defined/n": {"label": "user_defined/n", "required": False, "type": "mixed"},
        "user_defined/m": {"label": "user_defined/m", "required": False, "type": "int"}}


def test_page_checks_arguments():
    with pytest.raises(LineageQueryError):
        page([], limit=0)


def test_thousand_rows_sort_and_filter():
    """Speed is measured by bench/bench_queries.py; this checks the result."""
    rows = _rows([{"loss": (i * 7919) % 1000 / 10 if i % 10 else None, "optimizer": ("SGD", "Adam")[i % 2],
                   "metric/acc": i / 1000, "epoch": i % 7} for i in range(1000)])
    conditions = parse_conditions("loss<50 optimizer=SGD metric/acc>=0.1 epoch in 1,2,3")
    kept = filter_rows(rows, conditions)
    ordered = sort_rows(rows, "loss", descending=True)
    mixed = sort_rows(rows, "optimizer")
    assert 0 < len(kept) < 1000 and len(ordered) == len(mixed) == 1000
    assert ordered[-1].get("loss") is None and ordered[0].get("loss") == max(
        r.get("loss") for r in rows if r.get("loss") is not None)


def test_metric_json_nested_too_deep_is_a_problem_not_a_crash(tmp_path):
    from hostile_logs import write_deep_lineage

    from tui_insight.export import export_snapshot
    from tui_insight.summary.store.cache import SummaryCache

    write_deep_lineage(tmp_path / "logs")
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    deep, nested = cache.job("./deep"), cache.job("./nested")
    assert deep.lineage.evaluation.get("metric") == {}
    assert any("nested too deeply" in p for p in deep.lineage.problems)
    assert nested.lineage.evaluation["metric"] == {"acc": 0.5, "per_class": "[[0.1,0.2],[0.3]]"}
    result = export_snapshot(cache, tmp_path / "out")  # the whole export is not lost
    assert result.rows["lineage"] >= 1


def test_lineage_strings_that_are_not_utf8_are_text(tmp_path):
    """protobuf hands over strings that are not UTF-8 as bytes, and raises on a map key that is
    not: the strings read as text with their bytes shown, the unreadable entry is left out."""
    from hostile_logs import write_non_utf8_lineage

    from tui_insight.summary.formats.lineage import read_lineage

    write_non_utf8_lineage(tmp_path)
    lineage = read_lineage([str(next(tmp_path.iterdir()))])
    assert lineage.train["optimizer"] == "Momentum\\xff" and lineage.train["network"] == "LeNet\\xfe"
    assert lineage.user_defined == {"fine": "v\\xff"}
    assert lineage.dataset_graph["op"] == "Map\\xff" and "k\\xe8" not in lineage.dataset_graph
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    rows = model_rows(cache.jobs)
    assert cache.job("./").state == "ok" and rows[0].get("optimizer") == "Momentum\\xff"
