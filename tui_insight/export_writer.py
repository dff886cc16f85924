"""The exports' writer thread: blocks of rows laid out and written on the second core while
the export reads and formats the next (`export._CsvFiles`; `export_parquet`: row groups)."""
from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

Rows = bytes | list[bytes | bytearray]  # rows as bytes, or blocks of them written one after another
Block = Rows | Callable[[], Rows]  # rows, or what makes them (called by the thread)


class BlockWriter:
    """A thread formatting and writing blocks of rows to their files in the order given, while
    the caller reads the next (numpy's gathers and the writes release the GIL: the second core
    takes them). The first failure is kept (the file's name, the error) and the blocks after it
    are dropped; the caller raises it."""

    FROM = 1 << 12  # the first block of this many rows starts the thread (a smaller export writes as it goes)
    PENDING = 2  # blocks waiting at most (memory: a block is a tag's steps, or 16,384 scalar rows)

    def __init__(self) -> None:
        self.blocks: queue.Queue[tuple[str, Callable[[], Any]] | None] = queue.Queue(self.PENDING)
        self.failed: tuple[str, BaseException] | None = None
        self.thread = threading.Thread(target=self._run, name="tui-insight-csv-writer", daemon=True)
        self.thread.start()

    def put(self, name: str, handle: Any, data: Block) -> None:
        """`data` written to `handle` (the file `name`), its bytes made first if need be."""
        self.blocks.put((name, partial(_write, handle, data)))

    def call(self, name: str, write: Callable[[], Any]) -> None:
        """`write()` (writing the file `name`) after the blocks given before."""
        self.blocks.put((name, write))

    def wait(self) -> None:
        """Until every block given is written (or dropped after a failure)."""
        self.blocks.join()

    def stop(self) -> None:
        """Once the blocks given are written (again: nothing)."""
        if self.thread.is_alive():
            self.blocks.put(None)
            self.thread.join()

    def _run(self) -> None:
        while True:
            block = self.blocks.get()
            try:
                if block is None:
                    return
                if self.failed is None:
                    name, write = block
                    try:
                        write()
                    except BaseException as exc:  # (raised in the caller's thread)
                        self.failed = (name, exc)
            finally:
                self.blocks.task_done()


def _write(handle: Any, data: Block) -> None:
    write(handle, data() if callable(data) else data)


def write(handle: Any, rows: Rows) -> None:
    """`rows` written to the binary file `handle`."""
    if isinstance(rows, bytes):
        handle.write(rows)
    else:
        handle.writelines(rows)
