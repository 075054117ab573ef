"""Tests of the keystream Python module (python/): run by CTest as
`python3 -m pytest -q tests/python` with PYTHONPATH at the built module,
KS_CLIPS_DIR at the shared clips and KS_TOOL at the keystream tool."""

import json
import os
import pathlib
import struct
import subprocess
import tempfile
import threading
import time

import numpy as np
import pytest

import keystream

CLIPS = pathlib.Path(os.environ.get("KS_CLIPS_DIR", "../shared/clips"))
TOOL = os.environ.get("KS_TOOL", "build/app/keystream")
FOX = CLIPS / "Fox.glb"
CGSPEED = CLIPS / "cmu_cgspeed_01_01.bvh"


@pytest.fixture(scope="module")
def work():
    root = os.environ.get("KS_TEST_TEMP")
    if root:
        os.makedirs(root, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root) as folder:
        yield pathlib.Path(folder)


@pytest.fixture(scope="module", params=[FOX, CGSPEED], ids=["Fox", "cgspeed"])
def compressed(request, work):
    """A clip, its stream at 0.1 mm from the module, and the tool's stream file."""
    clip = keystream.import_clip(request.param)
    stream = keystream.compress(clip, tolerance_mm=0.1)
    cli_stream = work / (request.param.stem + ".cli.ks")
    subprocess.run([TOOL, "compress", str(request.param), "-o", str(cli_stream), "--tolerance", "0.1"],
                   check=True, capture_output=True)
    return clip, stream, cli_stream


def read_glb_poses(path):
    """The (frames, bones, 10) local poses in a glb `keystream export` wrote:
    one node per bone, each with translation, rotation and scale at every frame."""
    data = path.read_bytes()
    json_length = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + json_length])
    binary = data[20 + json_length + 8:]

    def accessor(index):
        a = doc["accessors"][index]
        view = doc["bufferViews"][a["bufferView"]]
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[a["type"]]
        start = view.get("byteOffset", 0) + a.get("byteOffset", 0)
        return np.frombuffer(binary, np.float32, a["count"] * width, start).reshape(a["count"], width)

    animation = doc["animations"][0]
    frames = doc["accessors"][animation["samplers"][0]["input"]]["count"]
    poses = np.zeros((frames, len(doc["nodes"]), 10), np.float32)
    columns = {"translation": slice(0, 3), "rotation": slice(3, 7), "scale": slice(7, 10)}
    for channel in animation["channels"]:
        values = accessor(animation["samplers"][channel["sampler"]]["output"])
        poses[:, channel["target"]["node"], columns[channel["target"]["path"]]] = values
    return poses


def test_clip_arrays():
    clip = keystream.import_clip(FOX, "Walk")
    assert clip.name == "Walk" and clip.animation_names == ["Survey", "Walk", "Run"]
    assert clip.source.endswith("Fox.glb")
    bones = len(clip.bone_names)
    assert clip.parents.dtype == np.int32 and clip.parents.shape == (bones,)
    assert clip.rest_pose.dtype == np.float32 and clip.rest_pose.shape == (bones, 10)
    assert clip.tracks.shape == (clip.frame_count, bones, 10)
    # Unit rotations, xyzw.
    assert np.allclose(np.linalg.norm(clip.tracks[:, :, 3:7], axis=2), 1, atol=1e-4)
    assert keystream.import_clip(FOX, 2).name == "Run"
    assert isinstance(clip.scalar_tracks, dict)


def test_stream_bytes_equal_the_tool(compressed):
    _, stream, cli_stream = compressed
    assert stream.bytes == cli_stream.read_bytes()


def test_sample_many_equals_the_tool_decode(compressed, work):
    clip, stream, cli_stream = compressed
    exported = work / (cli_stream.stem + ".glb")
    subprocess.run([TOOL, "export", str(cli_stream), "-o", str(exported)], check=True, capture_output=True)
    expected = read_glb_poses(exported)
    times = np.arange(clip.frame_count) / clip.sample_rate_hz
    poses = stream.sample_many(times)
    assert poses.dtype == np.float32 and poses.shape == (clip.frame_count, stream.bone_count, 10)
    # Translations and scales bit for bit; the export makes rotations
    # continuous (normalised, each in the hemisphere of the one before).
    assert np.array_equal(poses[:, :, 0:3], expected[:, :, 0:3])
    assert np.array_equal(poses[:, :, 7:10], expected[:, :, 7:10])
    rotations = poses[:, :, 3:7]
    sign = np.where(np.sum(rotations * expected[:, :, 3:7], axis=2, keepdims=True) < 0, -1, 1).astype(np.float32)
    assert np.allclose(rotations * sign, expected[:, :, 3:7], rtol=0, atol=1e-6)
    # One sample is one row of sample_many.
    assert np.array_equal(stream.sample(float(times[7])), poses[7])


