"""Textual 8.2's terminal input thread made to sleep while no key comes, part of
`_textual_compat` (see its docstring: the rules that hold for every shim here)."""
from __future__ import annotations

from typing import Any


def sleeping_input(driver_class: type) -> type:
    """`driver_class`, or, when it is Textual's LinuxDriver, one whose input thread sleeps until
    a key comes, the parser's escape timeout is due, or input stops.

    Textual 8.2: `LinuxDriver.run_input_thread` polls its selector every 0.1 s to see
    `exit_event` and to run the parser's `tick` (a lone escape key is told from the start of a
    sequence by a timeout): 10 wakeups a second of an idle app, ~0.12% of a core. Here the
    selector also watches a pipe that `exit_event.set()` writes to, and waits for the parser's
    timeout (`Parser._timeout_time`) only while one is pending.
    """
    try:
        from textual.drivers.linux_driver import LinuxDriver
    except ImportError:  # no termios: another platform's driver
        return driver_class
    if driver_class is not LinuxDriver:
        return driver_class
    return _sleeping_linux_driver(LinuxDriver)


def _sleeping_linux_driver(linux_driver: Any) -> type:
    import os
    import selectors
    import threading
    from codecs import getincrementaldecoder

    from textual._parser import ParseError
    from textual._time import get_time
    from textual._xterm_parser import XTermParser

    class WakingEvent(threading.Event):
        """An Event whose `set` also wakes a selector waiting on `wake_fd`."""

        def __init__(self, wake_fd: int) -> None:
            super().__init__()
            self.wake_fd = wake_fd

        def set(self) -> None:
            super().set()
            if self.wake_fd < 0:  # the driver closed
                return
            try:
                os.write(self.wake_fd, b"x")
            except OSError:  # full of wakes not yet read: the thread wakes anyway
                pass

    class SleepingInputDriver(linux_driver):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._wake_read, wake_write = os.pipe()
            os.set_blocking(self._wake_read, False)
            os.set_blocking(wake_write, False)
            self.exit_event = WakingEvent(wake_write)

        def close(self) -> None:
            super().close()
            wake_write, self.exit_event.wake_fd = self.exit_event.wake_fd, -1
            if wake_write >= 0:
                os.close(wake_write)
                os.close(self._wake_read)

        def run_input_thread(self) -> None:
            """Textual 8.2's `LinuxDriver.run_input_thread`, waiting as the class says."""
            selector = selectors.SelectSelector()
            selector.register(self.fileno, selectors.EVENT_READ)
            selector.register(self._wake_read, selectors.EVENT_READ)
            parser = XTermParser(self._debug)
            decode = getincrementaldecoder("utf-8")().decode

            def timeout() -> float | None:
                due = parser._timeout_time  # a partial sequence waits for its next character
                return None if due is None else max(0.0, due - get_time())

            def process(events: list, final: bool = False) -> None:
                for key, _mask in events:
                    if key.fd == self._wake_read:
                        try:
                            os.read(self._wake_read, 64)
                        except OSError:
                            pass
                        continue
                    data = decode(os.read(self.fileno, 1024 * 4), final=final)
                    if data:
                        for event in parser.feed(data):
                            self.process_message(event)
                for event in parser.tick():
                    self.process_message(event)

            try:
                while not self.exit_event.is_set():
                    process(selector.select(timeout()))
                selector.unregister(self.fileno)
                selector.unregister(self._wake_read)
                process(selector.select(0.1), final=True)  # (no file left: Textual's 0.1 s, then a tick)
            finally:
                selector.close()
                try:
                    for _event in parser.feed(""):
                        pass
                except (EOFError, ParseError):
                    pass

    return SleepingInputDriver
