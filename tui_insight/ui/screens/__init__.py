"""The app's screens: `jobs.py` (the job list), `dashboard.py` (one job, or compared jobs: one
view per kind of data, see `tui_insight.ui.views`) and `help.py` (`?`).

Dialogs are in `tui_insight.ui.dialogs`, below the views that open them.
"""
import sys

DASHBOARD_MODULE = f"{__name__}.dashboard"


def dashboard_loaded() -> bool:
    """Whether the dashboard's module is imported whole (`load_dashboard` would not wait): not
    while another thread is still importing it (`__spec__._initializing`, the flag importlib
    itself reads for a partly imported module)."""
    module = sys.modules.get(DASHBOARD_MODULE)
    return module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False)


def load_dashboard():
    """The dashboard's module, imported when first wanted: its views (and plotext) take ~0.6 s
    to import, which the job list does not need to start (`JobsScreen` preloads it once the
    first load is done, so the first job opened does not wait for it either)."""
    from . import dashboard as module

    return module
