"""Everything about training logs: reading, the shared cache and the queries. No UI here.

No Textual, Rich or `tui_insight.ui` / `cli` / `export` below this line (import-linter checks
it): the screens, `--export csv` and `--summary` all read through these modules.

Where things are, in the order data flows (ARCHITECTURE.md draws it; import-linter checks
that each stage imports only the ones below it: queries > store > sources > formats):
- `sources/`: where the bytes come from (this machine, ssh, object stores) and the jobs in them.
- `formats/`: bytes to routed values, one router per format, per-file readers, the writer.
- `store/`: the shared cache, its series, memory budget, worker processes and disk cache.
- `queries/`: pure functions over the store's job views.
- Shared by every stage: `limits.py` (MindInsight's retention limits), `numbers.py` (numbers
  read from files, checked), `text.py` (strings read from files), `gc_policy.py` (the one
  switch of Python's cycle collector: counted pauses, held freezes).
"""