def test_measure_within_tolerance(compressed):
    clip, stream, _ = compressed
    figures = keystream.measure(clip, stream)
    assert figures["compressed_bytes"] == len(stream.bytes)
    assert figures["bones_over"] == 0
    for bone in figures["bone_errors"]:
        assert bone["max_m"] <= bone["tolerance_m"]
    assert figures["object_space_error"][0]["max_m"] <= 0.1e-3 * 1.0001


def test_save_and_load(compressed, work):
    clip, stream, _ = compressed
    path = work / (pathlib.Path(clip.source).stem + ".py.ks")
    stream.save(path)
    loaded = keystream.load(path)
    assert loaded.bytes == stream.bytes
    assert loaded.bone_names == clip.bone_names
    assert (loaded.frame_count, loaded.sample_rate_hz) == (clip.frame_count, clip.sample_rate_hz)
    assert loaded.duration_s == pytest.approx(clip.duration_s)
    assert np.array_equal(loaded.sample(0.25), stream.sample(0.25))


def test_settings_match_the_tool(work):
    clip = keystream.import_clip(FOX)
    stream = keystream.compress(clip, 0.2, 5, {"b_Neck_04": (0.5, 2)}, zstd=True, zstd_level=5,
                                jump_interval=0.5, names="hash", rest_tracks="skip")
    out = work / "fox_settings.ks"
    subprocess.run([TOOL, "compress", str(FOX), "-o", str(out), "--tolerance", "0.2", "--shell-distance", "5",
                    "--bone-tolerance", "b_Neck_04=0.5@2", "--zstd", "--zstd-level", "5", "--jump-interval", "0.5",
                    "--names", "hash", "--rest-tracks", "skip"], check=True, capture_output=True)
    assert stream.bytes == out.read_bytes()


def test_bad_values_raise_value_error():
    clip = keystream.import_clip(FOX)
    for kwargs, words in [({"tolerance_mm": 0}, "is not a positive number of millimetres"),
                          ({"split": "middle"}, "is neither 'largest-error' nor 'midpoint'"),
                          ({"zstd_level": 23}, "1..22"),
                          ({"rotation_error_deg": 1}, "per-kind threshold of local mode"),
                          ({"bone_tolerances": {"no_such_bone": 1}}, "no_such_bone")]:
        with pytest.raises(ValueError, match=words):
            keystream.compress(clip, **kwargs)
    with pytest.raises(ValueError):
        keystream.import_clip(FOX, sample_rate_hz=-1)


def test_bad_and_missing_files_name_the_file(work):
    bad = work / "broken.glb"
    bad.write_bytes(b"glTF not really")
    for path in (bad, work / "missing.bvh"):
        with pytest.raises(keystream.Error, match=path.name):
            keystream.import_clip(path)
    cut = work / "cut.ks"
    cut.write_bytes(keystream.compress(keystream.import_clip(FOX)).bytes[:100])
    with pytest.raises(RuntimeError, match="cut.ks"):
        keystream.load(cut)
    with pytest.raises(keystream.Error, match="missing.ks"):
        keystream.load(work / "missing.ks")


def test_compress_on_a_thread_does_not_block_sampling():
    stream = keystream.compress(keystream.import_clip(FOX))
    clip = keystream.import_clip(CGSPEED)
    worker = threading.Thread(target=keystream.compress, args=(clip,), kwargs={"tolerance_mm": 0.01})
    worker.start()
    time.sleep(0.05)  # lets the worker into compress: it imported the clip already
    for i in range(200):
        stream.sample(i * 0.01)
    # Had compress held the GIL, the samples would have waited for it to end.
    assert worker.is_alive()
    worker.join()
