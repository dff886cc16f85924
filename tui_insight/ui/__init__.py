"""The Textual terminal UI over a `SummaryCache`.

Where things are (layers, top to bottom: app > screens > views > presenters > dialogs | widgets >
state > common; import-linter checks them, `pyproject.toml`)
----------------
- `app.py`: `InsightApp` and `run_app(...)`. The app starts the cache's loading thread, turns its
  change notices (which arrive on that thread) into one coalesced `CacheChanged` message on the UI
  thread and hands the `Changes` to every screen. It owns the `Workspace` (what each view was set
  to, saved under the user's state directory) and opens what the command line asked for (`StartAt`).
- `screens/`: real `Screen`s: the job list, the dashboard of a job (or of compared jobs) with one
  view per kind of data, help.
- `views/`: the dashboard's views (`base.DataView`), listed statically in `views/registry.py`.
- `presenters/`: what each view shows as text, rows, traces and read-outs: pure functions of
  (state, data), no Textual (a contract checks), unit-tested without a terminal.
- `state/`: each view's settings and position as an immutable object with pure transitions.
  No Textual there (a test checks): views hold their state in one reactive and draw it.
- `dialogs.py`: modal dialogs (a one-line prompt, a list to pick from, the CSV export), opened by
  the app, screens and views alike, so below the views.
- `messages.py`: the messages the app sends its screens (`CacheChanged`), and `LatestMessage`,
  the base of the messages only the newest of which matters (cursor moves), folded in the queue.
- `loader.py`: the one background loader every view uses for slow work (decodes, builds).
- `widgets/`: what views are drawn with (charts, ridgelines, tables, trees, the tag list).
- `common/`: small helpers: formatting, colours, focus, the `/` filter, text from files.
- `_textual_compat/`: every workaround that reaches into Textual's (or plotext's) internals,
  each naming the version it was written for. Nowhere else.

How a view is built
-------------------
1. A state object in `state/<view>.py`: a frozen dataclass with transitions (`state.smooth(1)`)
   and `to_json()` / `from_json(data)` (tolerant: a bad workspace file cannot break a view).
2. A `DataView` subclass in `views/<view>.py` with `SPEC = ViewSpec(...)`, added to
   `views/registry.py`. It builds its state from `self.saved` (the workspace's entry), holds it in
   one reactive, and its watcher redraws and calls `self.remember(state)`.
3. Slow work goes through `self.loader.request(key, work, done)`: newest request per key wins, a
   failure arrives as a sentence to show. Never open files in a view: read `JobView`s and the
   query modules; payloads are decoded through `self.cache.payloads`.
4. Text from files (tags, job ids, node names, lineage strings) goes through
   `common.text.markup()` inside markup, or `common.text.literal()` as a `Text`.
5. Every binding has an id ("<view_id>.<name>") so users can remap it; `?` and `ctrl+p` list the
   bindings of the active view. The view calls `ready_for_keys()` once its widgets are composed;
   it takes the keyboard then, so a key pressed early never reaches a widget not yet built.
"""
