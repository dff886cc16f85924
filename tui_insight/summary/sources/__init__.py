"""Where the bytes come from: a LOGDIR on this machine, on a host over ssh, or behind a URL,
and the jobs found in it. Nothing here decodes a record; it names files and hands out bytes.

- `location.py`: what a LOGDIR names (a path, `user@host:/path`, a URL).
- `local.py`: the `Source` protocol, this machine's source, ranged reads (`RangeCache`).
- `ssh.py` (requests), `ssh_session.py` (one request's session and its bounded spool),
  `ssh_connection.py` (the shared ControlMaster), `remote_limits.py` (what
  one request may spool and how long it may take), `ssh_listing.py` (the remote `find` script).
- `object_store.py`: `s3://`, `obs://`, any fsspec protocol.
- `multi.py`: several LOGDIRs read as one source, jobs named by their source (`node1:./run`).
- `discovery.py`: jobs under a LOGDIR (compat §1.2, §1.3); `remote_listing.py`: jobs from a
  remote tree's flat listing; `poll.py`: the file table a poll with nothing changed walks.
"""
