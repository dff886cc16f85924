"""The listing of a remote tree over ssh: the `sh` script that lists it, and the parser of its answer.

One record per file, NUL-ended (a name may hold a newline): "<size> <mtime> <inode> <path>";
one per directory walked: "<path>/" (they are counted as they arrive: `WalkedDirectories`).
GNU `find -printf` writes them; elsewhere (BusyBox, BSD) `find -exec sh -c` runs `stat` on a
batch of files (`-c` as GNU and BusyBox have it, else BSD's `-f`) and pairs its lines, which
hold only numbers, with the batch's names (a file gone meanwhile: each one `stat`-ed alone).

The walk stays inside, as the local one (`discovery`): `-xdev` (links onto another filesystem,
/proc, /sys, /dev, are not followed), links to a directory holding LOGDIR (`/`, a home) are not
followed and say so ("- <path>" records: `find -samefile` each ancestor), `depth` levels,
hidden directories pruned. The answer is cut at `cap` bytes on the remote side (`head -c`: the
walk stops there too), and the request is stopped once it has walked
`limits.MAX_DIRS_WALKED` directories (the local walk's bound).

The host is not trusted: every field is checked where it is parsed; a record with a bad size,
mtime, inode or name is left out and counted as a problem of its job (or of LOGDIR).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .discovery import train_id_for
from .remote_listing import (
    LATEST_MTIME,
    bad_entries,
    listed_mtime,
    listed_size,
    walk_stopped,
)

# Fields: %(root)s, %(mark)s, %(depth)d, %(cap)d. `printf "\0"` is POSIX (an octal escape).
_STAT_BATCH = (b'if [ "$0" = c ]; then s=$(stat -L -c "%%s %%Y %%i" -- "$@" 2>/dev/null); '
               b'else s=$(stat -L -f "%%z %%m %%i" -- "$@" 2>/dev/null); fi; '
               b'if [ "$(printf "%%s\\n" "$s" | grep -c .)" -eq $# ]; then '
               b'printf "%%s\\n" "$s" | { for p; do read -r l; printf "%%s %%s\\0" "$l" "$p"; done; }; '
               b'else for p; do if [ "$0" = c ]; then l=$(stat -L -c "%%s %%Y %%i" -- "$p" 2>/dev/null); '
               b'else l=$(stat -L -f "%%z %%m %%i" -- "$p" 2>/dev/null); fi && printf "%%s %%s\\0" "$l" "$p"; '
               b'done; fi')

SCRIPT = b"""set -f
root=%(root)s
if ! cd -- "$root" 2>/dev/null; then
  if [ ! -e "$root" ]; then echo "No such file or directory" >&2
  elif [ ! -d "$root" ]; then echo "Not a directory" >&2
  else echo "Permission denied" >&2; fi
  exit 3
