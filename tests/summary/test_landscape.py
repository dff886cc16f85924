"""Loss landscapes (issue 10): decoded from the MindSpore 2.10 fixtures and compared with what
MindInsight 2.3.1 serves for them (`mindspore_extras.truth.json`, differential)."""
from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from fixture_paths import EXTRAS_LOGS, FIXTURES

from tui_insight.proto import summary_pb2
from tui_insight.summary.queries.landscape import (
    CSV_COLUMNS,
    FINAL,
    INTERVAL,
    LandscapeError,
    decode_landscape,
    landscape_at,
    landscape_label,
    landscape_rows,
    lineage_metadata,
    list_landscapes,
    mindinsight_intervals,
    nearest_index,
    shared_range,
    tensor_values,
)
from tui_insight.summary.store.cache import SummaryCache

TRUTH = json.loads((FIXTURES / "mindspore_extras.truth.json").read_text())["landscapes"]
JOBS = sorted(TRUTH)  # ./landscape_epoch, ./landscape_step


@pytest.fixture(scope="module")
def cache() -> SummaryCache:
    c = SummaryCache(str(EXTRAS_LOGS))
    c.reload()
    return c


def mi_tag(tag: str) -> str:
    return f"{tag}/loss_landscape"


def assert_points(landscape, points) -> None:
    assert landscape.x.tolist() == points["x"]
    assert landscape.y.tolist() == points["y"]
    assert landscape.z.tolist() == points["z"]


def assert_metadata(landscape, metadata) -> None:
    assert landscape.metadata.decomposition == metadata["decomposition"]
    assert landscape.metadata.unit == metadata["unit"]
    assert landscape.metadata.step_per_epoch == metadata["step_per_epoch"]


@pytest.mark.parametrize("train_id", JOBS)
def test_tags_and_intervals_are_mindinsights(cache, train_id):
    truth = TRUTH[train_id]
    view = cache.job(train_id)
    assert [mi_tag(t) for t in view.tag_names("loss_landscape")] == truth["tags"]
    entries = list_landscapes(cache.payloads, view)
    assert mindinsight_intervals(entries) == [i["value"] for i in truth["intervals"]]
    assert [e.kind for e in entries] == [INTERVAL] * len(truth["intervals"]) + [FINAL]
    assert not any(e.error for e in entries)


@pytest.mark.parametrize("train_id", JOBS)
def test_interval_landscapes_match_mindinsight(cache, train_id):
    view = cache.job(train_id)
    entries = [e for e in list_landscapes(cache.payloads, view) if e.kind == INTERVAL]
    for entry, truth in zip(entries, TRUTH[train_id]["intervals"], strict=True):
        ls = landscape_at(cache.payloads, view, entry.tag, entry.index)
        want = truth["landscape"]
        assert ls.interval == tuple(truth["value"])
        assert_points(ls, want["points"])
        assert list(ls.path.intervals) == want["path"]["intervals"]
        assert ls.path.x.tolist() == want["path"]["x"]
        assert ls.path.y.tolist() == want["path"]["y"]
        assert ls.path.z.tolist() == want["path"]["z"]
        assert list(ls.convergence) == want["convergence_point"]
        assert_metadata(ls, want["metadata"])


@pytest.mark.parametrize("train_id", JOBS)
def test_final_landscape_matches_mindinsight(cache, train_id):
    view = cache.job(train_id)
    final = [e for e in list_landscapes(cache.payloads, view) if e.kind == FINAL]
    assert len(final) == 1
    ls = landscape_at(cache.payloads, view, final[0].tag)
    want = TRUTH[train_id]["final"]
    assert ls.path is None and ls.interval is None
    assert_points(ls, want["points"])
    assert list(ls.convergence) == want["convergence_point"]
    assert_metadata(ls, want["metadata"])


def test_labels_name_the_unit(cache):
    step = [e.label for e in list_landscapes(cache.payloads, cache.job("./landscape_step"))]
    epoch = [e.label for e in list_landscapes(cache.payloads, cache.job("./landscape_epoch"))]
    assert step == ["steps 1–5", "steps 6–8", "final (step 8)"]
    assert epoch == ["epochs 1–3", "final (epoch 3)"]
    assert landscape_label(INTERVAL, (4, 4), "step") == "step 4"
    assert landscape_label(FINAL, None, "step", "odd") == "final"


