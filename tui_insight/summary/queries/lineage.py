"""The lineage queries (compat §6.2-6.4): a row per job (`model_rows`), its columns, conditions
parsed from text, filtering and sorting, and the dataset pipelines as columns.

TensorBoard runs have lineage too: the hparams plugin's session start (what `add_hparams` and
Keras' hparams callback write) makes a row. Its hyper-parameters named like a model-lineage
column or an alias of one (`lr`, `bs`, `opt`: `lineage_aliases`) fill that column where that is
unambiguous, the others are `user_defined/<name>` columns (`LineageRow.hparams` says which
columns a run's hyper-parameters filled, under which names), and the experiment's metrics are
`metric/<tag>` columns (the last value of each metric's scalar).
"""
from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Iterable, Mapping

from .dataset_pipeline import dataset_pipeline
from .export_columns import LINEAGE_COLUMNS
from ..formats.lineage_aliases import hparam_columns as aliased_columns
from ..formats.lineage_aliases import typed_column


FIXED_COLUMNS = LINEAGE_COLUMNS
# What MindInsight's lineage table shows before the user picks columns; all `metric/*` too.
DEFAULT_COLUMNS: tuple[str, ...] = ("summary_dir", "train_dataset_path", "test_dataset_path", "network",
                                    "optimizer", "loss")
STRING_COLUMNS = frozenset({"summary_dir", "loss_function", "train_dataset_path", "test_dataset_path",
                            "network", "optimizer", "dataset_mark"})
INT_COLUMNS = frozenset({"train_dataset_count", "test_dataset_count", "epoch", "batch_size", "device_num",
                         "model_size"})
FLOAT_COLUMNS = frozenset({"learning_rate", "loss"})  # and every metric/<k>
METRIC = "metric/"
USER_DEFINED = "user_defined/"
# Dataset-pipeline parameters as columns, `dataset/<stage>.<param>` (e.g. dataset/Batch.batch_size):
# not MindInsight's; the lineage view adds their values to its rows so the filter (and the
# brush of the dataset chart) can hold them.
DATASET = "dataset/"
OPERATORS = ("eq", "lt", "gt", "le", "ge", "in", "not_in")
_TRAIN_KEYS = ("loss_function", "train_dataset_path", "train_dataset_count", "network", "optimizer",
               "learning_rate", "epoch", "batch_size", "device_num", "loss", "model_size")
_EVAL_KEYS = ("test_dataset_path", "test_dataset_count")
_INT_MAX = 2 ** 63 - 1


class LineageQueryError(ValueError):
    """A lineage condition that cannot be used; the message is fit for the UI."""


@dataclass(frozen=True)
class LineageRow:
    """One job's model lineage, flattened to columns.

    values: every column of the row -> value, None when missing: the FIXED_COLUMNS, then
    `metric/<k>` and `user_defined/<k>` for the keys this job has. dataset_graph: the §6.4
    dict as MindInsight serves it. update_time: the job's, which orders the rows. hparams:
    the columns a TensorBoard session's hyper-parameters filled -> each one's name as written
    (`learning_rate` -> `lr`, `user_defined/dropout` -> `dropout`).
    """

    summary_dir: str
    values: Mapping[str, Any]
    metric: Mapping[str, Any]
    user_defined: Mapping[str, Any]
    dataset_graph: Mapping[str, Any]
    update_time: float = 0.0
    hparams: Mapping[str, str] = field(default_factory=dict)

    def get(self, column: str) -> Any:
        """The value in `column`, None if the job has none."""
        return self.values.get(column)

    def model_lineage(self) -> dict[str, Any]:
        """MindInsight's `model_lineage` object for this row (what `POST /lineages` returns)."""
        out = {column: self.values.get(column) for column in FIXED_COLUMNS[1:]}
        out["metric"] = dict(self.metric)
        out["user_defined"] = dict(self.user_defined)
        return out