fi
printf '%(mark)s'
echo nul
set --
p=$(pwd -P)
while [ -n "$p" ] && [ "$p" != / ]; do p=${p%%/*}; set -- "$@" -o -samefile "${p:-/}"; done
if find . -maxdepth 0 -printf '' >/dev/null 2>&1; then
  find -L . -xdev -maxdepth %(depth)d -type d -name '.?*' -prune \\
    -o -type d \\( -name / "$@" \\) -printf '- %%P\\0' -prune \\
    -o -type d -printf '%%P/\\0' -o -type f -printf '%%s %%T@ %%i %%P\\0'
else
  if stat -L -c '%%s' . >/dev/null 2>&1; then f=c; else f=f; fi
  find -L . -xdev -maxdepth %(depth)d -type d -name '.?*' -prune \\
    -o -type d \\( -name / "$@" \\) -prune -exec sh -c 'printf "- %%s\\0" "$@"' sh {} + \\
    -o -type d -exec sh -c 'printf "%%s/\\0" "$@"' sh {} + \\
    -o -type f -exec sh -c '""" + _STAT_BATCH + b"""' "$f" {} +
fi 2>/dev/null | head -c %(cap)d
exit 0
"""

_INODE = re.compile(rb"[0-9]{1,20}")
# A record as it should be: size, mtime (seconds, a fraction perhaps), inode, a name (after `./`).
_GOOD = re.compile(rb"([0-9]{1,19}) (-?[0-9]{1,15}(?:\.[0-9]{0,12})?) ([0-9]{1,20}) (?:\./)?([^\0]+)\0")
_BAD_NAME = re.compile(rb"^/|(?:^|/)\.{0,2}(?:/|$)")  # absolute, or an empty, `.` or `..` part
MAX_RECORDS = 1_000_000  # records parsed from one listing: a log tree has far fewer files, and a
# hostile host's tiny records (a NUL each) are not all parsed
MAX_DETAILED = 1000  # bad records named by directory; past it only counted


class WalkedDirectories:
    """The directory records of a listing, counted as its answer arrives (`feed` each new part):
    a file's record never ends in "/", so each "/\\0" ends one."""

    def __init__(self, limit: int):
        self.limit, self.count, self._last = limit, 0, b""

    def feed(self, part: bytes) -> bool:
        """Count the directories in `part`; True once past the limit (the walk should stop)."""
        self.count += (self._last + part[:1]).count(b"/\0") + part.count(b"/\0")
        self._last = part[-1:]
        return self.count > self.limit


@dataclass
class Listing:
    """A remote tree's files as listed, and the problems met listing them."""

    entries: list[tuple[str, int, float, int]] = field(default_factory=list)  # (rel path, size, mtime, inode)
    problems: list[str] = field(default_factory=list)  # one line per directory with bad records, and LOGDIR's


def parse(body: bytes, cut: bool, walked: WalkedDirectories | None = None) -> Listing:
    """The records of a listing's answer (after its kind line). `cut`: the answer reached the cap,
    so its last record may be a part: it is left out, and a note says where the listing stopped
    (`walked`: at the bound on directories, if it was past it)."""
    listing = Listing()
    bad: dict[str, list[str]] = {}
    entries = listing.entries
    unnamed = detailed = at = count = dirs = 0
    most_dirs = walked.limit if walked is not None else None
    while count < MAX_RECORDS:
        count += 1
        good = _GOOD.match(body, at)  # the common case, checked whole in one C call
        if good is not None and not _BAD_NAME.search(good[4]):
            mtime = float(good[2])
            if abs(mtime) < LATEST_MTIME:
                entries.append((good[4].decode("utf-8", "surrogateescape"), int(good[1]), mtime, int(good[3])))
                at = good.end()
                continue
        end = body.find(b"\0", at)
        if end < 0:
            count -= 1
            break
        record, at = body[at:end], end + 1
        if record.startswith(b"- "):
            name = _name(record[2:])
            if name is not None and len(listing.problems) < MAX_DETAILED:
                listing.problems.append(f"{train_id_for(name)}: not walked (a link to a directory holding LOGDIR)")
            continue
        if record.endswith(b"/"):  # a directory walked (`WalkedDirectories`)
            dirs += 1
            if most_dirs is not None and dirs > most_dirs:
                break
            continue
        name = _name(record.split(b" ", 3)[-1])
        if name is None or detailed >= MAX_DETAILED:
            unnamed += 1
        else:
            detailed += 1
            directory, _, base = name.rpartition("/")
            bad.setdefault(directory, []).append(f"{base}: {_bad_field(record)}")
    listing.problems += bad_entries(bad)
    if unnamed:
        listing.problems.append(f"{train_id_for('')}: {unnamed} listed record(s) left out, no usable file "
                                "name or a bad field")
    if walked is not None and max(dirs, walked.count) > walked.limit:
        listing.problems.append(walk_stopped(walked.limit))
    elif count >= MAX_RECORDS and at < len(body):
        listing.problems.append(f"the listing stopped at {MAX_RECORDS:,} records: files further on are not shown")
    elif cut or at < len(body):
        listing.problems.append("the listing stopped at its size cap (--ssh-max-listing): files further on "
                                "are not shown")
    return listing


def _bad_field(record: bytes) -> str:
    """What is wrong in a record with a usable name: its first field that is no number."""
    size, mtime, inode = (record.split(b" ", 3) + [b"", b"", b""])[:3]
    what = ("size", size) if listed_size(size) is None else ("mtime", mtime) if listed_mtime(mtime) is None \
        else ("inode", inode) if not _INODE.fullmatch(inode) else ("record", record)
    return f"{what[0]} {_text(what[1])!r}"


def _name(raw: bytes) -> str | None:
    """A record's path relative to the root (`./` taken off), or None when it is no such path
    (empty, absolute, with an empty, `.` or `..` part)."""
    if raw.startswith(b"./"):
        raw = raw[2:]
    parts = raw.split(b"/")
    if not raw or any(part in (b"", b".", b"..") for part in parts):
        return None
    return _text(raw)


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")
