"""Image view benchmark (issue 4). Run by hand:

    python bench/bench_images.py [--repeat 20]

A 1000 x 1000 RGB PNG (a smooth gradient with noise: most cells get colours of their own, the
hard case for the half-block drawing) fitted to 160 x 48 cells. Prints, in milliseconds:
- decoding the PNG to pixels (done in a thread worker in the app, never in the UI thread);
- drawing it (fit, scale, brightness/contrast, strips) in true colour and in 256 colours, cold
  (no colour seen before) and warm (redraws, e.g. after a brightness key);
- the widget's own draw inside a headless 160 x 48 app (what one frame costs the UI thread).
"""
from __future__ import annotations

import argparse
import asyncio
import io
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tui_insight.ui.widgets import halfblock  # noqa: E402
from tui_insight.ui.widgets.halfblock import HalfBlockImage, decode_image, render_image  # noqa: E402

SIZE = 1000
COLS, ROWS = 160, 48


def test_png() -> bytes:
    from PIL import Image

    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:SIZE, 0:SIZE]
    rgb = np.stack([x * 255 // (SIZE - 1), y * 255 // (SIZE - 1), (x + y) * 255 // (2 * SIZE - 2)], axis=-1)
    rgb = np.clip(rgb + rng.integers(-12, 12, rgb.shape), 0, 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(rgb, "RGB").save(out, format="PNG")
    return out.getvalue()


def timed(fn, repeat: int, before=None) -> list[float]:
    times = []
    for _ in range(repeat):
        if before is not None:
            before()
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return times


def report(name: str, times: list[float]) -> None:
    print(f"{name:<48} median {statistics.median(times):7.2f} ms   max {max(times):7.2f} ms   (n={len(times)})")


def forget_colours() -> None:
    halfblock._STYLES.clear()
    halfblock._COLOURS.clear()


def widget_frame(image, repeat: int) -> list[float]:
    from textual.app import App

    class OneImage(App):
        CSS = "HalfBlockImage { width: 100%; height: 100%; }"

        def compose(self):
            yield HalfBlockImage(image)

    times: list[float] = []

    async def main():
        app = OneImage()
        async with app.run_test(size=(COLS, ROWS)) as pilot:
            widget = app.query_one(HalfBlockImage)
            await pilot.pause()
            for k in range(repeat):
                widget.set_adjust(0.01 * (k + 1), 1.0)  # a new drawing each time
                t0 = time.perf_counter()
                widget._strips()
                times.append((time.perf_counter() - t0) * 1000)

    asyncio.run(main())
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    png = test_png()
    print(f"{SIZE}x{SIZE} PNG, {len(png) / 1e6:.2f} MB, fitted to {COLS}x{ROWS} cells")
    image = decode_image(png)
    cols, pixel_rows = halfblock.fit_cells(image.width, image.height, COLS, ROWS)
    print(f"drawn as {cols} columns x {(pixel_rows + 1) // 2} rows ({cols}x{pixel_rows} pixels)")
    report("decode PNG (thread worker)", timed(lambda: decode_image(png), max(3, args.repeat // 4)))
    for truecolor in (True, False):
        label = "true colour" if truecolor else "256 colours"
        report(f"draw, {label}, cold", timed(lambda: render_image(image, COLS, ROWS, 0.1, 1.2, truecolor),
                                              args.repeat, forget_colours))
        report(f"draw, {label}, warm", timed(lambda: render_image(image, COLS, ROWS, 0.1, 1.2, truecolor),
                                              args.repeat))
    report("widget frame in a 160x48 app (new brightness)", widget_frame(image, args.repeat))


if __name__ == "__main__":
    main()
