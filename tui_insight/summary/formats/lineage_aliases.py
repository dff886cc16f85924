"""Other names of the model-lineage columns: what writers call a hyper-parameter (`lr`, `bs`, `opt`
in tensorboardX's own `add_hparams` example) and what people type in the lineage filter.

One table, read two ways:
- a TensorBoard hyper-parameter fills the lineage column it names (`hparam_columns`) where that
  is unambiguous: per run, a column takes the hyper-parameter written under its own name, else
  the one alias of it the run holds; a run holding two aliases of one column (`lr` and
  `learning-rate`) keeps both under their own names, so no column ever holds two of a run's values;
- the lineage filter reads an alias as its column (`typed_column`), and a few more words that
  name a column but no hyper-parameter (`dir`, `run`, `size`).
Names are compared lowercased without `_`, `-`, `.` and spaces: `LR`, `learningRate` and
`learning-rate` are all learning_rate.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable

# Lineage column -> the names hyper-parameters are written under that mean it (its own included).
HPARAM_ALIASES: dict[str, tuple[str, ...]] = {
    "learning_rate": ("learning_rate", "lr", "learn_rate"),
    "batch_size": ("batch_size", "bs", "batch"),
    "optimizer": ("optimizer", "opt", "optim", "optimiser"),
    "epoch": ("epoch", "epochs", "num_epochs", "n_epochs", "max_epochs"),
    "network": ("network", "net", "arch", "architecture", "model"),
    "loss_function": ("loss_function", "loss_fn", "loss_func", "criterion"),
    "device_num": ("device_num", "devices", "num_devices", "gpus", "num_gpus", "n_gpus"),
}
# Words the filter takes for a column that name no hyper-parameter.
TYPED_ONLY: dict[str, str] = {"dir": "summary_dir", "run": "summary_dir", "job": "summary_dir",
                              "train_id": "summary_dir", "size": "model_size",
                              "train_count": "train_dataset_count", "test_count": "test_dataset_count"}


def folded(name: str) -> str:
    """`name` as aliases are compared: lowercased, without `_`, `-`, `.` and spaces."""
    return re.sub(r"[\s_.\-]", "", name.lower())


_COLUMN_OF = {folded(alias): column for column, aliases in HPARAM_ALIASES.items() for alias in aliases}
_TYPED = {**{folded(word): column for word, column in TYPED_ONLY.items()}, **_COLUMN_OF}


def alias_column(name: str) -> str | None:
    """The lineage column a hyper-parameter named `name` means, None if none."""
    return _COLUMN_OF.get(folded(name))


def typed_column(word: str) -> str | None:
    """The lineage column a word typed in the filter means (`lr`, `bs`, `dir`), None if none."""
    return _TYPED.get(folded(word))


def hparam_columns(names: Iterable[str], fits: Callable[[str, str], bool]) -> dict[str, str]:
    """Which of one run's hyper-parameters (`names`, as written) fill which lineage column:
    {name: column}. `fits(name, column)` says whether the value fits the column (a text
    optimizer, a whole batch size) and the column is free; names that do not fit are no
    candidates. Per column, the name written exactly as the column wins, else the only candidate;
    two or more other candidates fill nothing."""
    candidates: dict[str, list[str]] = {}
    for name in names:
        column = alias_column(name)
        if column is not None and fits(name, column):
            candidates.setdefault(column, []).append(name)
    out = {}
    for column, found in candidates.items():
        exact = [name for name in found if name == column]
        chosen = exact or (found if len(found) == 1 else [])
        if chosen:
            out[chosen[0]] = column
    return out
