"""The lineage tables' plain data, without Textual: a cell's text, a column, a short value
(the presenters build rows of them; `lineage_table.py` draws them)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Union

from rich.text import Text

from ..common.format import number
from ..common.text import shown

Cell = Union[str, Text, None]  # None: a missing value, drawn as a dim "-"
PATH_WIDTH = 26  # dataset paths are cut at the front: their end tells them apart


def cell_text(value: Any, column: str = "") -> Cell:
    """A model-lineage value for a cell: numbers compact, long paths by their end (full values
    go to the export); control characters shown escaped."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return number(value)
    if isinstance(value, (dict, list, tuple)):
        return shown(json.dumps(value, sort_keys=True, default=str))
    text = shown(str(value))
    if column.endswith("_path") and len(text) > PATH_WIDTH:
        return "…" + text[-(PATH_WIDTH - 1):]
    return text


@dataclass(frozen=True)
class TableColumn:
    key: str
    label: str
    numeric: bool = False  # right-justified
    group: str = ""  # a label over a run of columns (a second header line), e.g. a pipeline stage



def short_value(value: Any) -> str:
    """An axis value as a short label: 0.001, 2.46, 128, Adam."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return shown(str(value))
    if isinstance(value, int) or float(value).is_integer() and abs(value) < 1e6:
        return str(int(value))
    return f"{value:.3g}"
