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
        from generate import PROTOS, generate, module_name
    finally:
        sys.path.pop(0)
    generate(tmp_path)
    assert {"tb_event_pb2.py", "tb_hparams_pb2.py"} <= {module_name(p) for p in PROTOS}
    for proto in PROTOS:
        name = module_name(proto)
        committed = REPO / "tui_insight" / "proto" / name
        assert serialized_descriptor(tmp_path / name) == serialized_descriptor(committed), (
            f"{name} is stale: run python proto/generate.py")
        stub = name + "i"  # the type stub mypy reads (mypy-protobuf)
        assert (tmp_path / stub).read_text() == (committed.parent / stub).read_text(), (
            f"{stub} is stale: run python proto/generate.py")


def test_fast_backend():
    assert api_implementation.Type() == "upb"


def test_mindspore_added_data_types_are_known():
    from tui_insight.proto import anf_ir_pb2

    assert anf_ir_pb2.DataType.Name(46) == "DT_BFLOAT16"
    assert anf_ir_pb2.DataType.Name(49) == "DT_SLICE"


# Our TensorBoard messages and the TensorBoard package's own (tensorboard/compat/proto and the
# hparams plugin): every field we declare has TensorBoard's number and wire type.
_WIRE = {  # descriptor field type -> protobuf wire type
    1: 1, 6: 1, 16: 1,  # double, fixed64, sfixed64
    2: 5, 7: 5, 15: 5,  # float, fixed32, sfixed32
    3: 0, 4: 0, 5: 0, 8: 0, 13: 0, 14: 0, 17: 0, 18: 0,  # varints (enums are int32 in ours)
    9: 2, 11: 2, 12: 2,  # string, message, bytes
}


def _same_wire(ours, theirs, path=""):
    for field in ours.fields:
        other = theirs.fields_by_number.get(field.number)
        where = f"{path}{ours.name}.{field.name}"
        assert other is not None, f"{where} = {field.number}: no such field in TensorBoard's {theirs.full_name}"
        assert other.name == field.name, f"{where} is {other.name} in TensorBoard"
        assert field.is_repeated == other.is_repeated, where
        # A message we only notice is bytes in ours: both are length-delimited.
        assert _WIRE[field.type] == _WIRE[other.type], f"{where}: wire type differs"
        nested, other_nested = field.message_type, other.message_type
        if nested is not None and other_nested is not None and nested is not other_nested:  # not google.protobuf.Value
            _same_wire(nested, other_nested, where + ".")
    for enum in ours.enum_types:
        _same_enum(enum, theirs.enum_types_by_name[enum.name])


def _same_enum(ours, theirs):
    for value in ours.values:
        assert theirs.values_by_name[value.name].number == value.number, f"{ours.name}.{value.name}"


def test_tensorboard_messages_are_wire_compatible():
    from tensorboard.compat.proto import event_pb2, graph_pb2, summary_pb2, types_pb2
    from tensorboard.plugins.hparams import api_pb2, plugin_data_pb2

    from tui_insight.proto import tb_event_pb2, tb_hparams_pb2

    for ours, theirs in [
        (tb_event_pb2.Event, event_pb2.Event),
        (tb_event_pb2.SessionLog, event_pb2.SessionLog),
        (tb_event_pb2.Summary, summary_pb2.Summary),
        (tb_event_pb2.SummaryMetadata, summary_pb2.SummaryMetadata),
        (tb_event_pb2.GraphDef, graph_pb2.GraphDef),
        (tb_hparams_pb2.HParamsPluginData, plugin_data_pb2.HParamsPluginData),
    ]:
        _same_wire(ours.DESCRIPTOR, theirs.DESCRIPTOR)
    _same_enum(tb_event_pb2.DataType.DESCRIPTOR, types_pb2.DataType.DESCRIPTOR)
    _same_enum(tb_hparams_pb2.Status.DESCRIPTOR, api_pb2.Status.DESCRIPTOR)
    _same_enum(tb_hparams_pb2.DataType.DESCRIPTOR, api_pb2.DataType.DESCRIPTOR)
    session = event_pb2.SessionLog.SessionStatus.DESCRIPTOR
    _same_enum(tb_event_pb2.SessionStatus.DESCRIPTOR, session)