def model_rows(jobs: Mapping[str, Any]) -> list[LineageRow]:
    """One row per job with lineage, newest first (update_time descending, then summary_dir).

    `jobs` is `SummaryCache.jobs` (train id -> JobView). Marks: jobs with equal dataset graphs
    share a `dataset_mark`, numbered "2", "3", ... in row order (MindInsight keeps "1" for a
    job with no dataset graph object at all, which never happens: a missing graph is {}).
    """
    views = [view for view in jobs.values() if view.lineage is not None and not view.lineage.empty]
    views.sort(key=lambda view: view.train_id)
    views.sort(key=lambda view: view.update_time, reverse=True)
    marked: list[tuple[dict[str, Any], str]] = []
    rows = []
    for view in views:
        lineage = view.lineage
        graph = lineage.dataset_graph
        mark = next((m for g, m in marked if g == graph), None)
        if mark is None:
            mark = str(len(marked) + 2)
            marked.append((graph, mark))
        metric = lineage.evaluation.get("metric") or {}
        user_defined = dict(lineage.user_defined)
        train = dict(lineage.train)
        written: dict[str, str] = {}  # column -> the hyper-parameter's name as written
        if lineage.session:
            tb_metric, hparams = _session_columns(view, jobs)
            metric = {**metric, **tb_metric}
            # A model-lineage column (its own name or an alias) where `_fills` allows, else
            # user-defined.
            lined_up = aliased_columns(hparams, partial(_fills, train, hparams))
            for name, value in hparams.items():
                column = lined_up.get(name)
                if column is not None:
                    train[column] = _as_column(column, value)
                    written[column] = name
                else:
                    user_defined[name] = value
                    written[USER_DEFINED + name] = name
        values: dict[str, Any] = {"summary_dir": view.train_id}
        for key in _TRAIN_KEYS:
            values[key] = train.get(key)
        for key in _EVAL_KEYS:
            values[key] = lineage.evaluation.get(key)
        values = {column: values.get(column) for column in FIXED_COLUMNS}
        values["dataset_mark"] = mark
        for key, value in metric.items():
            values[METRIC + key] = value
        for key, value in user_defined.items():
            values[USER_DEFINED + key] = value
        rows.append(LineageRow(view.train_id, values, dict(metric), user_defined, graph, view.update_time, written))
    return rows


def _fills(train: Mapping[str, Any], hparams: Mapping[str, Any], name: str, column: str) -> bool:
    """Whether hyper-parameter `name` may fill model-lineage `column`: its value fits the column
    and the run's MindSpore lineage has not filled it."""
    return column not in train and _as_column(column, hparams[name]) is not None


def _as_column(column: str, value: Any) -> Any:
    """A hyper-parameter's value as the value of the model-lineage `column` (optimizer,
    learning_rate, epoch, batch_size, ...); None when the column is none or the type does not fit."""
    if column not in _TRAIN_KEYS:
        return None
    if column in STRING_COLUMNS:
        return value if isinstance(value, str) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if column in INT_COLUMNS:
        return int(value) if float(value).is_integer() else None
    return float(value)