def test_the_path_lies_on_the_grid_read_rows_by_y(cache):
    """z[i, j] is the loss at (x[j], y[i]): the path's losses agree with the grid read that way
    far better than with the grid read the other way round."""
    view = cache.job("./landscape_step")
    ls = landscape_at(cache.payloads, view, "landscape_[1, 5]")
    by_y = by_x = 0.0
    for x, y, z in zip(ls.path.x, ls.path.y, ls.path.z):
        i, j = nearest_index(ls.y, y), nearest_index(ls.x, x)
        by_y += abs(ls.z[i, j] - z)
        by_x += abs(ls.z[j, i] - z)
    assert by_y < by_x / 2


def test_every_number_sits_in_float_data_whatever_data_type_says(cache):
    view = cache.job("./landscape_step")
    series = view.series("loss_landscape", "landscape_[6, 8]")
    from tui_insight.summary.formats.payloads import read_value
    value = read_value(view.locator(series, 0))
    assert value.loss_landscape.landscape.z.data_type != 0 and len(value.loss_landscape.landscape.z.double_data) == 0
    assert tensor_values(value.loss_landscape.landscape.z).size == 25


def test_lineage_metadata_reads_the_jobs_lineage(cache):
    step = lineage_metadata(cache.job("./landscape_step"))
    assert step["network"] == "Net" and step["optimizer"] == "Momentum"
    assert step["learning_rate"] == format(0.05, "6e") and step["metric"] == {}
    assert step["loss"] is not None
    epoch = lineage_metadata(cache.job("./landscape_epoch"))  # no train lineage: MindInsight's blanks
    assert epoch["network"] is None and epoch["learning_rate"] is None and epoch["metric"] == {}


def make_value(x, y, z, intervals=(), path=None, convergence=None, dims=None) -> summary_pb2.Summary.Value:
    value = summary_pb2.Summary.Value(tag="landscape_[1, 2]")
    ll = value.loss_landscape
    ll.landscape.x.float_data.extend(x)
    ll.landscape.y.float_data.extend(y)
    ll.landscape.z.float_data.extend(np.ravel(z).tolist())
    ll.landscape.z.dims.extend(dims or np.shape(z))
    ll.loss_path.intervals.extend(intervals)
    if path is not None:
        for name, values in zip("xyz", path):
            getattr(ll.loss_path.points, name).float_data.extend(values)
    if convergence is not None:
        for name, v in zip("xyz", convergence):
            getattr(ll.convergence_point, name).float_data.append(v)
    ll.metadata.unit = "epoch"
    return value


def test_bad_records_say_why():
    with pytest.raises(LandscapeError, match="holds 5 values"):
        decode_landscape(make_value([0, 1], [0, 1, 2], [1, 2, 3, 4, 5], dims=[5]))
    with pytest.raises(LandscapeError, match="2 points for 3 checkpoints"):
        decode_landscape(make_value([0, 1], [0, 1], [[1, 2], [3, 4]], intervals=[1, 2, 3],
                                    path=([0, 1], [0, 1], [1, 2])))
    with pytest.raises(LandscapeError, match="no loss landscape"):
        decode_landscape(summary_pb2.Summary.Value(tag="t", scalar_value=1.0))


def test_missing_convergence_point_is_mindinsights_zeros_and_x_major_grids_are_turned():
    ls = decode_landscape(make_value([0, 1, 2], [5, 6], [[1, 2, 3], [4, 5, 6]]))
    assert ls.convergence == (0.0, 0.0, 0.0) and ls.kind == FINAL and ls.z.shape == (2, 3)
    turned = decode_landscape(make_value([0, 1, 2], [5, 6], [[1, 4], [2, 5], [3, 6]]))
    assert turned.z.tolist() == [[1, 2, 3], [4, 5, 6]]


def test_shared_range_spans_every_landscape():
    a = decode_landscape(make_value([0, 1], [0, 1], [[1, 2], [3, np.nan]]))
    b = decode_landscape(make_value([0, 1], [0, 1], [[0.5, 2], [3, 7]]))
    assert shared_range([a, b]) == (0.5, 7.0)
    assert shared_range([]) is None


