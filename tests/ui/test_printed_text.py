"""Text from files printed to a terminal goes through the one escaper (`tui_insight.escape.shown`):
a directory named `job\\x1b]0;PWNED\\x07` sets no window title, on stdout, on stderr or in a toast."""
from __future__ import annotations

from pathlib import Path

from uihelp import make_app, notices, run_pilot, wait_for, write_run

from tui_insight import cli
from tui_insight.ui.app import StartAt

HOSTILE = "job\x1b]0;PWNED\x07"
VISIBLE = "job\\x1b]0;PWNED\\x07"


def hostile_logdir(tmp_path: Path) -> Path:
    root = tmp_path / "logs"
    job = write_run(root, HOSTILE)
    (job / "events.out.events.summary.2.x_MS").write_bytes(b"\x00not a summary" * 8)  # a warning names the job
    return root


def raw_controls(text: str) -> set[str]:
    return {c for c in text if c in "\x1b\x07\x9b"}


def test_summary_prints_no_control_character_from_a_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    status = cli.main([str(hostile_logdir(tmp_path)), "--summary", "--metric", "loss\x1b[31m"])
    out, err = capsys.readouterr()
    assert status in (0, 1)
    assert not raw_controls(out + err)
    assert VISIBLE in out and "headline metric: loss\\x1b[31m" in out


def test_export_warnings_print_no_control_character_from_a_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    status = cli.main([str(hostile_logdir(tmp_path)), "--export", "csv", "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert status == 0
    assert not raw_controls(out + err)
    assert f"warning: ./{VISIBLE}: unreadable" in err


def test_a_toast_shows_the_name_escaped(tmp_path):
    app = make_app(hostile_logdir(tmp_path), start_at=StartAt((f"./{HOSTILE}x",), "scalars"))

    async def body(pilot):
        assert await wait_for(pilot, lambda: bool(notices(app)))
        return notices(app)

    said = " ".join(run_pilot(app, body, notifications=True))
    assert not raw_controls(said)
    assert f"No job ./{VISIBLE}x" in said.replace("\n", "")


def test_a_remote_error_is_printed_escaped(tmp_path, monkeypatch):
    """Over a real sshd: the remote's answer about a LOGDIR named `gone\\x1b]0;PWNED\\x07` (it
    does not exist) reaches `--summary`'s stderr escaped."""
    import io

    from sshd import sshd_or_fail

    from tui_insight import health_report
    from tui_insight.summary.sources.ssh import SshSource

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    (tmp_path / "sshd").mkdir()
    server = sshd_or_fail(tmp_path / "sshd")
    target = server.target(tmp_path / "gone\x1b]0;PWNED\x07")
    source = SshSource(target, server.ssh_options())
    out, err = io.StringIO(), io.StringIO()
    try:
        status = health_report.run(target, out=out, err=err, source=source)
    finally:
        source.close()
        server.stop()
    assert status == 2
    assert not raw_controls(out.getvalue() + err.getvalue())
    assert "gone\\x1b]0;PWNED\\x07" in err.getvalue() and "No such file or directory" in err.getvalue()
