"""Messages the app sends to its screens."""
from __future__ import annotations

from textual.message import Message


class CacheChanged(Message):
    """The cache changed; the app collects the `Changes` itself (notices are coalesced)."""
