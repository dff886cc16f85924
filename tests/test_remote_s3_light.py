"""The light S3 path (`object_light`): a whole `--summary` run over moto reads through obstore
without importing s3fs or botocore when the settings allow it, and through s3fs when they do not."""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from s3help import s3_server  # noqa: F401 (a fixture)

from tui_insight.summary.formats.writer import SummaryWriter

PROGRAM = """
import sys
from tui_insight.cli import main
code = main(sys.argv[1:])
print("loaded:", sorted(m for m in ("s3fs", "botocore", "aiobotocore", "obstore") if m in sys.modules))
sys.exit(code)
"""


def run(args: list[str], **env: str | None) -> subprocess.CompletedProcess:
    """The program in a process of its own, with `env` set (None: unset) over this one's."""
    environ = {k: v for k, v in {**os.environ, **env}.items() if k != "TUI_INSIGHT_S3_CLIENT" or k in env}
    return subprocess.run([sys.executable, "-c", PROGRAM, *args], capture_output=True, text=True,
                          env={k: v for k, v in environ.items() if v is not None}, timeout=120)


@pytest.fixture(scope="module")
def prefix(tmp_path_factory, s3_server) -> str:
    root = tmp_path_factory.mktemp("logs")
    writer = SummaryWriter(root / "run", timestamp=1)
    for step in range(1, 21):
        writer.add_scalar("loss", 1 / step)
        writer.record(step, wall_time=1000.0 + step)
    writer.close()
    prefix = f"{s3_server.bucket()}/logs"
    s3_server.upload(root, prefix)
    return prefix


def summary(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, done.stderr
    return re.sub(r"\S+ ago", "ago", done.stdout.rpartition("loaded:")[0])  # (the clock moved on)


def loaded(done: subprocess.CompletedProcess) -> str:
    return done.stdout.rpartition("loaded:")[2].strip()


def test_env_credentials_and_an_endpoint_read_through_obstore_alone(prefix, s3_server):
    light = run([f"s3://{prefix}", "--summary", *s3_server.cli_options])
    heavy = run([f"s3://{prefix}", "--summary", *s3_server.cli_options], TUI_INSIGHT_S3_CLIENT="s3fs")
    assert summary(light) == summary(heavy) and "loss" in summary(light)
    assert loaded(light) == "['obstore']"
    assert "botocore" in loaded(heavy) and "obstore" not in loaded(heavy)


def test_settings_obstore_cannot_honour_keep_s3fs_and_say_nothing(prefix, s3_server):
    done = run([f"s3://{prefix}", "--summary", *s3_server.cli_options, "--storage-option", "requester_pays=true"])
    assert "botocore" in loaded(done) and "obstore" not in loaded(done)
    assert "obstore" not in done.stderr and "s3fs" not in done.stderr


def test_a_profile_keeps_s3fs(prefix, s3_server, tmp_path: Path):
    config = tmp_path / "config"
    config.write_text("[profile logs]\nregion = us-east-1\n")
    credentials = tmp_path / "credentials"
    credentials.write_text("[logs]\naws_access_key_id = testing\naws_secret_access_key = testing\n")
    done = run([f"s3://{prefix}", "--summary", *s3_server.cli_options], AWS_PROFILE="logs",
               AWS_CONFIG_FILE=str(config), AWS_SHARED_CREDENTIALS_FILE=str(credentials))
    assert "loss" in summary(done) and "botocore" in loaded(done)


def test_a_region_left_to_the_aws_config_file_keeps_s3fs(prefix, s3_server, tmp_path: Path):
    config = tmp_path / "config"
    config.write_text("[default]\nregion = us-east-1\n")
    done = run([f"s3://{prefix}", "--summary", *s3_server.cli_options], AWS_CONFIG_FILE=str(config),
               AWS_DEFAULT_REGION=None, AWS_REGION=None)
    assert "loss" in summary(done) and "botocore" in loaded(done)
    done = run([f"s3://{prefix}", "--summary", *s3_server.cli_options], AWS_CONFIG_FILE=str(tmp_path / "none"),
               AWS_DEFAULT_REGION=None, AWS_REGION=None)
    assert "loss" in summary(done) and loaded(done) == "['obstore']"


@pytest.mark.parametrize("client", ["obstore", "s3fs"])
def test_a_missing_bucket_or_a_dead_endpoint_is_the_same_line_through_either_client(client, s3_server, capsys,
                                                                                     monkeypatch):
    from tui_insight.cli import main

    monkeypatch.setenv("TUI_INSIGHT_S3_CLIENT", client)
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    said = []
    for endpoint in (s3_server.endpoint, f"http://127.0.0.1:{dead}"):
        code = main(["s3://no-such-bucket/logs", "--summary", "--remote-timeout", "5",
                     "--storage-option", f"client_kwargs.endpoint_url={endpoint}"])
        err = capsys.readouterr().err.strip()
        assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
        said.append(err)
    assert said[0] == "tui-insight: error: cannot read s3://no-such-bucket/logs: The specified bucket does not exist"
    assert said[1].startswith("tui-insight: error: cannot read s3://no-such-bucket/logs: "
                              f'Could not connect to the endpoint URL: "http://127.0.0.1:{dead}/no-such-bucket?')
