"""`--summary` on ranks of one training: a group row with its ranks, the stragglers and the
diverging ranks named, exit 1 for a diverging rank; `--json` nests each group's ranks."""
from __future__ import annotations

import json
import time
from pathlib import Path

from health_logs import falling, write_scalars
from rank_logs import LiveRanks, write_finished_group, write_profiled_group

from tui_insight import cli

OLD = time.time() - 7200


def summary(capsys, *args) -> tuple[int, str]:
    status = cli.main([*map(str, args), "--summary"])
    return status, capsys.readouterr().out


def test_a_group_row_lists_its_ranks_and_a_diverging_rank_exits_1(tmp_path, capsys):
    write_finished_group(tmp_path, OLD, jump=2)
    write_scalars(tmp_path, "solo", {"loss": falling(100)}, OLD)
    status, out = summary(capsys, tmp_path)
    lines = out.splitlines()
    assert status == 1  # rank 2 alone is not `diverging`: its rank's badge fails the summary
    assert lines[1].split()[:4] == ["./exp/rank_*", "(4", "ranks)", "rank"]
    assert [line.split()[0] for line in lines[2:6]] == [f"./exp/rank_{r}" for r in range(4)]
    assert all(line.startswith("  ./exp/rank_") for line in lines[2:6])  # indented under the group
    assert "rank diverging" in lines[4] and "diverging" not in lines[3] + lines[5]
    assert lines[6].split()[0] == "./solo"
    assert lines[7:] == ["rank groups:", "  ./exp/rank_*: 4 ranks, median step 100; rank diverging: ./exp/rank_2 "
                                         "(step 100)"]


def test_json_nests_each_groups_ranks_with_their_badges(tmp_path, capsys):
    write_finished_group(tmp_path, OLD, short=3)
    write_scalars(tmp_path, "solo", {"loss": falling(100)}, OLD)
    status, out = summary(capsys, tmp_path, "--json")
    group, solo = json.loads(out)
    assert status == 0  # a straggler is shown, not failed
    assert (solo["kind"], solo["train_id"], solo["badges"]) == ("job", "./solo", [])
    assert (group["kind"], group["train_id"], group["badges"]) == ("group", "./exp/rank_*", ["straggler"])
    assert group["median_last_step"] == 100 and group["straggler_fraction"] == 0.1
    assert [(r["rank"], r["train_id"], r["badges"], r["last_step"]) for r in group["ranks"]] == [
        (0, "./exp/rank_0", [], 100), (1, "./exp/rank_1", [], 100), (2, "./exp/rank_2", [], 100),
        (3, "./exp/rank_3", ["straggler"], 60)]
    assert group["ranks"][0]["steps_per_second"] == 2.0


def test_a_live_rank_that_stops_becomes_a_straggler_by_the_option_or_config(tmp_path, capsys, monkeypatch):
    live = LiveRanks(tmp_path)
    try:
        live.steps(20)
        status, out = summary(capsys, tmp_path, "--json")
        (group,) = json.loads(out)
        assert group["badges"] == [] and group["live"] is True
        live.stop(3)
        live.steps(20)  # the others go on to step 40: rank 3 is 50% behind
        (group,) = json.loads(summary(capsys, tmp_path, "--json")[1])
        assert [("straggler" in r["badges"], r["last_step"]) for r in group["ranks"]] == \
            [(False, 40), (False, 40), (False, 40), (True, 20)]
        _, out = summary(capsys, tmp_path)
        assert "straggler: ./live/rank_3 (step 20)" in out
        (group,) = json.loads(summary(capsys, tmp_path, "--json", "--straggler", "0.5")[1])
        assert "straggler" not in group["badges"]  # 50% behind is not more than 50%
        config = tmp_path.parent / "config.toml"
        config.write_text("straggler = 0.6\n")
        monkeypatch.setenv("TUI_INSIGHT_CONFIG", str(config))
        (group,) = json.loads(summary(capsys, tmp_path, "--json")[1])
        assert group["straggler_fraction"] == 0.6 and "straggler" not in group["badges"]
        (group,) = json.loads(summary(capsys, tmp_path, "--json", "--straggler", "0.2")[1])
        assert "straggler" in group["badges"]  # the option wins over the file
    finally:
        live.close()


def test_a_straggler_fraction_out_of_range_is_refused_in_one_line(tmp_path, capsys):
    write_finished_group(tmp_path, OLD)
    try:
        status = cli.main([str(tmp_path), "--summary", "--straggler", "1.5"])
    except SystemExit as exc:
        status = exc.code
    assert status == 2 and "not a fraction between 0 and 1" in capsys.readouterr().err


def test_a_bad_straggler_in_config_is_one_warning(tmp_path, capsys, monkeypatch):
    write_finished_group(tmp_path / "logs", OLD)
    config: Path = tmp_path / "config.toml"
    config.write_text("straggler = 2\n")
    monkeypatch.setenv("TUI_INSIGHT_CONFIG", str(config))
    assert cli.main([str(tmp_path / "logs"), "--summary"]) == 0
    assert "straggler = 2 ignored: is not a fraction between 0 and 1" in capsys.readouterr().err


def test_json_says_a_group_of_profiler_rank_ids_is_one(tmp_path, capsys):
    """Jobs under one parent named by their profiles' rank ids: one group in `--summary --json`."""
    write_profiled_group(tmp_path, OLD, {"b": 1, "a": 0})
    write_finished_group(tmp_path, OLD)
    status, out = summary(capsys, tmp_path, "--json")
    groups = {entry["train_id"]: entry for entry in json.loads(out)}
    assert status == 0 and set(groups) == {"./exp/*", "./exp/rank_*"}
    profiled = groups["./exp/*"]
    assert (profiled["kind"], profiled["grouped_by"], profiled["group_key"]) == ("group", "profiler", ["./exp", ""])
    assert [(r["rank"], r["train_id"]) for r in profiled["ranks"]] == [(0, "./exp/a"), (1, "./exp/b")]
    assert groups["./exp/rank_*"]["grouped_by"] == "path"
