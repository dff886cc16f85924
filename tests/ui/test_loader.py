"""The one background loader: coalescing, newest request wins, one error path, cancellation."""
from __future__ import annotations

import asyncio
import threading

from textual.app import App
from textual.widget import Widget
from uihelp import wait_for

from tui_insight.summary.formats.values import PayloadError
from tui_insight.ui.loader import Loaded, Loader, LoaderHost, LoadProblem


class Owner(LoaderHost, Widget):
    def __init__(self) -> None:
        super().__init__()
        self.loader = Loader(self, "test")
        self.results: list[Loaded] = []

    def ask(self, key, work, first: bool = False) -> None:
        self.loader.request(key, work, self.results.append, first=first)


class Host(App):
    def compose(self):
        yield Owner()


def run(body):
    async def main():
        app = Host()
        async with app.run_test() as pilot:
            return await body(pilot, app.query_one(Owner))

    return asyncio.run(main())


def gate():
    """Work that blocks until released, so a test controls what is running."""
    started, release = threading.Event(), threading.Event()

    def work(value):
        def inner():
            started.set()
            assert release.wait(5)
            return value
        return inner

    return started, release, work


def test_a_key_asked_for_twice_before_it_starts_runs_once_with_the_newest_work():
    calls = []

    async def body(pilot, owner):
        started, release, blocking = gate()
        owner.ask("busy", blocking("first"))  # occupies the worker
        assert await wait_for(pilot, started.is_set)
        owner.ask("k", lambda: calls.append("old") or "old")
        owner.ask("k", lambda: calls.append("new") or "new")
        release.set()
        assert await wait_for(pilot, lambda: owner.loader.pending() == 0)
        return [(r.key, r.value) for r in owner.results]

    results = run(body)
    assert calls == ["new"]
    assert results == [("busy", "first"), ("k", "new")]


def test_a_result_asked_for_again_while_running_is_dropped():
    async def body(pilot, owner):
        started, release, blocking = gate()
        owner.ask("k", blocking("stale"))
        assert await wait_for(pilot, started.is_set)
        owner.ask("k", lambda: "fresh")  # the running one is now stale
        release.set()
        assert await wait_for(pilot, lambda: owner.loader.pending() == 0)
        return [r.value for r in owner.results]

    assert run(body) == ["fresh"]


def test_first_jumps_the_queue():
    async def body(pilot, owner):
        started, release, blocking = gate()
        owner.ask("busy", blocking(0))
        assert await wait_for(pilot, started.is_set)
        owner.ask("a", lambda: "a")
        owner.ask("b", lambda: "b")
        owner.ask("c", lambda: "c", first=True)
        release.set()
        assert await wait_for(pilot, lambda: owner.loader.pending() == 0)
        return [r.key for r in owner.results]

    assert run(body) == ["busy", "c", "a", "b"]


def test_failures_become_sentences_not_tracebacks():
    def broken():
        raise ValueError("bad shape")

    def problem():
        raise LoadProblem("this tensor has 0 values")

    def payload():
        raise PayloadError("the record at offset 12 is damaged")

    async def body(pilot, owner):
        owner.ask("broken", broken)
        owner.ask("problem", problem)
        owner.ask("payload", payload)
        assert await wait_for(pilot, lambda: owner.loader.pending() == 0)
        return {r.key: (r.ok, r.value, r.error) for r in owner.results}

    results = run(body)
    assert results["broken"] == (False, None, "ValueError: bad shape")
    assert results["problem"] == (False, None, "this tensor has 0 values")
    assert results["payload"] == (False, None, "the record at offset 12 is damaged")


def test_forget_drops_queued_and_running_requests():
    async def body(pilot, owner):
        started, release, blocking = gate()
        owner.ask("running", blocking("r"))
        assert await wait_for(pilot, started.is_set)
        owner.ask("queued", lambda: "q")
        owner.loader.forget()
        assert owner.loader.pending() == 0
        release.set()
        owner.ask("after", lambda: "a")
        assert await wait_for(pilot, lambda: bool(owner.results))
        await pilot.pause(0.1)
        return [r.key for r in owner.results]

    assert run(body) == ["after"]


def test_removing_the_owner_stops_the_queue_and_delivers_nothing():
    ran = []

    async def body(pilot, owner):
        started, release, blocking = gate()
        owner.ask("running", blocking("r"))
        assert await wait_for(pilot, started.is_set)
        owner.ask("queued", lambda: ran.append("queued"))
        await owner.remove()
        release.set()
        await pilot.pause(0.3)
        return owner.results

    assert run(body) == []
    assert ran == []  # the worker was cancelled: the queued work never started
