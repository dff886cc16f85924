"""`--summary` and `--summary --json` say what each job holds that no view shows (issue 22):
kinds without a view and tags over the tag limits, from logs written by tensorboardX."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from tensorboardX import SummaryWriter
from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboardX.proto.tensor_pb2 import TensorProto
from unshown_logs import MANY_TAGS, UNSHOWN, write_many_tags, write_unshown

from tui_insight import cli
from tui_insight.summary import limits


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("unshown")
    write_unshown(root)
    write_many_tags(root)
    write_many_tags(root, "few", tags=3)  # holds nothing unshown
    return root


def summary(capsys, *args) -> tuple[int, str]:
    status = cli.main([*map(str, args), "--summary"])
    return status, capsys.readouterr().out


def test_the_text_summary_lists_what_is_not_shown_under_the_table(logs, capsys):
    status, out = summary(capsys, logs)
    lines = out.splitlines()
    assert status == 0
    at = lines.index("not shown:")
    assert [line.split()[0] for line in lines[1:at]] == ["./few", "./many", "./run"]  # the table's rows
    assert lines[at + 1:] == [
        f"  ./many  {MANY_TAGS - limits.MAX_TAGS} tags over the {limits.MAX_TAGS} limit",
        "  ./run   audio 1 tag, mesh 2, embeddings 1 tensor",
    ]


def test_the_json_summary_has_not_shown_and_problems_per_job(logs, capsys):
    status, out = summary(capsys, logs, "--json")
    rows = {row["train_id"]: row for row in json.loads(out)}
    assert status == 0
    assert {entry["kind"]: entry["count"] for entry in rows["./run"]["not_shown"]} == UNSHOWN
    assert rows["./many"]["not_shown"] == [{"kind": "over_tag_limit", "plugin": "scalar",
                                            "count": MANY_TAGS - limits.MAX_TAGS, "unit": "tags",
                                            "limit": limits.MAX_TAGS}]
    assert len(rows["./run"]["problems"]) == len(UNSHOWN)
    assert "not shown: audio data, 1 tag, described, not drawn (sound)" in rows["./run"]["problems"]
    assert rows["./few"]["not_shown"] == [] and rows["./few"]["problems"] == []


def test_names_from_files_are_printed_escaped(tmp_path, capsys):
    writer = SummaryWriter(str(tmp_path / "odd\x1b[2J"))
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="evil\x1b]52;c;x\x07\u202e"))
    value = Summary.Value(tag="t", metadata=metadata, tensor=TensorProto(dtype=1, float_val=[1.0]))
    writer._get_file_writer().add_summary(Summary(value=[value]), 0)
    writer.close()
    status, out = summary(capsys, tmp_path)
    assert status == 0 and "\x1b" not in out and "\u202e" not in out
    assert "  ./odd\\x1b[2J  evil\\x1b]52;c;x\\x07\\u202e 1 tag" in out.splitlines()
