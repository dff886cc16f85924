"""TensorBoard's graphs beside a run's GraphDef, as GraphDefs the graph module builds from:

- an op graph traced by `tf.function` (`tf.summary.trace_export`): a summary value of plugin
  "graph_run_metadata_graph" (or "graph_run_metadata" when profiled too) holding a RunMetadata;
  TensorBoard draws its function graphs' `pre_optimization_graph`s, merged;
- a step's RunMetadata (`FileWriter.add_run_metadata`, Event.tagged_run_metadata): its
  partition and function graphs when it holds any; step statistics alone draw nothing here;
- the Keras conceptual graph (plugin "graph_keras_model"): the model's JSON config, turned into
  a graph of layers as TensorBoard's `keras_util.keras_model_to_graph_def` does (the layer's
  Keras class stands as the node's op).

Each function returns serialized GraphDef bytes (`tensorboard.graph_proto` reads them) or a
`Problem` saying why there is no graph; nothing raises on bad input.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterator

from google.protobuf.message import DecodeError

from ..text import text_of
from .routed import Problem

if TYPE_CHECKING:  # (the functions import it: a MindSpore run, which loads this module, never does)
    from ...proto import tb_event_pb2

RUN_METADATA_GRAPH = "graph_run_metadata_graph"
RUN_METADATA = "graph_run_metadata"
KERAS_MODEL = "graph_keras_model"
TAGGED_RUN_METADATA = "graph_tagged_run_metadata"  # (Event.tagged_run_metadata; TensorBoard's name for it)
PLUGINS = frozenset({RUN_METADATA_GRAPH, RUN_METADATA, KERAS_MODEL})  # summary values holding a graph


def value_graph(value: tb_event_pb2.Summary.Value, plugin: str) -> bytes | Problem:
    """The graph a summary value of one of `PLUGINS` holds."""
    if value.WhichOneof("value") != "tensor" or not value.tensor.string_val:
        return Problem(f"a {plugin} value holds no string tensor")
    data = value.tensor.string_val[0]
    if plugin == KERAS_MODEL:
        return keras_graph(data)
    return run_metadata_graph(data, tagged=False)


def tagged_run_metadata(event: tb_event_pb2.Event) -> tuple[str, bool] | Problem:
    """An Event.tagged_run_metadata's tag, and whether it holds a graph (or step statistics only)."""
    from ...proto import tb_event_pb2
    tagged = tb_event_pb2.TaggedRunMetadata()
    metadata = tb_event_pb2.RunMetadata()
    try:
        tagged.ParseFromString(event.tagged_run_metadata)
        metadata.ParseFromString(tagged.run_metadata)
    except DecodeError as exc:
        return Problem(f"the tagged run metadata cannot be decoded ({exc})")
    graphs = bool(metadata.partition_graphs) or any(f.HasField("pre_optimization_graph") for f in metadata.function_graphs)
    return text_of(tagged.tag), graphs


def tagged_graph(event: tb_event_pb2.Event) -> bytes | Problem:
    """The graph of an Event.tagged_run_metadata."""
    from ...proto import tb_event_pb2
    tagged = tb_event_pb2.TaggedRunMetadata()
    try:
        tagged.ParseFromString(event.tagged_run_metadata)
    except DecodeError as exc:
        return Problem(f"the tagged run metadata cannot be decoded ({exc})")
    return run_metadata_graph(tagged.run_metadata, tagged=True)


def run_metadata_graph(data: bytes, tagged: bool) -> bytes | Problem:
    """A RunMetadata's function graphs (`pre_optimization_graph`) merged, as TensorBoard merges
    them; a `tagged` one without function graphs gives its partition graphs instead."""
    from ...proto import tb_event_pb2
    metadata = tb_event_pb2.RunMetadata()
    try:
        metadata.ParseFromString(data)
    except DecodeError as exc:
        return Problem(f"the run metadata cannot be decoded ({exc})")
    graphs = [f.pre_optimization_graph for f in metadata.function_graphs if f.HasField("pre_optimization_graph")]
    if not graphs and tagged:
        graphs = list(metadata.partition_graphs)
    if not graphs:
        if metadata.HasField("step_stats"):
            return Problem("step statistics only (a profile of the run graph): not drawn")
        return Problem("the run metadata holds no graph")
    return merge_graph_defs(graphs)


