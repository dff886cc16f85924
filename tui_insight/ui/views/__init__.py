"""The dashboard's views: one per kind of data, each a thin widget over a state object.

`base.py` has `DataView`, the base class; `registry.py` the static list of views. A view's
settings and position live in an immutable state object (`tui_insight.ui.state`), held in one
reactive; its widgets draw that state. Slow work goes through the view's `Loader`.
"""
