"""config.toml (issue 27): defaults for the options from a real file in a temporary
XDG_CONFIG_HOME; an option on the command line wins; a bad file or value is one warning line on
stderr, never a traceback, and the rest of the file still applies."""
from __future__ import annotations

import pytest
from fixture_paths import MINDSPORE_LOGS

from tui_insight import cli
from tui_insight.config import fill_options, load_config


@pytest.fixture
def config_file(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("TUI_INSIGHT_SSH_TIMEOUT", raising=False)
    path = tmp_path / "config" / "tui-insight" / "config.toml"
    path.parent.mkdir(parents=True)
    return path


def summary(capsys) -> tuple[int, str, str]:
    status = cli.main([str(MINDSPORE_LOGS), "--summary"])
    out, err = capsys.readouterr()
    return status, out, err


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("tui-insight: warning: config")]


def test_every_key_is_read_and_checked(config_file):
    config_file.write_text('theme = "insight-light"\nreload_interval = 5\nbell = true\nbell_stalled = false\n'
                           'memory_budget = "1G"\nworkers = 4\nssh_max_listing = "128M"\nssh_timeout = 60\n'
                           '[keymap]\n"jobs.compare" = "k"\n')
    config = load_config()
    assert config.problems == ()
    assert config.values == {"theme": "insight-light", "reload_interval": 5.0, "bell": True, "bell_stalled": False,
                             "memory_budget": 1 << 30, "workers": 4, "ssh_max_listing": 128 << 20, "ssh_timeout": 60.0}
    assert config.keymap == {"jobs.compare": "k"}


def test_the_command_line_wins_over_the_file(config_file):
    config_file.write_text('bell = true\nbell_stalled = true\nworkers = 4\nmemory_budget = 1000\nssh_timeout = 60\n')
    config = load_config()
    parser = cli.build_parser()

    given = parser.parse_args(["--no-bell", "--workers", "2", "--ssh-timeout", "5"])
    fill_options(given, config, ssh=True)
    assert (given.bell, given.workers, given.memory_budget, given.ssh_timeout) == (False, 2, 1000, 5)
    assert not given.bell_stalled  # --no-bell silences the file's stalled bell too

    left = parser.parse_args([])
    fill_options(left, config, ssh=True)
    assert (left.bell, left.workers, left.ssh_timeout) == (True, 4, 60)

    local = parser.parse_args([])
    fill_options(local, config, ssh=False)  # the ssh limits are for an ssh LOGDIR only
    assert local.ssh_timeout is None
    with_env = parser.parse_args([])
    fill_options(with_env, config, ssh=True, environ={"TUI_INSIGHT_SSH_TIMEOUT": "9"})
    assert with_env.ssh_timeout is None  # the environment variable wins over the file


def test_bad_values_are_one_line_each_and_the_rest_applies(config_file, capsys):
    status, out, err = summary(capsys)
    config_file.write_text('workers = 0\nmemory_budget = "lots"\ncolour = "red"\nreload_interval = 2\n'
                           'bell = true\n[keymap]\n"app.quit" = 3\n"app.help" = "h"\n')
    config = load_config()
    assert config.values == {"reload_interval": 2.0, "bell": True}
    assert config.keymap == {"app.help": "h"}

    again, out_with_file, err_with_file = summary(capsys)
    lines = warnings(err_with_file)
    assert len(lines) == 4, err_with_file
    assert "workers = 0 ignored" in lines[0] and "memory_budget = \"lots\" ignored" in lines[1]
    assert "unknown key 'colour'" in lines[2] and "'app.quit' = 3" in lines[3]
    assert "Traceback" not in err_with_file
    # bell = true is a default for the dashboard: --summary, which refuses --bell, runs as before
    assert (again, out_with_file) == (status, out)


def test_a_file_that_is_not_toml_is_one_line_and_ignored(config_file, capsys):
    status, out, _ = summary(capsys)
    config_file.write_text('workers = 4\nbell = \n')
    again, out_with_file, err = summary(capsys)
    lines = warnings(err)
    assert len(lines) == 1 and "not TOML" in lines[0] and "line 2" in lines[0], err
    assert (again, out_with_file) == (status, out)
    assert load_config().values == {}


def test_a_file_named_by_the_environment_is_read(tmp_path, monkeypatch):
    path = tmp_path / "elsewhere.toml"
    path.write_text("workers = 3\n")
    monkeypatch.setenv("TUI_INSIGHT_CONFIG", str(path))
    assert load_config().values == {"workers": 3}


def test_help_documents_every_key():
    help_text = cli.build_parser().format_help()
    from tui_insight.config import KEYS

    for key in (*KEYS, "[keymap]", "config.toml", "--completion", "--no-bell"):
        assert key in help_text, key
