"""The key footer: Textual's Footer, rebuilt once per burst of binding changes.

The class lives in `ui/_textual_compat` (as `CoalescingFooter`) because all it does is
override Footer internals of a given Textual version (`bindings_changed`, `recompose`); keeping
it there puts every such override in the one file to read on a Textual upgrade. This module is
the name screens import it by.
"""
from __future__ import annotations

from .._textual_compat import CoalescingFooter as InsightFooter
from .._textual_compat import FooterKey

__all__ = ["InsightFooter", "FooterKey"]
