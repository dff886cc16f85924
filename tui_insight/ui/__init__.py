"""The Textual terminal UI over a `SummaryCache`.

How it is built
---------------
- `app.py`: `InsightApp` and `run_app(cache, theme=..., reload_interval=...)`. The app starts the
  cache's loading thread on mount, turns its change notices (which arrive on that thread) into one
  coalesced `CacheChanged` message on the UI thread, and hands the `Changes` to every screen
  (`screen.cache_changed(changes)`). Global keys (`?`, `q`, `escape`, `ctrl+p`, `e`, `l`) live there.
- `screens/jobs.py`: the job list. `screens/dashboard.py`: one job (or the marked jobs, compared),
  with one view per kind of data, switched with `1`..`5`. `l` opens the lineage view of all jobs.
- `views.py`: the view registry and `DataView`, the base class of every view.

How a new view plugs in (histograms, tensors, images, graph, lineage)
---------------------------------------------------------------------
1. Create the module named in `views.VIEWS` for your view, e.g. `tui_insight/ui/screens/histograms.py`
   (`tensors.py`, `images.py`, `graph.py`, `lineage.py`). Nothing else needs editing: until the
   module exists the dashboard shows a placeholder listing what the cache holds.
2. In it, subclass `DataView` and export the class as `VIEW`:

       from tui_insight.ui.views import DataView

       class HistogramsView(DataView):
           BINDINGS = [Binding("o", "offset_mode", "Offset/overlay", id="histograms.mode")]
           def compose(self): ...                      # your widgets
           def cache_changed(self, changes): ...       # UI thread; re-read what changed
           def export_scope(self): ...                 # optional: what `e` exports

       VIEW = HistogramsView

   The dashboard builds it lazily the first time its key is pressed, as
   `VIEW(cache, train_ids, id="view-<view_id>")` and sets `view.spec` (its `ViewSpec`):
   `self.cache` is the `SummaryCache`, `self.train_ids` the opened job(s) (one job, or the marked
   jobs in comparison, in marking order; `self.jobs` gives their current `JobView`s;
   `self.job_colour(train_id)` their stable colour-blind-safe comparison colour). Views with
   scope "all" (lineage) get every train id; `train_ids` is updated as jobs come and go.
   `cache_changed(changes)` runs on the UI thread after every reload that changed something
   (`changes.updated[train_id]` is the set of (plugin, tag) with new data; an empty set means
   "read again from scratch"). When the view is mounted it gets the keyboard through
   `focus_view()` (override it to choose the widget; `DataView.on_mount` calls it, your own
   `on_mount` runs as well).
3. Never open files in a view: read `JobView`s and the query modules; decode payloads through
   `self.cache.payloads` (raises `PayloadError`: show its message, never a traceback). Anything
   slow goes to a thread worker (`self.run_worker(fn, thread=True)`).
4. Give every binding an `id` ("<view_id>.<name>") so users can remap it in the keymap file. The
   help screen (`?`) and the command palette (`ctrl+p`) list the bindings of the focused widgets
   and of the active view automatically; no registration is needed.
"""
