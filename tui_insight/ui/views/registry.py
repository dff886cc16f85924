"""Every view of the dashboard, in the order of their keys. A static list: a view is a class here."""
from __future__ import annotations

from .base import DataView, ViewSpec
from .custom_scalars import CustomScalarsView
from .described import DescribedView
from .graph import GraphView
from .histograms import HistogramsView
from .images import ImagesView
from .landscape import LandscapeView
from .lineage import LineageView
from .pr_curves import PrCurvesView
from .profiler import ProfilerView
from .scalars import ScalarsView
from .tensors import TensorsView
from .text import TextView

VIEW_CLASSES: tuple[type[DataView], ...] = (
    ScalarsView, HistogramsView, TensorsView, ImagesView, GraphView, LandscapeView, ProfilerView, TextView,
    PrCurvesView, CustomScalarsView, DescribedView, LineageView,
)
VIEWS: tuple[ViewSpec, ...] = tuple(cls.SPEC for cls in VIEW_CLASSES)
JOB_VIEWS: tuple[ViewSpec, ...] = tuple(spec for spec in VIEWS if spec.scope == "job")


def spec_by_id(view_id: str) -> ViewSpec:
    for spec in VIEWS:
        if spec.view_id == view_id:
            return spec
    raise KeyError(view_id)


def view_class(view_id: str) -> type[DataView]:
    for cls in VIEW_CLASSES:
        if cls.SPEC.view_id == view_id:
            return cls
    raise KeyError(view_id)
