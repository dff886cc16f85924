"""Generated protobuf modules: run proto/generate.py, do not edit.

From the `.proto` files in the repository's top-level proto folder (wire-compatible with
MindSpore's and TensorBoard's, compat §2): `summary_pb2.py` (summary events), `anf_ir_pb2.py` (graphs),
`lineage_pb2.py` (lineage events), `tb_event_pb2.py` and `tb_hparams_pb2.py` (TensorBoard's
events and hyper-parameters). A test checks they are what protoc makes of the `.proto` files.
"""
