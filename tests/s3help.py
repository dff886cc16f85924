"""A real S3 server for tests: moto's `ThreadedMotoServer` on 127.0.0.1 (a free port), with fake
credentials in the environment, and helpers to upload logs written locally by our writer."""
from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

FAKE_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                    "AWS_DEFAULT_REGION": "us-east-1"}


class S3Server:
    def __init__(self):
        from moto.server import ThreadedMotoServer

        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self._server.start()
        self.port = self._server.get_host_and_port()[1]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.options = {"client_kwargs": {"endpoint_url": self.endpoint}, "skip_instance_cache": True,
                        "config_kwargs": {"retries": {"max_attempts": 1}, "connect_timeout": 2}}
        self.cli_options = ["--storage-option", f"client_kwargs.endpoint_url={self.endpoint}"]

    def fs(self):
        import s3fs

        return s3fs.S3FileSystem(**self.options)

    def bucket(self) -> str:
        name = f"logs-{uuid.uuid4().hex[:10]}"
        self.fs().mkdir(name)
        return name

    def upload(self, local_dir: Path, prefix: str) -> None:
        """Every file under `local_dir` put (whole, again) under `prefix` (bucket/path)."""
        fs = self.fs()
        for path in Path(local_dir).rglob("*"):
            if path.is_file():
                fs.pipe_file(f"{prefix}/{path.relative_to(local_dir).as_posix()}", path.read_bytes())

    def stop(self) -> None:
        self._server.stop()

    def start_again(self) -> None:
        """The same server again on the same port (moto keeps its buckets in this process)."""
        from moto.server import ThreadedMotoServer

        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self._server.start()


@pytest.fixture(scope="module")
def s3_server():
    saved = {k: os.environ.get(k) for k in FAKE_CREDENTIALS}
    os.environ.update(FAKE_CREDENTIALS)
    server = S3Server()
    yield server
    server.stop()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(params=["obstore", "s3fs"])
def s3_client(request, monkeypatch):
    """Each test once through obstore (where the settings allow it: `object_light`) and once
    through s3fs (`$TUI_INSIGHT_S3_CLIENT=s3fs`)."""
    monkeypatch.setenv("TUI_INSIGHT_S3_CLIENT", request.param)
    return request.param
