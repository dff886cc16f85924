"""A TensorBoard run holding the graphs beside a run's GraphDef (issue 26), written with
tensorboard's own protos and event writer as TensorFlow and Keras write them:
- `f_trace`: what `tf.summary.trace_export` writes, a summary value of plugin
  "graph_run_metadata_graph" holding a RunMetadata of two traced functions;
- `keras`: what Keras' TensorBoard callback writes (`keras_model_summary`), plugin
  "graph_keras_model", the model's JSON config (Keras 3's form: inbound nodes as keras_history);
- `partitions`: an Event.tagged_run_metadata holding a partition graph (TF1's
  `add_run_metadata` with partition graphs);
- `step1`: an Event.tagged_run_metadata holding step statistics only (what tensorboardX's
  `add_graph` writes beside the GraphDef): a profile of the run graph, nothing to draw.
"""
from __future__ import annotations

import json
from pathlib import Path

from tensorboard.compat.proto import config_pb2, event_pb2, graph_pb2, node_def_pb2, step_stats_pb2, summary_pb2
from tensorboard.compat.proto import tensor_pb2, types_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter

WALL = 1_700_000_000.0


def graph_def(nodes: list[tuple[str, str, list[str]]]) -> graph_pb2.GraphDef:
    return graph_pb2.GraphDef(node=[node_def_pb2.NodeDef(name=name, op=op, input=inputs) for name, op, inputs in nodes])


FIRST_FUNCTION = graph_def([("x", "Placeholder", []), ("dense/MatMul", "MatMul", ["x", "dense/kernel"]),
                            ("dense/kernel", "VarHandleOp", []), ("Identity", "Identity", ["dense/MatMul"])])
SECOND_FUNCTION = graph_def([("y", "Placeholder", []), ("Relu", "Relu", ["y"]), ("out", "Identity", ["Relu", "^y"])])
PARTITION = graph_def([("a", "Const", []), ("b", "Neg", ["a"])])

KERAS_MODEL = {
    "class_name": "Functional",
    "config": {
        "name": "classifier",
        "layers": [
            {"class_name": "InputLayer", "name": "pixels", "inbound_nodes": [],
             "config": {"name": "pixels", "dtype": "float32", "batch_shape": [None, 8]}},
            {"class_name": "Dense", "name": "hidden",
             "config": {"name": "hidden", "units": 16,
                        "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}}},
             "inbound_nodes": [{"args": [{"class_name": "__keras_tensor__",
                                          "config": {"shape": [None, 8], "dtype": "float32",
                                                     "keras_history": ["pixels", 0, 0]}}], "kwargs": {}}]},
            {"class_name": "Sequential", "name": "head",
             "config": {"name": "head", "layers": [
                 {"class_name": "Dense", "config": {"name": "logits", "units": 10, "dtype": "float32"}},
                 {"class_name": "Softmax", "config": {"name": "probabilities", "dtype": "float32"}}]},
             "inbound_nodes": [{"args": [{"class_name": "__keras_tensor__",
                                          "config": {"keras_history": ["hidden", 0, 0]}}], "kwargs": {}}]},
        ],
        "input_layers": [["pixels", 0, 0]],
        "output_layers": [["head", 0, 0]],
    },
}


def _blob_value(tag: str, plugin: str, data: bytes) -> summary_pb2.Summary.Value:
    metadata = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(
        plugin_name=plugin, content=b"1"))
    return summary_pb2.Summary.Value(tag=tag, metadata=metadata,
                                     tensor=tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[data]))


def traced() -> config_pb2.RunMetadata:
    return config_pb2.RunMetadata(function_graphs=[
        config_pb2.RunMetadata.FunctionGraphs(pre_optimization_graph=FIRST_FUNCTION),
        config_pb2.RunMetadata.FunctionGraphs(pre_optimization_graph=SECOND_FUNCTION)])


def write_graph_kinds(run: Path) -> None:
    run.mkdir(parents=True, exist_ok=True)
    writer = EventFileWriter(str(run))
    writer.add_event(event_pb2.Event(step=0, wall_time=WALL, summary=summary_pb2.Summary(value=[
        summary_pb2.Summary.Value(tag="loss", simple_value=1.0)])))
    writer.add_event(event_pb2.Event(step=1, wall_time=WALL + 1, summary=summary_pb2.Summary(value=[
        _blob_value("f_trace", "graph_run_metadata_graph", traced().SerializeToString())])))
    writer.add_event(event_pb2.Event(step=0, wall_time=WALL + 2, summary=summary_pb2.Summary(value=[
        _blob_value("keras", "graph_keras_model", json.dumps(KERAS_MODEL).encode())])))
    partitions = config_pb2.RunMetadata(partition_graphs=[PARTITION])
    writer.add_event(event_pb2.Event(step=2, wall_time=WALL + 3, tagged_run_metadata=event_pb2.TaggedRunMetadata(
        tag="partitions", run_metadata=partitions.SerializeToString())))
    profile = config_pb2.RunMetadata(step_stats=step_stats_pb2.StepStats(
        dev_stats=[step_stats_pb2.DeviceStepStats(device="/cpu:0")]))
    writer.add_event(event_pb2.Event(step=3, wall_time=WALL + 4, tagged_run_metadata=event_pb2.TaggedRunMetadata(
        tag="step1", run_metadata=profile.SerializeToString())))
    writer.close()
