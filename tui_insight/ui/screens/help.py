"""`?`: every binding of the current screen, grouped by where it applies, with its id for remapping."""
from __future__ import annotations

from typing import Iterable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static
from .._textual_compat import app_keymap, own_bindings
from ..common.focus import focus_now
from ..common.text import markup


def group_name(node: DOMNode) -> str:
    return getattr(node, "HELP_GROUP", None) or type(node).__name__


def collect_bindings(screen: Screen, extra: Iterable[DOMNode] = ()) -> dict[str, list[tuple[str, Binding, DOMNode]]]:
    """{group: [(key, binding, node)]}: the active bindings of `screen`, plus those of `extra` nodes.

    Only our own bindings are listed (they have ids); Textual's widget defaults (cursor keys in
    tables and inputs) work as everywhere else.
    """
    groups: dict[str, list[tuple[str, Binding, DOMNode]]] = {}
    seen: set[str] = set()
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if not binding.id or binding.id in seen:
            continue
        seen.add(binding.id)
        groups.setdefault(group_name(active.node), []).append((key, binding, active.node))
    app = screen.app
    keymap = app_keymap(app)
    for node in (*extra, app):  # app-wide keys a screen default (tab) may hide
        for key, binding in own_bindings(node):  # also of a node that is not focused
            if not binding.id or binding.id in seen:
                continue
            seen.add(binding.id)
            key = keymap.get(binding.id, key)
            groups.setdefault(group_name(node), []).append((key, binding, node))
    return groups


def help_text(groups: dict[str, list[tuple[str, Binding, DOMNode]]], app, note: str = "") -> str:
    """The keys of `groups`, then the screen's `note` (markup) if it has one."""
    lines = []
    order = sorted(groups, key=lambda g: (g == "Everywhere", g))
    for group in order:
        lines.append(f"[b]{markup(group)}[/b]")
        for key, binding, _node in sorted(groups[group], key=lambda item: item[1].description.lower()):
            shown = binding.key_display or app.get_key_display(binding.with_key(key))
            # Pad the plain text, then escape it: `[` is markup and its escape is longer.
            lines.append(f"  [b $accent]{markup(f'{shown:>12}')}[/]  {markup(f'{binding.description or binding.action:<26}')}"
                         f" [dim]{markup(binding.id or '')}[/dim]")
        lines.append("")
    if note:
        lines += [note, ""]
    lines.append("[dim]Remap a key by its id in ~/.config/tui-insight/keymap.toml (or $TUI_INSIGHT_KEYMAP):[/dim]")
    lines.append('[dim]  [keymap]  "app.quit" = "ctrl+q"[/dim]')
    return "\n".join(lines)


class HelpScreen(ModalScreen):
    HELP_GROUP = "Help"
    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="help.close"),
        Binding("question_mark", "dismiss", "Close", show=False, id="help.close_again"),
        Binding("q", "dismiss", "Close", show=False, id="help.close_q"),
    ]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 90; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    HelpScreen VerticalScroll { height: auto; max-height: 100%; }
    """

    def __init__(self, text: str, title: str):
        super().__init__()
        self.text = text
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"[b]Keys: {markup(self.title_text)}[/b]  [dim](escape closes)[/dim]")
            with VerticalScroll(can_focus=True):
                yield Static(self.text, id="help-text")

    def on_mount(self) -> None:
        focus_now(self.query_one(VerticalScroll))

    def action_dismiss(self, result=None) -> None:  # type: ignore[override]
        self.dismiss(result)
