"""What the screens and views are drawn with: Textual widgets over plain data, no state of a view.

- Charts: `chart.py` (plotext lines), `ridgeline.py` (histograms over steps), `bands.py`
  (distributions over steps), `heatmap.py` (loss landscapes), `halfblock.py` (images),
  `braille.py`, `scatter.py`, `parallel_coords.py`, `profile_charts.py`,
  `profile_timeline.py`; `themed.py`: the theme's colours of every chart (`ThemedChart`) and the
  cursor charts' shared frame (`CursorChart`).
- Tables and lists: `job_table.py` (its rows `job_rows.py`, rank groups `job_groups.py`),
  `lineage_table.py` (and `cell_text`), `lineage_diff.py`, `lineage_columns.py`, `lineage_dataset.py`, `importance_table.py`, `profile_table.py`,
  `slice_table.py`, `summary_table.py`, `tag_picker.py`, `run_picker.py`, `graph_tree.py`,
  `node_detail.py`.
- Frames: `view_grid.py`, `footer.py`, `progress.py`, `on_demand_input.py`, `commands.py` (keys
  a drawing widget hands to its view).
- A view's panes, each a whole widget over what its presenter made: `lineage_panes.py` (filter
  box, panel, dataset pane, the two tables' switcher), `image_card.py` (cards and their grid; their
  plain data `image_data.py`), `profile_panes.py` (ops, timeline, text sections), `scalar_panes.py`
  (chart grid and the lines around it).
"""
