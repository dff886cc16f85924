"""The views' state: plain, immutable objects with pure transitions. No Textual here.

A view's settings and position (selected tags, smoothing, zoom, slice, step, sort, ...) live in
one frozen dataclass per view. Every change is a method that returns a new object
(`state.zoom_back()`, `state.with_slice("[0,:,1:10]")`), so it is tested as a plain unit test,
and the widget holds the state in one reactive and redraws from it.

Each state writes what is worth remembering with `to_json()` and reads it back with
`from_json(data)`, which never raises: a value of the wrong type or out of range is replaced by
the default (see `persist.py`), so an old or hand-edited workspace file cannot break a view.
"""
