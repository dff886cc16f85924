"""The app's screens: `jobs.py` (the job list), `dashboard.py` (one job, or compared jobs: one
view per kind of data, see `tui_insight.ui.views`) and `help.py` (`?`).

Dialogs are in `tui_insight.ui.dialogs`, below the views that open them.
"""


def load_dashboard():
    """The dashboard's module, imported when first wanted: its views (and plotext) take ~0.6 s
    to import, which the job list does not need to start (`JobsScreen` preloads it once the
    first load is done, so the first job opened does not wait for it either)."""
    from . import dashboard as module

    return module
