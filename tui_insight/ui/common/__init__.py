"""Small helpers every part of the UI uses: the bottom layer of `tui_insight.ui`.

- `format.py`: short texts (relative times, sizes, numbers); `palette.py`: series and job colours.
- `names.py`: names cut to fit yet apart (`middle`, `apart`): run, tag and job names.
- `text.py`: text from log files inside markup (`markup`, `literal`): escaped, never parsed.
- `filters.py`: the `/` filter of every list; `focus.py`: focus that holds before the next key.
"""
