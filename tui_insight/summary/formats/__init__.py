"""The log formats: bytes in, routed values out. Nothing here knows where the bytes came from
or what is kept of them.

- `file_names.py`: which kind a file is by its name, and the read order of a job's files.
- `framing.py`: the records' framing and CRC (compat §1.1), one by one and by offset;
  `bulk_framing.py`: the same records by blocks, little Python per record; `layouts.py`: the
  numbers of repeated scalar events read in bulk.
- One router per format, both yielding the neutral routed values of `routed.py`:
  `mindspore.py` (summary files) and `tensorboard.py` (event files, and their payloads);
  `routing.py`: what both share (layouts' routes, the read order of a job's files).
- `values.py`: the payload value types both formats decode into (tensor, histogram, image,
  text), with MindSpore's proto converters.
- `payloads.py`: tensors, images and histograms decoded from the file when asked for;
  `histogram_bytes.py`: where an event's histograms are in its bytes, for reading many at once.
- Per-file readers: `lineage.py` (+ `lineage_aliases.py`), `graph.py` (+ `graph_build.py`,
  MindInsight's scope tree; `tb_graphs.py`, TensorBoard's op, Keras and run metadata graphs),
  `profiler.py` (+ `profiler_calls.py`), `projector.py`, `custom_scalars.py`, `pr_curves.py`,
  `described.py` (audio, mesh).
- `writer.py`: valid MindSpore and TensorBoard files, for tests, the demo and the benchmarks.
"""
