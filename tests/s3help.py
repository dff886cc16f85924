"""A real S3 server for tests: moto's `ThreadedMotoServer` on 127.0.0.1 (a free port), with fake
credentials in the environment, helpers to upload logs written locally by our writer, and a
relay in front of it that records requests and can cut or stall its answers."""
from __future__ import annotations

import os
import socket
import threading
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


class Relay:
    """A TCP relay to the S3 server at `port`: it keeps each request's head (`requests`); while
    `cut_after` is set, it closes a connection once its answers passed that many bytes; once
    `hang` is set, it passes nothing on (its connections stay open and silent)."""

    def __init__(self, port: int):
        self.port_to = port
        self.cut_after: int | None = None
        self.hang = threading.Event()
        self.requests: list[bytes] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.endpoint = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            try:
                server = socket.create_connection(("127.0.0.1", self.port_to))
            except OSError:  # the server stopped (its test is over)
                client.close()
                return
            threading.Thread(target=self._up, args=(client, server), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client), daemon=True).start()

    def _up(self, client: socket.socket, server: socket.socket) -> None:
        try:
            while data := client.recv(65536):
                if self.hang.is_set():
                    return  # swallowed
                if data[:4] in (b"GET ", b"HEAD", b"PUT ", b"POST"):
                    self.requests.append(data.split(b"\r\n\r\n")[0])
                server.sendall(data)
        except OSError:
            pass

    def _down(self, server: socket.socket, client: socket.socket) -> None:
        passed = 0
        try:
            while data := server.recv(65536):
                if self.hang.is_set():
                    return  # swallowed: the connection stays open
                if self.cut_after is not None and passed + len(data) > self.cut_after:
                    client.sendall(data[:self.cut_after - passed])
                    break
                client.sendall(data)
                passed += len(data)
        except OSError:
            pass
        for end in (client, server):  # shut down first: the other pump's recv ends, and a FIN is sent now
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            end.close()

    def gets_of(self, name: str) -> list[bytes]:
        return [r for r in self.requests if r.startswith(b"GET ") and name.encode() in r.split(b"\r\n")[0]]

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def relay(s3_server):
    relay = Relay(s3_server.port)
    yield relay
    relay.close()
