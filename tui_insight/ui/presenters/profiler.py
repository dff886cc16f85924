"""What the profiler view shows: its status line and section tabs, the op-type shares, an op's
detail, the step times, the memory chart, the timeline's read-out and the profile picker's
lines, from the view's state and what was read of the profile. `width` is the cells a chart
may take."""
from __future__ import annotations

from typing import Sequence

from rich.text import Text

from ...summary.formats.profiler import Memory, Operator, Profile, ProfileRef, Shapes, Timeline
from ...summary.queries import profiler as profile_queries
from ..common.format import clock_time
from ..common.palette import SERIES_COLOURS
from ..common.text import literal, markup
from ..state.profiler import SECTION_TITLES, ProfilerState
from ..widgets.profile_charts import column_chart, fmt_bytes, fmt_ms, line_chart, share_bars

STEP_NOTE = ("graph mode assumed: the k-th call of each op is step k (CPU profiles have no step "
             "markers); step 1 includes graph compilation")
NO_PROFILE = "no profile in this job: MindSpore's profiler writes a *_ascend_ms directory next to the logs"
TIMELINE_KEYS = "←/→ select a span · ↑/↓ row · +/- zoom · ,/. pan · z fit span · 0 all"


def status_text(chosen: tuple[str, ProfileRef] | None, profiles: int, profile: Profile | None,
                single_job: bool, reading: bool) -> str:
    """The top line (markup): the profile, its device and time, how many there are, its size."""
    parts = []
    if chosen is not None:
        tid, ref = chosen
        label = ref.name if single_job else f"{tid} · {ref.name}"
        parts.append(f"[b]{markup(label)}[/b]")
        parts.append(f"{ref.target.upper()} · {clock_time(ref.created)}")
        if profiles > 1:
            parts.append(f"{profiles} profiles (p: pick)")
    if profile is not None:
        calls = f"{len(profile.calls)} calls" if profile.calls_read else "reading calls…"
        parts.append(f"{len(profile.operators)} ops · {calls} · {fmt_ms(profile.total_ms)} ms")
    if reading:
        parts.append("reading…")
    return " · ".join(parts) or "Profiler"


def tabs_text(sections: Sequence[str], current: str) -> Text:
    tabs = Text()
    for i, section in enumerate(sections):
        if i:
            tabs.append(" │ ", style="dim")
        tabs.append(SECTION_TITLES[section], style="bold reverse" if section == current else "")
    tabs.append("   [ ] change section", style="dim")
    return tabs


def problems(profile: Profile | None, shapes: Shapes | None, timeline: Timeline | None, section: str) -> tuple[str, ...]:
    """What could not be read of the profile (and of the trace, on the timeline)."""
    if profile is None:
        return ()
    found = profile.problems + (shapes.problems if shapes else ())
    if timeline is not None and section == "timeline":
        found += timeline.problems
    return found


def types_text(profile: Profile, width: int) -> Text:
    """The time share of each op type (top 20 and "other") as bars."""
    lines = []
    for t in profile_queries.top_types(profile.op_types):
        per_step = "" if t.per_step != t.per_step else f"{t.per_step:g}/step"
        lines.append((t.op_type, t.share,
                      f"{t.share * 100:6.2f}%\t{t.occurrences:>6} calls\t{per_step:>7}\t"
                      f"total {fmt_ms(t.total_ms):>8} ms\tavg {fmt_ms(t.avg_ms):>8} ms"))
    head = Text(f"Time share per op type ({len(profile.op_types)} types"
                + (", top 20 and other" if len(profile.op_types) > 20 else "") + ")"
                + (" — summed from the operators: the op-type file could not be read"
                   if profile.op_types_derived else ""),
                style="bold")
    body = share_bars(lines, width) if lines else Text("no op types", style="dim")
    return Text("\n").join([head, body])


def op_detail(op: Operator, profile: Profile, shapes: Shapes | None, width: int) -> Text:
    """One op: its numbers, its calls over time, its input shapes (or that they are being read)."""
    starts, durations = profile.calls.of(op.full_name)
    out = Text()
    out.append_text(literal(op.full_name, "bold"))
    out.append(f"\n{op.op_type} · {op.occurrences} calls · total {fmt_ms(op.total_ms)} ms · "
               f"avg {fmt_ms(op.avg_ms)} ms · {op.share * 100:.2f}% of op time")
    if durations.size:
        out.append(f" · min {fmt_ms(float(durations.min()))} · max {fmt_ms(float(durations.max()))} ms")
    out.append("\nCalls over time (ms per call, first call marked):\n", style="dim")
    if durations.size:
        out.append_text(column_chart(durations, width, 5, marked=0, x_name="call"))
    else:
        out.append("no timed calls" if profile.calls_read else "reading the execute timestamps…", style="dim")
    out.append("\nInput shapes: ", style="dim")
    if shapes is None:
        out.append("reading…", style="dim")
        return out
    found = shapes.of(op)
    if not found:
        out.append("not recorded", style="dim")
    for i, (text, count) in enumerate(found[:4]):
        out.append(("  " if i else ""))
        out.append_text(literal(text))
        out.append(f" ×{count}", style="dim")
    if not shapes.by_call and found:
        out.append("  (matched by op name)", style="dim")
    return out


