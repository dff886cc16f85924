"""Screens of the app, and the modules of the dashboard views (see `tui_insight.ui.views`)."""


def load_dashboard():
    """The dashboard's module, imported when first wanted: its views (and plotext) take ~0.6 s
    to import, which the job list does not need to start (`JobsScreen` preloads it once the
    first load is done, so the first job opened does not wait for it either)."""
    from . import dashboard as module

    return module
