"""The app's CSS (app.tcss) and colour themes (*.json, Textual Theme fields).

Kept at the top of the repository and installed as the package `tui_insight.themes`; add a
theme by dropping a JSON file here.
"""
