"""Dataset pipelines: the dataset graph of a job's lineage (compat §6.4) as the operations of
its pipeline, for the graph view's pipeline and the lineage table's dataset columns."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

_STRUCTURE_KEYS = ("op_type", "children", "operations", "sampler")


@dataclass(frozen=True)
class DatasetOp:
    """One operation of a dataset pipeline (a level of the §6.4 dataset-graph dict).

    op_type: "MnistDataset", "Map", "Batch", ... ("" if the dict has none);
    params: its other parameters (batch_size, num_parallel_workers, input_columns, ...);
    operations: a Map's tensor operations [{tensor_op_name, tensor_op_params, size?, weights?}];
    sampler: a source's sampler parameters or None; children: the pipelines feeding it;
    depth: 0 for the last operation (the dict's root), +1 per step towards the sources.
    """

    op_type: str
    params: dict[str, Any]
    operations: tuple[dict[str, Any], ...]
    sampler: dict[str, Any] | None
    children: tuple["DatasetOp", ...]
    depth: int


def dataset_tree(dataset_graph: Mapping[str, Any] | None, depth: int = 0) -> DatasetOp | None:
    """The dataset graph as a tree rooted at the last operation; None for an empty graph. The
    dict comes from a file: parts of the wrong type (an `operations` that is a number) are left
    out, never raised."""
    if not dataset_graph or not isinstance(dataset_graph, Mapping):
        return None
    operations = [dict(op) for op in _listed(dataset_graph.get("operations")) if isinstance(op, Mapping)]
    children = tuple(child for child in (dataset_tree(c, depth + 1) for c in _listed(dataset_graph.get("children")))
                     if child is not None)
    sampler = dataset_graph.get("sampler")
    return DatasetOp(
        op_type=str(dataset_graph.get("op_type") or ""),
        params={k: v for k, v in dataset_graph.items() if k not in _STRUCTURE_KEYS},
        operations=tuple(operations),
        sampler=dict(sampler) if sampler and isinstance(sampler, Mapping) else None,
        children=children,
        depth=depth,
    )


def _listed(value: Any) -> list | tuple:
    """`value` if it is a list (or tuple), else nothing."""
    return value if isinstance(value, (list, tuple)) else ()


def dataset_pipeline(dataset_graph: Mapping[str, Any] | None) -> list[DatasetOp]:
    """The pipeline in data-flow order: each source first, then every operation up to the last.

    (Post-order over `dataset_tree`: a Zip's inputs are listed before the Zip.) [] if empty.
    """
    out: list[DatasetOp] = []

    def visit(op: DatasetOp) -> None:
        for child in op.children:
            visit(child)
        out.append(op)

    root = dataset_tree(dataset_graph)
    if root is not None:
        visit(root)
    return out
