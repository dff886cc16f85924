"""Generated protobuf modules: run proto/generate.py, do not edit."""