def _session_columns(view: Any, jobs: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(metrics, hyper-parameters) of a TensorBoard hparams session. The experiment naming the
    metrics is the job's own or its nearest ancestor's (Keras writes it at the top of the logdir,
    each trial below); a metric of group `g` is a scalar of the job `<train id>/g`."""
    from ..formats.tensorboard import hparams_columns  # (here: a MindSpore export needs none of it)

    records = list(view.lineage.hparams)
    if not any(record.kind == "experiment" for record in records):
        parent = view.train_id
        while parent not in ("./", ".", ""):
            parent = parent.rsplit("/", 1)[0] or "."
            parent = parent if parent != "." else "./"
            lineage = getattr(jobs.get(parent), "lineage", None)
            found = [r for r in lineage.hparams if r.kind == "experiment"] if lineage is not None else []
            if found:
                records = found + records
                break

    def last_value(group: str, tag: str) -> float | None:
        train_id = view.train_id if not group else f"{view.train_id.rstrip('/')}/{group}"
        digest = getattr(jobs.get(train_id), "digests", {}).get(tag)
        return None if digest is None else digest.last_value

    columns = hparams_columns(records, last_value)
    metric = {name[len(METRIC):]: value for name, value in columns.items() if name.startswith(METRIC)}
    hparams = {name: value for name, value in columns.items() if not name.startswith(METRIC)}
    return metric, hparams


def written_names(rows: Iterable[LineageRow], column: str) -> list[str]:
    """The names the TensorBoard hyper-parameters filling `column` were written under, where
    they are not the column's own (`lr` for learning_rate), sorted."""
    own = {column, column.removeprefix(USER_DEFINED)}
    return sorted({row.hparams[column] for row in rows if column in row.hparams} - own)


def columns(rows: Iterable[LineageRow]) -> list[str]:
    """Every column of `rows`: FIXED_COLUMNS, then the `metric/*`, then the `user_defined/*` (sorted)."""
    metric: set[str] = set()
    user: set[str] = set()
    for row in rows:
        metric.update(METRIC + key for key in row.metric)
        user.update(USER_DEFINED + key for key in row.user_defined)
    return [*FIXED_COLUMNS, *sorted(metric), *sorted(user)]


def default_columns(rows: Iterable[LineageRow]) -> list[str]:
    """The columns MindInsight shows by default: DEFAULT_COLUMNS and every `metric/*`."""
    return [*DEFAULT_COLUMNS, *(c for c in columns(rows) if c.startswith(METRIC))]


def customized(rows: Iterable[LineageRow]) -> dict[str, dict[str, Any]]:
    """MindInsight's `customized` answer for these rows: {label: {label, required, type}}.

    type is the Python type name of the values (int, float, str, ...), "float" when ints and
    floats mix, "mixed" otherwise; required is true for metrics.
    """
    found: dict[str, set[str]] = {}
    for row in rows:
        for prefix, values in ((METRIC, row.metric), (USER_DEFINED, row.user_defined)):
            for key, value in values.items():
                found.setdefault(prefix + key, set()).add(type(value).__name__)
    out = {}
    for label, types in found.items():
        if len(types) == 1:
            kind = next(iter(types))
        elif types <= {"int", "float"}:
            kind = "float"
        else:
            kind = "mixed"
        out[label] = {"label": label, "required": label.startswith(METRIC), "type": kind}
    return out


def page(rows: list[LineageRow], limit: int = 10, offset: int = 0) -> list[LineageRow]:
    """MindInsight's paging: page `offset` (0-based) of `limit` rows."""
    if limit < 1 or offset < 0:
        raise LineageQueryError("limit must be at least 1 and offset at least 0")
    return rows[offset * limit:(offset + 1) * limit]


# -- conditions ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Condition:
    """`column op value`: op is one of OPERATORS; value is a tuple for in/not_in."""

    column: str
    op: str
    value: Any

    def matches(self, row: LineageRow) -> bool:
        """MindInsight's rule: a missing value fails lt/gt/le/ge; values that cannot be
        compared (text with numbers) do not match."""
        actual = row.values.get(self.column)
        if actual is None and self.op in ("lt", "gt", "le", "ge"):
            return False
        try:
            if self.op == "eq":
                return actual == self.value
            if self.op == "in":
                return actual in self.value
            if self.op == "not_in":
                return actual not in self.value
            if self.op == "lt":
                return actual < self.value
            if self.op == "gt":
                return actual > self.value
            if self.op == "le":
                return actual <= self.value
            return actual >= self.value
        except TypeError:
            return False

    def __str__(self) -> str:
        """The condition as the filter box reads it back (`parse_conditions(str(c)) == [c]`)."""
        symbol = {"eq": "=", "lt": "<", "gt": ">", "le": "<=", "ge": ">="}.get(self.op)
        if symbol:
            return f"{self.column}{symbol}{_value_text(self.column, self.value)}"
        return f"{self.column} {self.op} {','.join(_value_text(self.column, v) for v in self.value)}"


_PLAIN_STOPS = frozenset(" \t\n\r\"',=<>!")


def _value_text(column: str, value: Any) -> str:
    """A condition's value as typed: numbers in their shortest exact form, text quoted when it
    would not read back as the same text (spaces, commas, quotes, or text that looks like a number
    in a column where numbers are numbers)."""
    if isinstance(value, float):
        return repr(value)
    if not isinstance(value, str):
        return str(value)
    looks_numeric = column not in STRING_COLUMNS and _number(value) is not None
    if value and not looks_numeric and not any(ch in _PLAIN_STOPS for ch in value) and ".." not in value:
        return value
    quote = "'" if '"' in value else '"'
    return f"{quote}{value}{quote}"


def conditions_text(conditions: Iterable[Condition]) -> str:
    """Conditions as one filter text, in their order."""
    return " ".join(str(condition) for condition in conditions)


_SYMBOLS = (("<=", "le"), (">=", "ge"), ("==", "eq"), ("!=", "ne"), ("=", "eq"), ("<", "lt"), (">", "gt"))
_WORDS = {"in": "in", "not_in": "not_in"}
_JOINERS = frozenset({"and", "&&", "&", ","})


class _Scanner:
    """Reads `column op value` conditions from the text typed in the filter box."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def at_end(self) -> bool:
        self.skip_space()
        return self.pos >= len(self.text)

    def word(self, stops: str) -> tuple[str, bool]:
        """A quoted string, or characters up to a space or one of `stops`; and whether quoted."""
        text = self.text
        if self.pos < len(text) and text[self.pos] in "\"'":
            quote = text[self.pos]
            end = text.find(quote, self.pos + 1)
            if end == -1:
                raise LineageQueryError(f"unclosed quote {quote} in {text[self.pos:]!r}")
            value = text[self.pos + 1:end]
            self.pos = end + 1
            return value, True
        start = self.pos
        while self.pos < len(text) and not text[self.pos].isspace() and text[self.pos] not in stops:
            self.pos += 1
        return text[start:self.pos], False

    def operator(self, column: str) -> str:
        self.skip_space()
        text = self.text
        for symbol, op in _SYMBOLS:
            if text.startswith(symbol, self.pos):
                self.pos += len(symbol)
                return op
        start = self.pos
        word, _ = self.word("")
        lowered = word.lower()
        if lowered == "not":  # "not in"
            self.skip_space()
            follow, _ = self.word("")
            if follow.lower() == "in":
                return "not_in"
            lowered = f"not {follow}"
        if lowered in _WORDS:
            return _WORDS[lowered]
        self.pos = start
        if _range_ends(word) is not None:
            return "range"  # `lr 0.01..0.1`: the value is read next
        found = f"{word!r}" if word else "nothing"
        raise LineageQueryError(f"expected an operator (= != < > <= >= in not_in) or a range (0.01..0.1) "
                                f"after {column!r}, found {found}")

    def values(self, column: str, listing: bool) -> list[tuple[str, bool]]:
        self.skip_space()
        if self.pos >= len(self.text):
            raise LineageQueryError(f"missing value after {column!r}")
        items = [self.word("," if listing else "")]
        while listing:
            save = self.pos
            self.skip_space()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
                self.skip_space()
                items.append(self.word(","))
            else:
                self.pos = save
                break
        for item, quoted in items:
            if not item and not quoted:
                raise LineageQueryError(f"missing value after {column!r}")
        return items


def _range_ends(word: str) -> tuple[str, str] | None:
    """`0.01..0.1`, `..0.1`, `3..`: the two ends (one may be empty); None if `word` is no range."""
    low, dots, high = word.partition("..")
    if not dots or not (low or high):
        return None
    if any(end and _number(end) is None for end in (low, high)):
        return None
    return low, high


def _suggest(name: str, known: Iterable[str]) -> str:
    known = list(known)
    lowered = name.lower()
    aliased = typed_column(name)
    if aliased in known:
        return aliased
    for column in known:
        if column.lower() == lowered or column.lower().split("/", 1)[-1] == lowered:
            return column
    initials = {"".join(part[:1] for part in c.split("/")[-1].split("_")): c for c in known}
    if lowered in initials:
        return initials[lowered]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if close:
        return close[0]
    contained = [c for c in known if lowered in c.lower()]
    return contained[0] if len(contained) == 1 else ""


def _check_column(name: str, known_columns: Iterable[str] | None) -> str:
    if name in FIXED_COLUMNS:
        return name
    aliased = typed_column(name)  # lr, bs, opt, ...: what people type
    if aliased is not None:
        return aliased
    known = list(FIXED_COLUMNS) if known_columns is None else list(dict.fromkeys([*FIXED_COLUMNS,
                                                                                *known_columns]))
    for prefix in (METRIC, USER_DEFINED, DATASET):
        if name.startswith(prefix) and len(name) > len(prefix):
            if known_columns is None or name in known:
                return name
            break
    suggestion = _suggest(name, known)
    hint = f"; did you mean {suggestion}?" if suggestion else \
        "; columns are the lineage fields, metric/<name>, user_defined/<name> and dataset/<stage>.<param>"
    raise LineageQueryError(f"unknown column {name!r}{hint}")


def _number(text: str) -> float | int | None:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return None if value != value else value  # NaN matches nothing: refuse it


def _typed(column: str, text: str, quoted: bool) -> Any:
    """The value as the column's type; LineageQueryError when it does not fit."""
    if column in STRING_COLUMNS:
        return text
    if column in INT_COLUMNS:
        value = _number(text)
        if not isinstance(value, int) or quoted:
            raise LineageQueryError(f"{column} needs a whole number, not {text!r}")
        if not 0 <= value <= _INT_MAX:
            raise LineageQueryError(f"{column} needs a whole number from 0 to 2^63-1, not {text}")
        return value
    if column in FLOAT_COLUMNS or column.startswith(METRIC):
        value = _number(text)
        if value is None or quoted:
            raise LineageQueryError(f"{column} needs a number, not {text!r}")
        return value
    # user_defined/<k> and dataset/<stage>.<param>: a number if it reads as one, else text;
    # quotes force text.
    if not quoted:
        value = _number(text)
        if value is not None:
            return value
    return text


def parse_conditions(text: str, known_columns: Iterable[str] | None = None) -> list[Condition]:
    """Conditions typed in the filter box, all of which must hold (AND).

    `learning_rate>=0.01 optimizer=Momentum metric/Accuracy>0.5 network!=LeNet5 summary_dir in ./a,./b`
    Operators: = == < > <= >= != in not_in ("not in" too); != means not_in one value.
    A range, `lr 0.01..0.1` (or `epoch 3..`, `loss ..0.5`), is `>=` its low end and `<=` its high end.
    Values may be quoted ("high lr"); in/not_in take comma-separated lists. Text columns allow
    only = != in not_in; count columns need whole numbers; loss, learning_rate and metrics need
    numbers; user_defined values are numbers when they read as numbers (quote to force text).
    With `known_columns` (e.g. `columns(rows)`), metric/ and user_defined/ names must exist.
    Raises LineageQueryError with a message for the UI.
    """
    conditions = []
    scanner = _Scanner(text)
    known = list(known_columns) if known_columns is not None else None
    while not scanner.at_end():
        start = scanner.pos
        name, quoted = scanner.word("=<>!")
        if not quoted and name.lower() in _JOINERS:
            continue
        if not name:
            raise LineageQueryError(f"expected a column name at {text[start:]!r}")
        column = _check_column(name, known)
        op = scanner.operator(column)
        if op == "range":
            conditions.extend(_range_conditions(column, scanner.values(column, False)[0][0]))
            continue
        listing = op in ("in", "not_in")
        items = scanner.values(column, listing)
        if column in STRING_COLUMNS and op not in ("eq", "ne", "in", "not_in"):
            raise LineageQueryError(f"{column} is text: use =, !=, in or not_in")
        values = tuple(_typed(column, item, was_quoted) for item, was_quoted in items)
        if op == "ne":
            conditions.append(Condition(column, "not_in", values))
        elif listing:
            conditions.append(Condition(column, op, values))
        else:
            conditions.append(Condition(column, op, values[0]))
    return conditions


def _range_conditions(column: str, word: str) -> list[Condition]:
    if column in STRING_COLUMNS:
        raise LineageQueryError(f"{column} is text: a range ({word}) needs a number column")
    low, high = _range_ends(word) or ("", "")
    out = []
    if low:
        out.append(Condition(column, "ge", _typed(column, low, False)))
    if high:
        out.append(Condition(column, "le", _typed(column, high, False)))
    return out


def filter_rows(rows: Iterable[LineageRow], conditions: Iterable[Condition]) -> list[LineageRow]:
    """The rows that meet every condition (§6.3), in their order."""
    conditions = list(conditions)
    return [row for row in rows if all(condition.matches(row) for condition in conditions)]


def value_sort_key(value: Any) -> tuple:
    # Numbers before text before anything else, so that mixed columns still sort.
    if isinstance(value, (int, float)):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    return (2, type(value).__name__, repr(value))


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def sort_rows(rows: Iterable[LineageRow], column: str, descending: bool = False) -> list[LineageRow]:
    """Rows sorted by `column`, stable; missing values (and NaN) last in both directions.

    (MindInsight sorts missing values lowest, so they come first when ascending; we keep
    them last, which is what a table user expects.) Mixed types: numbers, then text, then
    other values, in that order ascending.
    """
    rows = list(rows)
    present = [row for row in rows if not _missing(row.values.get(column))]
    missing = [row for row in rows if _missing(row.values.get(column))]
    present.sort(key=lambda row: value_sort_key(row.values[column]), reverse=descending)
    return present + missing


# -- dataset pipelines: the stages of each job's dataset graph and their parameters as columns -----
# A dataset graph (§6.4) is read as `graph.dataset_pipeline` gives it: from the sources to the
# output, as a pipeline is written. Each stage gets a name, its op type, numbered when the type
# repeats (`Map`, `Map#2`), so the same stage of different jobs lands in the same column.

MAX_LIST_ITEMS = 6  # items of a list shown in a table cell


@dataclass(frozen=True)
class Stage:
    """One stage of a dataset graph, as a lineage column."""

    name: str  # "Map#2": op type, numbered from the source when it repeats
    op_type: str
    params: dict[str, Any]  # flattened parameters; `operations` and `sampler` included as they are
    position: float  # 0 at the source, 1 at the output: orders stage columns across jobs


def pipeline_stages(graph: Mapping[str, Any] | None) -> list[Stage]:
    """The stages of a dataset graph from source to output (`graph.dataset_pipeline`); [] for none."""
    ops = dataset_pipeline(graph)
    seen: dict[str, int] = {}
    stages = []
    last = max(len(ops) - 1, 1)
    for i, op in enumerate(ops):
        op_type = op.op_type or "Dataset"
        seen[op_type] = seen.get(op_type, 0) + 1
        name = op_type if seen[op_type] == 1 else f"{op_type}#{seen[op_type]}"
        params = dict(op.params)
        if op.operations:
            params["operations"] = list(op.operations)
        if op.sampler:
            params["sampler"] = op.sampler
        stages.append(Stage(name, op_type, params, i / last if len(ops) > 1 else 1.0))
    return stages


def stage_columns(pipelines: Iterable[list[Stage]]) -> list[tuple[str, str]]:
    """(stage name, parameter) pairs of every pipeline, source stages first, then by name."""
    positions: dict[str, list[float]] = {}
    params: dict[str, dict[str, None]] = {}
    for stages in pipelines:
        for stage in stages:
            positions.setdefault(stage.name, []).append(stage.position)
            params.setdefault(stage.name, {}).update(dict.fromkeys(stage.params))
    order = sorted(positions, key=lambda name: (sum(positions[name]) / len(positions[name]), name))
    return [(name, param) for name in order for param in param_order(params[name])]


FIRST_PARAMS = ("operations", "sampler")  # what a stage does: first
LAST_PARAMS = ("num_parallel_workers", "connector_queue_size")  # how fast it runs: last


def param_order(names: Iterable[str]) -> list[str]:
    """Parameters alphabetically, but operations and sampler first and the runtime knobs last."""
    names = list(names)
    first = [n for n in FIRST_PARAMS if n in names]
    last = [n for n in LAST_PARAMS if n in names]
    return first + sorted(n for n in names if n not in first and n not in last) + last


def value_text(value: Any, short: bool = True) -> str | None:
    """A parameter value as one line; None when missing."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Mapping):
        if "tensor_op_name" in value:
            return operation_text(value, short)
        name = value.get("sampler_name")
        rest = {k: v for k, v in value.items() if k != "sampler_name"}
        inner = " ".join(f"{k}={value_text(v, short) or 'None'}" for k, v in sorted(rest.items()))
        return f"{name}({inner})" if name else inner
    if isinstance(value, (list, tuple)):
        items = [value_text(v, short) or "None" for v in value]
        if short and len(items) > MAX_LIST_ITEMS:
            items = items[:MAX_LIST_ITEMS] + [f"… {len(value) - MAX_LIST_ITEMS} more"]
        return ", ".join(items) if (value and isinstance(value[0], Mapping)) else "[" + ", ".join(items) + "]"
    return str(value)


def operation_text(op: Mapping[str, Any], short: bool = True) -> str:
    """A map operation: `Resize` in a cell, `Resize {"size": [32, 32], ...}` in the detail pane."""
    name = str(op.get("tensor_op_name") or "?")
    if short:
        return name
    params = op.get("tensor_op_params")
    if params in (None, "", "{}"):
        return name
    if not isinstance(params, str):
        params = json.dumps(params, sort_keys=True)
    return f"{name} {params}"


def dataset_stages(rows: Iterable[LineageRow]) -> dict[str, list[Stage]]:
    """Each row's pipeline stages, by summary dir. Jobs with equal dataset graphs share a
    `dataset_mark` (`model_rows`): each distinct pipeline is read once."""
    by_mark: dict[Any, list[Stage]] = {}
    stages: dict[str, list[Stage]] = {}
    for row in rows:
        mark = row.get("dataset_mark")
        if mark is None:
            stages[row.summary_dir] = pipeline_stages(row.dataset_graph)
            continue
        if mark not in by_mark:
            by_mark[mark] = pipeline_stages(row.dataset_graph)
        stages[row.summary_dir] = by_mark[mark]
    return stages


def with_dataset_values(rows: list[LineageRow], stages: Mapping[str, list[Stage]]
                        ) -> tuple[list[LineageRow], list[str]]:
    """The rows with their pipeline's parameters as `dataset/<stage>.<param>` values, so a
    filter (and the dataset chart's brush) can hold them: numbers and text as they are, anything
    else as the short text a table cell shows (`value_text`); and those columns, in
    `stage_columns` order."""
    pairs = stage_columns(stages[row.summary_dir] for row in rows)
    out = []
    for row in rows:
        values = dict(row.values)
        for stage in stages[row.summary_dir]:
            for param, value in stage.params.items():
                if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float, str))):
                    value = value_text(value)
                values[f"{DATASET}{stage.name}.{param}"] = value
        out.append(replace(row, values=values))
    return out, [f"{DATASET}{stage}.{param}" for stage, param in pairs]


def dataset_axes(rows: Iterable[LineageRow], dataset_columns: Iterable[str]) -> list[str]:
    """The dataset columns (`with_dataset_values`) where the jobs differ: the axes of the dataset
    lineage's parallel coordinates; all of them when none differs."""
    rows, dataset_columns = list(rows), list(dataset_columns)
    differ = [c for c in dataset_columns if len({repr(row.values.get(c)) for row in rows}) > 1]
    return differ or dataset_columns
