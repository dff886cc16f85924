"""Screens of the app, and the modules of the dashboard views (see `tui_insight.ui.views`)."""
