"""keystream: import animation clips, compress them to streams within an
error bound, and sample and measure streams through the runtime player."""

import os
from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

_Path = str | os.PathLike[str]

class Error(RuntimeError):
    """A file that cannot be read or written, or a clip that cannot be
    compressed; the message names the file."""

class Clip:
    """An imported source clip: its skeleton and sampled tracks."""
    @property
    def source(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def sample_rate_hz(self) -> float: ...
    @property
    def frame_count(self) -> int: ...
    @property
    def duration_s(self) -> float: ...
    @property
    def animation_names(self) -> list[str]: ...
    @property
    def animation_index(self) -> int: ...
    @property
    def bone_names(self) -> list[str]: ...
    @property
    def parents(self) -> npt.NDArray[np.int32]:
        """(bones,): each bone's parent, -1 for a root."""
    @property
    def rest_pose(self) -> npt.NDArray[np.float32]:
        """(bones, 10): translation xyz (metres), rotation xyzw, scale xyz."""
    @property
    def tracks(self) -> npt.NDArray[np.float32]:
        """(frames, bones, 10): local transforms, laid out as rest_pose."""
    @property
    def scalar_tracks(self) -> dict[str, npt.NDArray[np.float32]]:
        """name -> (frames, components): morph weights and user curves."""
    @property
    def warnings(self) -> list[str]: ...

class Stream:
    """A packed stream (.ks), checked, with a runtime Player to sample it."""
    @property
    def bytes(self) -> bytes: ...
    def save(self, path: _Path) -> None:
        """Writes the stream to `path` atomically."""
    @property
    def bone_names(self) -> list[str]: ...
    @property
    def parents(self) -> npt.NDArray[np.int32]: ...
    @property
    def bone_count(self) -> int: ...
    @property
    def frame_count(self) -> int: ...
    @property
    def sample_rate_hz(self) -> float: ...
    @property
    def duration_s(self) -> float: ...
    @property
    def source_name(self) -> str: ...
    def sample(self, t: float) -> npt.NDArray[np.float32]:
        """The local pose at `t` seconds: (bones, 10)."""
    def sample_many(self, times: Sequence[float] | npt.ArrayLike) -> npt.NDArray[np.float32]:
        """The local poses at each of `times` (seconds): (len(times), bones, 10)."""
    def __len__(self) -> int: ...

def import_clip(path: _Path, animation: int | str | None = None, *, sample_rate_hz: float = 0.0,
                bvh_unit_scale_m: float = 0.0, allow_outside_uris: bool = False,
                max_bone_frames: int = 1048576) -> Clip:
    """Imports a .gltf, .glb, .bvh, .fbx, .dae or .zae file."""

def compress(clip: Clip, tolerance_mm: float | None = None, shell_distance_cm: float | None = None,
             bone_tolerances: dict[str, float | tuple[float, float]] | _Path | None = None, *,
             scalar_precision: float | None = None, scalar_precisions: dict[str, float] | _Path | None = None,
             local: bool = False, translation_error_mm: float | None = None,
             rotation_error_deg: float | None = None, scale_error: float | None = None,
             split: str = "largest-error", rest_tracks: str = "keep", names: str = "full",
             discontinuity_ratio: float | None = None, jump_interval: str | float = "auto",
             zstd: bool = False, zstd_level: int = 19, additive_base: _Path | None = None) -> Stream:
    """Fits, quantizes and packs `clip` as `keystream compress` does; the
    same settings give the same bytes. None keeps the tool's default."""

def load(path: _Path) -> Stream:
    """Reads and fully checks a stream file (.ks)."""

def measure(clip: Clip, stream: Stream) -> dict[str, Any]:
    """Decodes `stream` at every frame of `clip` and returns its errors and sizes."""
