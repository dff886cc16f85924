"""Regenerate tui_insight/proto/*_pb2.py from proto/*.proto.

    python proto/generate.py            # write into tui_insight/proto/
    python proto/generate.py --out DIR  # write elsewhere (the staleness test does this)

Needs grpcio-tools (the `dev` extra). protoc emits `import anf_ir_pb2`, which only works
when the output folder is on sys.path, so the import is rewritten to a relative one.
Each folder of PROTOS is its own import root, so every module lands flat in the output folder
(tensorboard/tb_event.proto -> tb_event_pb2.py).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

PROTO_DIR = Path(__file__).resolve().parent
DEFAULT_OUT = PROTO_DIR.parent / "tui_insight" / "proto"
PROTOS = ["anf_ir.proto", "summary.proto", "lineage.proto",
          "tensorboard/tb_event.proto", "tensorboard/tb_hparams.proto"]


def module_name(proto: str) -> str:
    """The generated module's file name: tensorboard/tb_event.proto -> tb_event_pb2.py."""
    return Path(proto).name.replace(".proto", "_pb2.py")


def generate(out: Path) -> list[Path]:
    import grpc_tools
    from grpc_tools import protoc

    well_known = Path(grpc_tools.__file__).parent / "_proto"  # google/protobuf/struct.proto
    out.mkdir(parents=True, exist_ok=True)
    for folder in sorted({Path(p).parent for p in PROTOS}):
        files = [str(PROTO_DIR / p) for p in PROTOS if Path(p).parent == folder]
        args = ["protoc", f"-I{PROTO_DIR / folder}", f"-I{well_known}", f"--python_out={out}", *files]
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed")
    written = []
    for proto in PROTOS:
        path = out / module_name(proto)
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