def test_landscape_rows_for_the_csv(cache):
    view = cache.job("./landscape_step")
    rows = list(landscape_rows(view, cache.payloads))
    assert CSV_COLUMNS == ("train_id", "tag", "kind", "interval", "x", "y", "loss")
    truth = TRUTH["./landscape_step"]
    grid = [r for r in rows if r.kind == "grid"]
    assert len(grid) == 3 * 25
    first = truth["intervals"][0]["landscape"]
    r0 = [r for r in grid if r.interval == "1-5"]
    assert (r0[1].x, r0[1].y, r0[1].loss) == (first["points"]["x"][1], first["points"]["y"][0], first["points"]["z"][0][1])
    path = [r for r in rows if r.kind == "path"]
    assert [(r.interval, r.loss) for r in path if r.interval == "6-8"] == \
        [("6-8", z) for z in truth["intervals"][1]["landscape"]["path"]["z"]]
    assert len(path) == 5 + 3
    conv = [r for r in rows if r.kind == "convergence"]
    assert [r.interval for r in conv] == ["1-5", "6-8", "final"]
    assert {r.train_id for r in rows} == {"./landscape_step"} and rows[0].tag == "landscape_[1, 5]"
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    writer.writerows(rows)
    assert out.getvalue().splitlines()[1].startswith("./landscape_step,\"landscape_[1, 5]\",grid,1-5,")


def test_the_writer_writes_landscapes_the_decoder_reads(tmp_path):
    from tui_insight.summary.formats.writer import SummaryWriter

    x = np.linspace(-1, 1, 4).astype(np.float32)
    y = np.linspace(-0.5, 0.5, 3).astype(np.float32)
    z = (x[None, :] ** 2 + 2 * y[:, None] ** 2 + 0.25).astype(np.float32)  # (3, 4): rows follow y
    path = ((1, 5, 10), np.float32([-1.0, -0.5, 0.0]), np.float32([0.5, 0.25, 0.0]), np.float32([1.5, 0.6, 0.25]))
    with SummaryWriter(tmp_path / "job", timestamp=1000, wall_time=1000.0) as writer:
        writer.add_scalar("loss", 1.0)
        writer.record(1, wall_time=1001.0)
    with SummaryWriter(tmp_path / "job", timestamp=1010, wall_time=1010.0) as writer:
        writer.add_landscape("landscape_[1, 10]", x, y, z, path=path, convergence=(0.0, 0.0, 0.25),
                             metadata={"decomposition": "PCA", "unit": "step", "step_per_epoch": 10})
        writer.record(0, wall_time=1011.0)
        writer.add_landscape("landscape_[10]", x, y, z * 2, convergence=(0.0, 0.0, 0.25),
                             metadata={"decomposition": "Random", "unit": "step", "step_per_epoch": 10})
        writer.record(0, wall_time=1012.0)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./job")
    entries = list_landscapes(cache.payloads, view)
    assert [(e.tag, e.kind, e.interval, e.error) for e in entries] == [
        ("landscape_[1, 10]", INTERVAL, (1, 10), ""), ("landscape_[10]", FINAL, None, "")]
    interval = landscape_at(cache.payloads, view, entries[0].tag, entries[0].index)
    assert interval.step == 0
    assert interval.x.tolist() == x.tolist() and interval.y.tolist() == y.tolist()
    assert interval.z.tolist() == z.tolist()
    assert interval.path.intervals == (1, 5, 10)
    assert [interval.path.x.tolist(), interval.path.y.tolist(), interval.path.z.tolist()] == [
        path[1].tolist(), path[2].tolist(), path[3].tolist()]
    assert interval.convergence == (0.0, 0.0, 0.25)
    assert (interval.metadata.decomposition, interval.metadata.unit, interval.metadata.step_per_epoch) == (
        "PCA", "step", 10)
    final = landscape_at(cache.payloads, view, entries[1].tag, entries[1].index)
    assert final.path is None and final.z.tolist() == (z * 2).tolist()
    assert final.metadata.decomposition == "Random"
    assert view.series("scalar", "loss") is not None  # the training file is still read


def test_a_landscape_named_in_bytes_that_are_not_utf8_lists_and_exports(tmp_path):
    from hostile_logs import write_non_utf8_landscape

    from tui_insight.summary.queries.landscape import landscape_rows, list_landscapes

    write_non_utf8_landscape(tmp_path)
    logs = SummaryCache(str(tmp_path))
    logs.reload()
    view = logs.job("./")
    [entry] = list_landscapes(logs.payloads, view)
    assert entry.tag == "landscape_[8]\\xfe" and entry.error == "" and entry.unit == "st\\xffep"
    assert len(list(landscape_rows(view, logs.payloads))) == 4 + 1  # the grid, the convergence point