def merge_graph_defs(graphs: list[bytes]) -> bytes | Problem:
    """TensorBoard's `graph_util.merge_graph_defs`: one graph as it is; several, each under a
    `graph_<n>` scope (names across traced functions are not unique)."""
    from ...proto import tb_event_pb2
    if len(graphs) == 1:
        return graphs[0]
    merged = tb_event_pb2.GraphDef()
    for number, data in enumerate(graphs, 1):
        graph = tb_event_pb2.GraphDef()
        try:
            graph.ParseFromString(data)
        except DecodeError as exc:
            return Problem(f"function graph {number} cannot be decoded ({exc})")
        prefix = f"graph_{number}"
        for node in graph.node:
            added = merged.node.add()
            added.CopyFrom(node)
            added.name = f"{prefix}/{node.name}"
            del added.input[:]
            added.input.extend(_prefixed_input(prefix, name) for name in node.input)
    return merged.SerializeToString()


def _prefixed_input(prefix: str, name: str) -> str:
    return f"^{prefix}/{name[1:]}" if name.startswith("^") else f"{prefix}/{name}"


# -- the Keras conceptual graph (TensorBoard's plugins/graph/keras_util.py) ---------------------

def keras_graph(data: bytes) -> bytes | Problem:
    """The graph of a Keras model's JSON config (`model.to_json()`)."""
    try:
        config = json.loads(data)
        graph = _keras_model_to_graph_def(config)
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, RecursionError) as exc:
        return Problem(f"the Keras model config cannot be read ({type(exc).__name__}: {exc})")
    return graph.SerializeToString()


def _walk_layers(layer: Any, scope: str = "") -> Iterator[tuple[str, Any]]:
    """(name scope, layer config) of the layer and every layer nested in it, in preorder."""
    yield scope, layer
    nested = layer.get("config").get("layers")
    if nested:
        name = layer.get("config").get("name")
        inner = f"{scope}/{name}" if scope else name
        for sublayer in nested:
            yield from _walk_layers(sublayer, inner)


def _scoped(scope: str, name: str) -> str:
    return f"{scope}/{name}" if scope else name


def _layer_list(layers: list) -> list:
    """`output_layers` as a list of [name, size, index] (one of them may come bare)."""
    return layers if isinstance(layers[0], list) else [layers]


def _inbound(layer: Any) -> list[list]:
    """[name, size, index] of each layer feeding `layer` (Keras 3's `inbound_nodes`)."""
    found = []
    for node in layer.get("inbound_nodes") or []:
        if not isinstance(node, dict):
            continue
        for args in node.get("args", []):
            for arg in args if isinstance(args, list) else [args]:
                history = arg.get("config", {}).get("keras_history", [])
                if len(history) >= 3:
                    found.append(history[:3])
    return found


def _keras_model_to_graph_def(model: Any) -> tb_event_pb2.GraphDef:
    from ...proto import tb_event_pb2
    input_to_layer: dict[str, str] = {}
    outputs_of: dict[str, list[str]] = {}
    graph = tb_event_pb2.GraphDef()
    previous: str | None = None
    for scope, layer in _walk_layers(model):
        config = layer.get("config")
        if config.get("layers") is not None:  # a model: where its inputs come from, its outputs
            previous = _enter_model(scope, layer, input_to_layer, outputs_of, previous)
            continue
        name = _scoped(scope, config.get("name"))
        node = graph.node.add(name=name, op=str(layer.get("class_name") or ""))
        if layer.get("inbound_nodes") is not None:
            for inbound, _, index in _inbound(layer):
                inbound_name = _scoped(scope, inbound)
                names = outputs_of.get(inbound_name, [inbound_name])
                node.input.append(names[index] if index < len(names) else names[-1])
        elif previous is not None:
            node.input.append(previous)
        if name in input_to_layer:
            node.input.append(input_to_layer[name])
        previous = name
    return graph


def _enter_model(scope: str, model: Any, input_to_layer: dict[str, str],
                 outputs_of: dict[str, list[str]], previous: str | None) -> str | None:
    """TensorBoard's `_update_dicts`: a nested model's inputs wired to what feeds it, its
    outputs remembered; the previous node name, as a sequential layout goes on."""
    config = model.get("config")
    name = _scoped(scope, config.get("name"))
    input_layers, output_layers = config.get("input_layers"), config.get("output_layers")
    inbound = _inbound(model)
    functional, in_functional = bool(input_layers and output_layers), bool(inbound)
    if in_functional and functional:
        for input_layer, node in zip(input_layers, inbound):
            input_to_layer[_scoped(name, input_layer)] = _scoped(scope, node[0])
    elif in_functional:
        previous = _scoped(scope, inbound[0][0])
    elif previous and functional:
        if len(input_layers) != 1:
            raise ValueError(f"a multi-input functional model ({len(input_layers)} inputs) inside a sequential one")
        input_to_layer[_scoped(name, input_layers[0])] = previous
    if functional and output_layers:
        outputs_of[name] = [_scoped(name, layer[0]) for layer in _layer_list(output_layers)]
    else:
        outputs_of[name] = [_scoped(name, config.get("layers")[-1].get("config").get("name"))]
    return previous
