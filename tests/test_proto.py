"""The generated protobuf modules are current and use the fast (upb) backend."""
import re
import sys
from pathlib import Path

from google.protobuf.internal import api_implementation

REPO = Path(__file__).resolve().parents[1]


def serialized_descriptor(path: Path) -> str:
    match = re.search(r"AddSerializedFile\((b'.*?')\)\n", path.read_text(), flags=re.S)
    assert match, f"no serialized descriptor in {path}"
    return match.group(1)


def test_generated_modules_are_current(tmp_path):
    sys.path.insert(0, str(REPO / "proto"))
    try:
        from generate import PROTOS, generate
    finally:
        sys.path.pop(0)
    generate(tmp_path)
    for proto in PROTOS:
        name = proto.replace(".proto", "_pb2.py")
        committed = REPO / "tui_insight" / "proto" / name
        assert serialized_descriptor(tmp_path / name) == serialized_descriptor(committed), (
            f"{name} is stale: run python proto/generate.py")


def test_fast_backend():
    assert api_implementation.Type() == "upb"


def test_mindspore_added_data_types_are_known():
    from tui_insight.proto import anf_ir_pb2

    assert anf_ir_pb2.DataType.Name(46) == "DT_BFLOAT16"
    assert anf_ir_pb2.DataType.Name(49) == "DT_SLICE"
