"""Decoding the image view's pixels (in the loader's thread) and keeping them: a small LRU
bounded in bytes, so stepping back and forth decodes nothing twice."""
from __future__ import annotations

from collections import OrderedDict
from typing import Hashable

import numpy as np

from ...summary.formats.values import Locator, PayloadError
from ..loader import Loaded, LoadProblem
from ..presenters.images import size_text
from ..widgets.halfblock import DecodedImage, ImageDecodeError, decode_image

DECODED_BYTES = 48 << 20  # decoded pixels kept for stepping back and forth
FAILURE_BYTES = 256  # what a remembered failure counts for


class DecodedCache:
    """What the loader gave per (locator, sample) (pixels, or why not), the least recently used dropped
    first once more than `limit` bytes of pixels are kept (the newest one always stays)."""

    def __init__(self, limit: int = DECODED_BYTES) -> None:
        self.limit = limit
        self.nbytes = 0
        self._items: OrderedDict[Hashable, Loaded] = OrderedDict()

    @staticmethod
    def size(result: Loaded) -> int:
        return result.value[0].nbytes if result.ok else FAILURE_BYTES

    def get(self, key: Hashable) -> Loaded | None:
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
        return found

    def put(self, key: Hashable, result: Loaded) -> None:
        if key in self._items:
            return
        self._items[key] = result
        self.nbytes += self.size(result)
        while self.nbytes > self.limit and len(self._items) > 1:
            _, old = self._items.popitem(last=False)
            self.nbytes -= self.size(old)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def keys(self) -> list[Hashable]:
        """Oldest used first."""
        return list(self._items)


def decode_at(cache, loc: Locator, sample: int = 0) -> tuple[DecodedImage, bool, str]:
    """Image `sample` of the value at `loc`, whether it is grey, and a note when the record
    declares another size than the PNG has (the PNG is shown). Slow: in the loader's thread,
    never the UI's. Raises `LoadProblem` with the sentence the card shows instead."""
    try:
        data = cache.payloads.image(loc, sample)
    except PayloadError:
        raise
    except Exception as exc:  # anything else reading the record: a sentence in the card, never a traceback
        raise LoadProblem(f"cannot read this image: {type(exc).__name__}: {exc}") from None
    declared = f" ({size_text(data.width, data.height)} declared)" if data.width and data.height else ""
    try:
        image = decode_image(data.png)
    except ImageDecodeError as exc:
        raise LoadProblem(f"cannot decode this image{declared}: {exc}") from None
    except Exception as exc:  # e.g. out of memory: still a sentence in the card
        raise LoadProblem(f"cannot decode this image{declared}: {type(exc).__name__}: {exc}") from None
    note = ""
    if (data.width, data.height) != (image.width, image.height) and (data.width or data.height):
        note = f"record says {size_text(data.width, data.height)}"
    return image, image.grey or data.colorspace == 1 or _equal_channels(image.pixels), note


def _equal_channels(pixels: np.ndarray) -> bool:
    """True for a grey image stored as RGB (MindSpore triples one-channel images)."""
    return bool(np.array_equal(pixels[..., 0], pixels[..., 1]) and np.array_equal(pixels[..., 1], pixels[..., 2]))