def steps_text(steps: profile_queries.StepTimes | None, width: int) -> Text:
    """Time per step as columns, the first (compilation) apart, and the ops left out."""
    if steps is None:
        return Text("reading the execute timestamps…", style="dim")
    if not len(steps):
        return Text("no execute timestamps: steps cannot be derived", style="dim")
    spans = steps.span_ms
    out = Text(f"Time per step (ms, wall time from the step's first op to its last), {len(steps)} steps\n",
               style="bold")
    out.append(STEP_NOTE + "\n", style="dim")
    out.append_text(column_chart(spans, width, 12, marked=0))
    rest = spans[1:]
    out.append("\n")
    out.append("▒", style=SERIES_COLOURS[3])
    out.append(f" step 1 (compilation): {fmt_ms(float(spans[0]))} ms, op time {fmt_ms(float(steps.busy_ms[0]))} ms")
    if rest.size:
        out.append(f"\nsteps 2–{len(steps)}: mean {fmt_ms(float(rest.mean()))} ms · "
                   f"min {fmt_ms(float(rest.min()))} · max {fmt_ms(float(rest.max()))} · "
                   f"op time mean {fmt_ms(float(steps.busy_ms[1:].mean()))} ms")
    if steps.unplaced:
        out.append(f"\n{len(steps.unplaced)} ops left out (their call count is not a multiple of the steps): ",
                   style="dim")
        out.append_text(literal(", ".join(steps.unplaced[:5]) + (" …" if len(steps.unplaced) > 5 else ""), "dim"))
    return out


def memory_text(memory: Memory | None, width: int, no_color: bool) -> Text:
    """Allocated, active (and reserved, when on the same scale) bytes over time, the peak marked."""
    if memory is None or not len(memory):
        return Text("no memory record in this profile", style="dim")
    peak = memory.peak("allocated")
    top = max(int(memory.allocated.max()), int(memory.active.max()))
    series = [("allocated", memory.allocated, SERIES_COLOURS[0], "█" if no_color else "•"),
              ("active", memory.active, SERIES_COLOURS[1], "+")]
    reserved_max = int(memory.reserved.max())
    note = ""
    if reserved_max <= 4 * max(top, 1):
        series.append(("reserved", memory.reserved, SERIES_COLOURS[2], "─"))
    else:
        note = f"reserved: {fmt_bytes(reserved_max)} (off this scale)"
    seconds = (int(memory.times[-1]) - int(memory.times[0])) / 1e6
    out = Text(f"Memory over time ({len(memory)} samples)\n", style="bold")
    out.append_text(line_chart(series, width, 16, peak=peak, x_labels=("0 ms", f"{fmt_ms(seconds)} ms")))
    if peak is not None:
        at = (int(memory.times[peak[0]]) - int(memory.times[0])) / 1e6
        out.append(f"\npeak allocated {fmt_bytes(peak[1])} at {fmt_ms(at)} ms (sample {peak[0] + 1})")
    if note:
        out.append("\n" + note, style="dim")
    return out


def span_text(state: ProfilerState, timeline: Timeline | None) -> Text:
    """Under the timeline: the selected span, else the keys and the window shown."""
    if timeline is None or not timeline.tracks:
        return Text("")
    span = state.selected_span(timeline)
    start, width = state.window
    whole = (timeline.end_us - timeline.start_us) / 1000
    text = Text()
    if span is not None:
        track = timeline.tracks[state.track]
        text.append_text(literal(span.name, "bold"))
        text.append(f"\n{fmt_ms(span.duration_us / 1000)} ms · starts at "
                    f"{fmt_ms((span.start_us - timeline.start_us) / 1000)} ms · ")
        text.append_text(literal(track.label))
    else:
        text.append(TIMELINE_KEYS, style="dim")
        text.append(f"\nshowing {fmt_ms(start * whole)}–{fmt_ms((start + width) * whole)} ms of "
                    f"{fmt_ms(whole)} ms · {timeline.span_count} spans in {len(timeline.tracks)} rows", style="dim")
    return text


def picker_labels(refs: Sequence[tuple[str, ProfileRef]], comparing: bool) -> list[Text]:
    """The profile picker's lines: (job,) name, device and time."""
    labels = []
    for tid, ref in refs:
        label = Text()
        if comparing:
            label.append_text(literal(tid + "  ", "dim"))
        label.append_text(literal(ref.name))
        label.append(f"  {ref.target.upper()} · {clock_time(ref.created)}", style="dim")
        labels.append(label)
    return labels
