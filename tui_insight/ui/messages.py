"""Messages the app sends to its screens, and the base of messages only the newest of which matters."""
from __future__ import annotations

from textual.message import Message

from ._textual_compat import same_sender


class CacheChanged(Message):
    """The cache changed; the app collects the `Changes` itself (notices are coalesced)."""


class WorkspaceChanged(Message):
    """Something was remembered while nothing waited to be saved; posted from whichever thread
    remembered it, so the app sets up the save on its own thread (a Textual timer is not
    thread-safe, `post_message` is)."""


class LatestMessage(Message):
    """A message of which only the newest matters (where a cursor is, which rows are on screen):
    one queued right behind another of its kind from the same widget takes its place, so a held
    key is answered once per burst of repeats, not once per repeat. Textual folds only messages
    next to each other in a queue (`Message.can_replace`)."""

    def can_replace(self, message: Message) -> bool:
        # Textual 8.2 asks the message at the head of a queue about the one behind it, and when
        # the answer is yes drops the head and goes on with the one behind.
        return type(message) is type(self) and same_sender(self, message)
