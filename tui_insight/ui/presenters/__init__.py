"""What the views show as text, rows and read-outs: pure functions of (state, data), no Textual.

One module per view: `scalars.py`, `histograms.py`, `images.py`, `tensors.py`, `graph.py`,
`lineage.py`, `landscape.py`, `profiler.py`. A view builds its state and data, calls these, and
hands what they return to its widgets; `tests/ui/presenters/` tests them without a terminal.
"""
