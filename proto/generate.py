"""Regenerate tui_insight/proto/*_pb2.py from proto/*.proto.

    python proto/generate.py            # write into tui_insight/proto/
    python proto/generate.py --out DIR  # write elsewhere (the staleness test does this)

Needs grpcio-tools (the `dev` extra). protoc emits `import anf_ir_pb2`, which only works
when the output folder is on sys.path, so the import is rewritten to a relative one.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

PROTO_DIR = Path(__file__).resolve().parent
DEFAULT_OUT = PROTO_DIR.parent / "tui_insight" / "proto"
PROTOS = ["anf_ir.proto", "summary.proto", "lineage.proto"]


def generate(out: Path) -> list[Path]:
    from grpc_tools import protoc

    out.mkdir(parents=True, exist_ok=True)
    args = ["protoc", f"-I{PROTO_DIR}", f"--python_out={out}", *(str(PROTO_DIR / p) for p in PROTOS)]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    written = []
    for proto in PROTOS:
        path = out / proto.replace(".proto", "_pb2.py")
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
