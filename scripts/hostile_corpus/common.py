"""Shared pieces of the hostile corpus: where the demo clip and the shared
clips live, the Corpus that writes each file into a folder of its own and
records its type and note for the runner, and the special paths (empty,
garbage, FIFO, directory, symlinks to /dev/zero and to nowhere) that every
file type gets, since a name on the command line can stand for any of them.
"""

import os
import random
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
DEMO = REPO / "assets" / "demo_walk.glb"
CLIPS = REPO.parent / "shared" / "clips"  # read in place, never copied into the repository


class Corpus:
    """Files by type; each in a folder of its own, so the glTF folder rule
    applies to it alone and outputs never collide."""

    def __init__(self, root):
        self.root = root
        self.files = []  # (type, path, description)

    def folder(self, kind, name):
        d = self.root / kind / name
        d.mkdir(parents=True, exist_ok=True)
        return d

    def add(self, kind, name, data, filename=None, note=""):
        d = self.folder(kind, name)
        path = d / (filename or f"{name}.{kind}")
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        path.write_bytes(data)
        self.files.append((kind, path, note or name))
        return path

    def add_special(self, kind, name, make, filename=None, note=""):
        """A path that is not a regular file (FIFO, directory, symlink), made by make(path)."""
        d = self.folder(kind, name)
        path = d / (filename or f"{name}.{kind}")
        make(path)
        self.files.append((kind, path, note or name))
        return path


def special_paths(corpus, kind):
    """What a file name can stand for besides a regular file."""
    corpus.add(kind, "empty", b"")
    corpus.add(kind, "garbage", bytes(random.Random(kind).randrange(256) for _ in range(4096)))
    corpus.add_special(kind, "fifo", os.mkfifo, note="a FIFO with no writer")
    corpus.add_special(kind, "directory", os.mkdir, note="a directory")
    corpus.add_special(kind, "devzero", lambda p: os.symlink("/dev/zero", p), note="a symlink to /dev/zero")
    corpus.add_special(kind, "dangling", lambda p: os.symlink("nowhere/at/all", p), note="a dangling symlink")
