"""Regenerate tui_insight/proto/*_pb2.py from proto/*.proto.

    python proto/generate.py            # write into tui_insight/proto/
    python proto/generate.py --out DIR  # write elsewhere (the staleness test does this)

Needs grpcio-tools and mypy-protobuf (the `dev` extra): beside each module, its type stub
(`*_pb2.pyi`, what mypy reads for our messages). protoc emits `import anf_ir_pb2`, which only
works when the output folder is on sys.path, so the import is rewritten to a relative one in
both.
Each folder of PROTOS is its own import root, so every module lands flat in the output folder
(tensorboard/tb_event.proto -> tb_event_pb2.py).
"""
from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

PROTO_DIR = Path(__file__).resolve().parent
DEFAULT_OUT = PROTO_DIR.parent / "tui_insight" / "proto"
PROTOS = ["anf_ir.proto", "summary.proto", "lineage.proto",
          "tensorboard/tb_event.proto", "tensorboard/tb_hparams.proto",
          "tensorboard/tb_custom_scalar.proto"]


def module_name(proto: str) -> str:
    """The generated module's file name: tensorboard/tb_event.proto -> tb_event_pb2.py."""
    return Path(proto).name.replace(".proto", "_pb2.py")


def stub_name(proto: str) -> str:
    """The generated type stub's file name: tensorboard/tb_event.proto -> tb_event_pb2.pyi."""
    return module_name(proto) + "i"


def stub_plugin() -> str:
    """mypy-protobuf's protoc plugin: beside this Python's executable (a venv not activated), or on PATH."""
    beside = Path(sys.executable).parent / "protoc-gen-mypy"
    found = str(beside) if beside.exists() else shutil.which("protoc-gen-mypy")
    if found is None:
        raise SystemExit("protoc-gen-mypy not found: pip install '.[dev]' (mypy-protobuf)")
    return found


def generate(out: Path) -> list[Path]:
    import grpc_tools
    from grpc_tools import protoc

    well_known = Path(grpc_tools.__file__).parent / "_proto"  # google/protobuf/struct.proto
    plugin = stub_plugin()
    out.mkdir(parents=True, exist_ok=True)
    for folder in sorted({Path(p).parent for p in PROTOS}):
        files = [str(PROTO_DIR / p) for p in PROTOS if Path(p).parent == folder]
        args = ["protoc", f"-I{PROTO_DIR / folder}", f"-I{well_known}", f"--python_out={out}",
                f"--plugin=protoc-gen-mypy={plugin}", f"--mypy_out=quiet:{out}", *files]
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed")
    written = []
    for proto in PROTOS:
        for path in (out / module_name(proto), out / stub_name(proto)):
            text = re.sub(r"^import (\w+_pb2) as", r"from . import \1 as", path.read_text(), flags=re.M)
            path.write_text(text)
            written.append(path)
    init = out / "__init__.py"
    if not init.exists():
        init.write_text('"""Generated protobuf modules: run proto/generate.py, do not edit."""\n')
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    for path in generate(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
