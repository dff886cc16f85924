"""Custom scalar layouts (issue 26), written by tensorboardX's `add_custom_scalars`: read onto
the job view, out of the "not shown" account (the custom scalars view draws it), and exported as custom_scalars.csv."""
import csv

import pytest
from tensorboardX import SummaryWriter

from tui_insight.export import export_snapshot
from tui_insight.summary.formats.custom_scalars import Chart, Margin, matching
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.disk_cache import DiskCache

LAYOUT = {
    "Taiwan": {"twse": ["Multiline", ["twse/0050", "twse/2330"]]},
    "USA": {"dow": ["Margin", ["dow/aaa", "dow/bbb", "dow/ccc"]],
            "nasdaq": ["Margin", ["nasdaq/aaa", "nasdaq/bbb", "nasdaq/ccc"]]},
}
TAGS = ["twse/0050", "twse/2330", "dow/aaa", "dow/bbb", "dow/ccc", "nasdaq/aaa", "nasdaq/bbb", "nasdaq/ccc"]


def write_run(path):
    writer = SummaryWriter(str(path))
    writer.add_custom_scalars(LAYOUT)
    for step in range(5):
        for i, tag in enumerate(TAGS):
            writer.add_scalar(tag, step * (i + 1), step)
    writer.close()


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("cs")
    write_run(logdir / "run")
    c = SummaryCache(str(logdir))
    c.reload()
    return c


def view_of(cache):
    return cache.job("./run")


def test_the_layout_is_read_onto_the_job_view(cache):
    layout = view_of(cache).custom_scalars
    assert [c.title for c in layout.categories] == ["Taiwan", "USA"]
    assert layout.categories[0].charts == (Chart("twse", "multiline", tags=("twse/0050", "twse/2330")),)
    assert layout.categories[1].charts[0] == Chart("dow", "margin", margins=(Margin("dow/aaa", "dow/bbb", "dow/ccc"),))


def test_a_layout_is_not_counted_as_not_shown_now_that_a_view_draws_it(cache):
    view = view_of(cache)
    assert view.not_shown.kinds == ()
    assert set(view.tag_names("scalar")) == set(TAGS)


def test_multiline_patterns_match_as_regular_expressions():
    tags = ["twse/0050", "twse/2330", "loss", "a(b"]
    assert matching([r"twse/.*"], tags) == ["twse/0050", "twse/2330"]
    assert matching(["loss", "a(b"], tags) == ["loss", "a(b"]  # no regex: its own text


def test_the_export_writes_the_layout(cache, tmp_path):
    export_snapshot(cache, tmp_path / "out")
    with open(tmp_path / "out" / "custom_scalars.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows == [
        ["train_id", "category", "chart", "kind", "tags"],
        ["./run", "Taiwan", "twse", "multiline", "twse/0050;twse/2330"],
        ["./run", "USA", "dow", "margin", "dow/aaa,dow/bbb,dow/ccc"],
        ["./run", "USA", "nasdaq", "margin", "nasdaq/aaa,nasdaq/bbb,nasdaq/ccc"],
    ]


def test_a_warm_start_from_the_disk_cache_keeps_the_layout(tmp_path):
    logs, root = tmp_path / "logs", tmp_path / "cache"
    write_run(logs / "run")
    cold = SummaryCache(str(logs), disk_cache=DiskCache(root))
    cold.reload()
    for _ in range(2):  # listed from the index, then held (its details read from the snapshot)
        warm = SummaryCache(str(logs), disk_cache=DiskCache(root))
        warm.reload()
        assert warm.job("./run").custom_scalars == cold.job("./run").custom_scalars
        warm.hold("test", ["./run"])
        warm.reload()
        assert warm.job("./run").ready
        assert warm.job("./run").custom_scalars == cold.job("./run").custom_scalars is not None


def test_a_damaged_layout_is_a_problem_and_the_scalars_are_kept(tmp_path):
    from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
    from tensorboardX.proto.tensor_pb2 import TensorProto

    writer = SummaryWriter(str(tmp_path / "run"))
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="custom_scalars"))
    damaged = TensorProto(dtype=7, string_val=[b"\x12\xff\xff\xff"])  # a category longer than the bytes
    writer._get_file_writer().add_summary(
        Summary(value=[Summary.Value(tag="custom_scalars__config__", tensor=damaged, metadata=metadata)]), 0)
    writer.add_scalar("loss", 1.0, 0)
    writer.close()
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./run")
    assert view.custom_scalars is None
    assert any("custom scalars layout cannot be decoded" in p for p in view.problems)
    assert view.tag_names("scalar") == ["loss"]


def test_the_api_gives_the_layout_as_the_export_writes_it(tmp_path):
    import tui_insight

    write_run(tmp_path / "logs" / "run")
    with tui_insight.open(tmp_path / "logs") as logs:
        frame = logs.custom_scalars()
        assert logs.series_bytes == 0  # read with the digests, no series kept
    assert list(frame.columns) == ["job", "category", "chart", "kind", "tags"]
    assert frame.values.tolist() == [
        ["./run", "Taiwan", "twse", "multiline", "twse/0050;twse/2330"],
        ["./run", "USA", "dow", "margin", "dow/aaa,dow/bbb,dow/ccc"],
        ["./run", "USA", "nasdaq", "margin", "nasdaq/aaa,nasdaq/bbb,nasdaq/ccc"],
    ]
