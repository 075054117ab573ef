"""The hostile corpus (issue 16) that scripts/hostile runs every keystream
command on: deterministic generators of malformed and abusive files, one
module per input type (gltf, bvh, ks, and fbx, dae and zae in assimp) and the Corpus that records them
(common). Kept apart from the runner because what the files contain and how
the runs are judged change for different reasons.
"""

from .assimp import dae_corpus, fbx_corpus, zae_corpus
from .bvh import bvh, bvh_corpus
from .common import CLIPS, DEMO, REPO, Corpus
from .gltf import Doc, gltf_corpus
from .ks import Checksum, ks_corpus

__all__ = ["CLIPS", "DEMO", "REPO", "Checksum", "Corpus", "Doc", "bvh", "bvh_corpus", "dae_corpus", "fbx_corpus",
           "gltf_corpus", "ks_corpus", "zae_corpus"]
