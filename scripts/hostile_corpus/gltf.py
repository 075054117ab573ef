"""glTF and GLB files for the hostile corpus: a small skinned document
(Doc) mutated every way the importer must survive: JSON nested 14,500 deep,
1,024 joints keyed out to 2,184 s, NaN, infinite and denormal times and
values, buffer and image URIs leading out of the folder or at FIFOs and
/dev/zero, byteLengths that lie, accessor, view, skin and node indices out of
range, the demo clip's mesh broken for the studio to draw, and GLB containers
cut short or with lying chunk headers. tinygltf accepts much of this, so each
case checks our own validation, not the parser's.
"""

import base64
import json
import os
import struct

from .common import CLIPS, DEMO, special_paths

FLOAT, UBYTE, USHORT, UINT = 5126, 5121, 5123, 5125


class Doc:
    """A small glTF document: a skinned chain of joints animated by one or
    more animations, and its binary buffer."""

    def __init__(self, joints=3, times=(0.0, 0.5, 1.0), names=None, animations=("walk",), flat=False):
        self.buf = bytearray()
        self.json = {"asset": {"version": "2.0", "generator": "scripts/hostile"}, "scene": 0,
                     "buffers": [], "bufferViews": [], "accessors": [], "nodes": [], "animations": []}
        names = names or [f"joint{i}" for i in range(joints)]
        for i in range(joints):
            node = {"name": names[i], "translation": [0.0, 0.1 if i else 1.0, 0.0]}
            children = list(range(1, joints)) if flat and i == 0 else [] if flat else [i + 1] if i + 1 < joints else []
            if children:
                node["children"] = children
            self.json["nodes"].append(node)
        self.json["scenes"] = [{"nodes": [0]}]
        self.json["skins"] = [{"joints": list(range(joints)), "skeleton": 0}]
        for anim in animations:
            t = self.accessor(struct.pack(f"<{len(times)}f", *times), len(times), "SCALAR",
                              mn=[min(times)], mx=[max(times)])
            samplers, channels = [], []
            for j in range(joints):
                quats = []
                for k in range(len(times)):
                    a = 0.1 * k + 0.01 * j
                    quats += [0.0, 0.0, a / (1 + a * a) ** 0.5, 1 / (1 + a * a) ** 0.5]
                r = self.accessor(struct.pack(f"<{len(quats)}f", *quats), len(times), "VEC4")
                channels.append({"sampler": len(samplers), "target": {"node": j, "path": "rotation"}})
                samplers.append({"input": t, "output": r, "interpolation": "LINEAR"})
            tr = self.accessor(struct.pack(f"<{3 * len(times)}f", *[v for k in range(len(times))
                                                                     for v in (0.0, 1.0, 0.05 * k)]),
                               len(times), "VEC3")
            channels.append({"sampler": len(samplers), "target": {"node": 0, "path": "translation"}})
            samplers.append({"input": t, "output": tr, "interpolation": "LINEAR"})
            self.json["animations"].append({"name": anim, "samplers": samplers, "channels": channels})

    def accessor(self, data, count, type_, ctype=FLOAT, mn=None, mx=None):
        while len(self.buf) % 4:
            self.buf.append(0)
        self.json["bufferViews"].append({"buffer": 0, "byteOffset": len(self.buf), "byteLength": len(data)})
        self.buf += data
        acc = {"bufferView": len(self.json["bufferViews"]) - 1, "componentType": ctype, "count": count,
               "type": type_}
        if mn is not None:
            acc["min"], acc["max"] = mn, mx
        self.json["accessors"].append(acc)
        return len(self.json["accessors"]) - 1

    def gltf(self, uri=None):
        """The .gltf text, the buffer embedded as a data URI unless `uri` names it."""
        j = json.loads(json.dumps(self.json))
        j["buffers"] = [{"byteLength": len(self.buf),
                         "uri": uri or "data:application/octet-stream;base64," + base64.b64encode(self.buf).decode()}]
        return json.dumps(j)

    def glb(self):
        j = json.loads(json.dumps(self.json))
        j["buffers"] = [{"byteLength": len(self.buf)}]
        return make_glb(json.dumps(j).encode(), bytes(self.buf))


def make_glb(json_bytes, bin_bytes):
    json_bytes += b" " * (-len(json_bytes) % 4)
    bin_bytes += b"\0" * (-len(bin_bytes) % 4)
    chunks = struct.pack("<I4s", len(json_bytes), b"JSON") + json_bytes
    if bin_bytes:
        chunks += struct.pack("<I4s", len(bin_bytes), b"BIN\0") + bin_bytes
    return struct.pack("<4sII", b"glTF", 2, 12 + len(chunks)) + chunks


def read_glb(path):
    data = path.read_bytes()
    json_len = struct.unpack_from("<I", data, 12)[0]
    bin_len = struct.unpack_from("<I", data, 20 + json_len)[0]
    return json.loads(data[20:20 + json_len]), data[28 + json_len:28 + json_len + bin_len]


def gltf_corpus(c):
    special_paths(c, "gltf")
    special_paths(c, "glb")
    base = Doc()

    def both(name, doc_json, note=""):
        """The same mutated document as .gltf (embedded buffer) and as .glb."""
        d = Doc()
        d.json, d.buf = doc_json, base.buf
        c.add("gltf", name, d.gltf(), note=note)
        c.add("glb", name, d.glb(), note=note)

    def mutated(fn):
        j = json.loads(json.dumps(base.json))
        fn(j)
        return j

    c.add("gltf", "valid_small", base.gltf())
    c.add("glb", "valid_small", base.glb())
    deep = "[" * 14500 + "]" * 14500
    c.add("gltf", "deep_extras", base.gltf()[:-1] + ', "extras": ' + deep + "}", note="14,500 levels in extras")
    c.add("glb", "deep_extras", make_glb((json.dumps({**base.json, "buffers": [{"byteLength": len(base.buf)}]})[:-1]
                                         + ', "extras": ' + deep + "}").encode(), bytes(base.buf)))
    c.add("gltf", "deep_object", base.gltf()[:-1] + ', "extras": ' + '{"a":' * 14500 + "1" + "}" * 14500 + "}")
    huge = Doc(joints=1024, times=(0.0, 1.0, 2184.0), flat=True)
    c.add("gltf", "joints1024_last_key_2184s", huge.gltf(), note="1,024 joints, 3 keys, last at 2,184 s")
    c.add("glb", "joints1024_last_key_2184s", huge.glb())
    c.add("gltf", "run_bang_run_query", Doc(animations=("Run!", "Run?")).gltf(), note="names collide as files")
    esc = ["\x1b]0;pwned\x07root", "\x1b[2J\x1b[31mred", "tab\tnew\nline\rcr"]
    c.add("gltf", "escape_names", Doc(names=esc, animations=("\x1b[5mblink\x1b[0m",)).gltf())
    long_names = ["B" * 70000, "joint1", "joint2"]
    c.add("gltf", "name70000", Doc(names=long_names, animations=("A" * 70000,)).gltf(),
          note="70,000-character animation and bone names")
    c.add("glb", "name70000", Doc(names=long_names, animations=("A" * 70000,)).glb())
    c.add("gltf", "times_9e39", Doc(times=(0.0, 1.0, 3.0e38)).gltf().replace("3e+38", "9e39"),
          note="key times 9e39 in min/max and float max in the buffer")
    c.add("gltf", "times_inf", Doc(times=(0.0, 1.0, float("inf"))).gltf().replace("Infinity", "1e999"))
    c.add("gltf", "times_nan", Doc(times=(0.0, float("nan"), 1.0)).gltf().replace("NaN", "0"))
    c.add("gltf", "times_tiny_step", Doc(times=(0.0, 1e-38, 2e-38)).gltf(), note="keys' own rate 1e38 Hz")
    c.add("gltf", "times_denormal", Doc(times=(0.0, 1e-45, 3e-45)).gltf())
    c.add("gltf", "times_decreasing", Doc(times=(1.0, 0.5, 0.0)).gltf())
    c.add("gltf", "times_negative", Doc(times=(-5.0, -1.0, 0.0)).gltf())
    c.add("gltf", "times_single_key", Doc(times=(0.0,)).gltf())
    c.add("gltf", "times_equal", Doc(times=(1.0, 1.0, 1.0)).gltf())

    def values_doc(values, path="rotation"):
        d = Doc()
        comps = 4 if path == "rotation" else 3
        acc = d.json["animations"][0]["samplers"][0 if path == "rotation" else -1]["output"]
        view = d.json["bufferViews"][d.json["accessors"][acc]["bufferView"]]
        data = struct.pack(f"<{3 * comps}f", *(values * 3)[:3 * comps])
        d.buf[view["byteOffset"]:view["byteOffset"] + len(data)] = data
        return d

    big = 3.0e38
    c.add("gltf", "quat_overflow", values_doc([big, big, big, big]).gltf(), note="quaternion length overflows")
    c.add("gltf", "quat_zero", values_doc([0.0, 0.0, 0.0, 0.0]).gltf())
    c.add("gltf", "quat_nan", values_doc([float("nan"), 0.0, 0.0, 1.0]).gltf())
    c.add("gltf", "quat_denormal", values_doc([1e-44, 0.0, 0.0, 1e-44]).gltf())
    c.add("gltf", "translation_inf", values_doc([float("inf"), 0.0, 0.0], "translation").gltf())
    c.add("glb", "translation_nan", values_doc([float("nan"), 0.0, 0.0], "translation").glb())
    c.add("glb", "translation_huge", values_doc([big, -big, big], "translation").glb())
    both("node_scale_1e39", mutated(lambda j: j["nodes"][1].update(scale=[1e39, 1.0, 1.0])))
    both("node_matrix_nan", mutated(lambda j: j["nodes"][1].update(matrix=[1e999] * 16)))
    both("node_rotation_unnormalised", mutated(lambda j: j["nodes"][1].update(rotation=[5.0, 5.0, 5.0, 5.0])))

    # Buffers and external files: each case gets its own folder (the glTF folder rule).
    def external(name, uri, byte_length=None, prepare=None, note=""):
        d = c.folder("gltf", name)
        if prepare:
            prepare(d)
        text = json.loads(base.gltf(uri=uri))
        if byte_length is not None:
            text["buffers"][0]["byteLength"] = byte_length
        c.add("gltf", name, json.dumps(text), note=note or f"buffer uri {uri!r}")

    outside = c.root / "outside.bin"
    outside.write_bytes(bytes(base.buf))
    external("uri_parent_passwd", "../../../../etc/passwd")
    external("uri_absolute", "/etc/passwd")
    external("uri_file_scheme", "file:///etc/passwd")
    external("uri_percent_dotdot", "..%2F..%2F..%2Fetc%2Fpasswd")
    external("uri_symlink_out", "link.bin",
             prepare=lambda d: os.symlink(os.path.relpath(outside, d), d / "link.bin"), note="symlink leaving folder")
    external("uri_fifo", "pipe.bin", prepare=lambda d: os.mkfifo(d / "pipe.bin"))
    external("uri_directory", "sub", prepare=lambda d: (d / "sub").mkdir())
    external("uri_dev_zero", "/dev/zero")
    external("uri_symlink_dev_zero", "z.bin", prepare=lambda d: os.symlink("/dev/zero", d / "z.bin"))
    external("uri_missing", "missing.bin")
    external("uri_empty", "")
    external("uri_dot", ".")
    external("uri_nul", "walk\u0000.bin")
    external("uri_unknown_scheme", "http://example.invalid/walk.bin")

    def write_buf(d, extra=0):
        (d / "walk.bin").write_bytes(bytes(base.buf) + b"\0" * extra)

    external("external_valid", "walk.bin", prepare=write_buf, note="a valid external buffer")
    external("bytelength_too_big", "walk.bin", byte_length=len(base.buf) + 1, prepare=write_buf)
    external("bytelength_2p53", "walk.bin", byte_length=2 ** 53, prepare=write_buf)
    external("bytelength_negative", "walk.bin", byte_length=-1, prepare=write_buf)
    external("bytelength_zero", "walk.bin", byte_length=0, prepare=write_buf)
    external("file_far_larger", "big.bin",
             prepare=lambda d: (write_buf(d), os.rename(d / "walk.bin", d / "big.bin"),
                                os.truncate(d / "big.bin", 4 << 30)),
             note="a 4 GiB (sparse) file behind a small byteLength")

    short = bytes(1300000)
    for name, payload, length in (("data_uri_one_short", short[:-1], len(short)),
                                  ("data_uri_one_long", short, len(short) - 1)):
        j = json.loads(base.gltf())
        j["buffers"].append({"byteLength": length,
                             "uri": "data:application/octet-stream;base64," + base64.b64encode(payload).decode()})
        c.add("gltf", name, json.dumps(j), note="1.3 MB data URI, byteLength off by one")
    j = json.loads(base.gltf())
    j["buffers"][0]["uri"] = j["buffers"][0]["uri"][:-7] + "!!!@@=="
    c.add("gltf", "data_uri_bad_base64", json.dumps(j))

    # Images are never read on import; an export with --source keeps them under the folder rule.
    for name, uri in (("image_dev_zero", "/dev/zero"), ("image_passwd", "../../../../etc/passwd"),
                      ("image_fifo", "pipe.png")):
        d = c.folder("gltf", name)
        if uri == "pipe.png":
            os.mkfifo(d / "pipe.png")
        j = json.loads(base.gltf())
        j["images"] = [{"uri": uri}]
        j["textures"] = [{"source": 0}]
        c.add("gltf", name, json.dumps(j), note=f"image uri {uri!r}")

    # Accessor index and range errors: tinygltf accepts many; the checks are ours.
    acc_cases = {
        "sampler_input_oob": lambda j: j["animations"][0]["samplers"][0].update(input=999),
        "sampler_output_negative": lambda j: j["animations"][0]["samplers"][0].update(output=-1),
        "channel_sampler_oob": lambda j: j["animations"][0]["channels"][0].update(sampler=77),
        "channel_node_oob": lambda j: j["animations"][0]["channels"][0]["target"].update(node=4096),
        "channel_path_weights": lambda j: j["animations"][0]["channels"][0]["target"].update(path="weights"),
        "channel_path_bogus": lambda j: j["animations"][0]["channels"][0]["target"].update(path="bogus"),
        "accessor_view_oob": lambda j: j["accessors"][1].update(bufferView=500),
        "accessor_count_zero": lambda j: j["accessors"][0].update(count=0),
        "accessor_count_negative": lambda j: j["accessors"][0].update(count=-3),
        "accessor_count_4e9": lambda j: j["accessors"][1].update(count=4000000000),
        "accessor_count_mismatch": lambda j: j["accessors"][1].update(count=2),
        "accessor_offset_past_view": lambda j: j["accessors"][1].update(byteOffset=4096),
        "accessor_offset_unaligned": lambda j: j["accessors"][1].update(byteOffset=1),
        "accessor_type_vec2": lambda j: j["accessors"][1].update(type="VEC2"),
        "accessor_type_mat4": lambda j: j["accessors"][0].update(type="MAT4"),
        "accessor_ubyte_times": lambda j: j["accessors"][0].update(componentType=UBYTE),
        "accessor_ushort_normalized_quat": lambda j: j["accessors"][1].update(componentType=USHORT, normalized=True),
        "accessor_bogus_component": lambda j: j["accessors"][1].update(componentType=1234),
        "accessor_sparse_oob": lambda j: j["accessors"][1].update(sparse={
            "count": 3, "indices": {"bufferView": 0, "componentType": UINT},
            "values": {"bufferView": 1}}),
        "accessor_no_view": lambda j: j["accessors"][1].pop("bufferView"),
        "view_past_buffer": lambda j: j["bufferViews"][1].update(byteOffset=1 << 31),
        "view_length_huge": lambda j: j["bufferViews"][1].update(byteLength=2 ** 40),
        "view_stride_tiny": lambda j: j["bufferViews"][1].update(byteStride=4),
        "view_stride_huge": lambda j: j["bufferViews"][1].update(byteStride=252),
        "view_buffer_oob": lambda j: j["bufferViews"][1].update(buffer=9),
        "cubicspline_short_output": lambda j: j["animations"][0]["samplers"][0].update(interpolation="CUBICSPLINE"),
        "interpolation_bogus": lambda j: j["animations"][0]["samplers"][0].update(interpolation="SMOOTH"),
        "skin_joint_oob": lambda j: j["skins"][0].update(joints=[0, 1, 70000]),
        "skin_joint_negative": lambda j: j["skins"][0].update(joints=[0, -1, 2]),
        "skin_joint_duplicate": lambda j: j["skins"][0].update(joints=[0, 1, 1, 2]),
        "skin_ibm_oob": lambda j: j["skins"][0].update(inverseBindMatrices=321),
        "skin_ibm_wrong_type": lambda j: j["skins"][0].update(inverseBindMatrices=0),
        "node_cycle": lambda j: j["nodes"][2].update(children=[0]),
        "node_self_child": lambda j: j["nodes"][1].update(children=[1, 2]),
        "node_two_parents": lambda j: j["nodes"][0].update(children=[1, 2]),
        "node_child_oob": lambda j: j["nodes"][2].update(children=[99999]),
        "scene_node_oob": lambda j: j["scenes"][0].update(nodes=[12345]),
        "no_animations": lambda j: j.pop("animations"),
        "empty_animation": lambda j: j["animations"][0].update(channels=[], samplers=[]),
        "no_nodes": lambda j: (j.update(nodes=[]), j.pop("skins"), j["scenes"][0].update(nodes=[])),
        "mesh_oob_accessors": lambda j: (j.update(meshes=[{"primitives": [{"attributes": {
            "POSITION": 0, "JOINTS_0": 88, "WEIGHTS_0": 1}, "indices": 1}]}]), j["nodes"][0].update(mesh=0, skin=0)),
        "asset_version_1": lambda j: j["asset"].update(version="1.0"),
        "strings_as_numbers": lambda j: j["accessors"][0].update(count="three"),
    }
    for name, fn in acc_cases.items():
        both(name, mutated(fn))

    # The demo clip, a skinned mesh, with its mesh accessors broken: the studio draws it.
    demo_json, demo_bin = read_glb(DEMO)

    def demo(name, fn, patch=None):
        j = json.loads(json.dumps(demo_json))
        fn(j)
        b = bytearray(demo_bin)
        if patch:
            patch(j, b)
        c.add("glb", name, make_glb(json.dumps(j).encode(), bytes(b)))

    def index_bytes(j, b):
        acc = j["accessors"][j["meshes"][0]["primitives"][0]["indices"]]
        view = j["bufferViews"][acc["bufferView"]]
        size = {UBYTE: 1, USHORT: 2, UINT: 4}[acc["componentType"]]
        fmt = {1: "<B", 2: "<H", 4: "<I"}[size]
        struct.pack_into(fmt, b, view.get("byteOffset", 0) + acc.get("byteOffset", 0) + 3 * size,
                         (1 << (8 * size)) - 1)

    def joint_bytes(j, b):
        acc = j["accessors"][j["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"]]
        view = j["bufferViews"][acc["bufferView"]]
        b[view.get("byteOffset", 0) + acc.get("byteOffset", 0)] = 250

    demo("demo_index_oob", lambda j: None, index_bytes)
    demo("demo_joint_index_oob", lambda j: None, joint_bytes)
    demo("demo_position_count_huge", lambda j: j["accessors"][0].update(count=2 ** 31))
    demo("demo_weights_nan", lambda j: None, lambda j, b: b.__setitem__(
        slice(j["bufferViews"][j["accessors"][3]["bufferView"]].get("byteOffset", 0),
              j["bufferViews"][j["accessors"][3]["bufferView"]].get("byteOffset", 0) + 4), b"\xff\xff\xff\x7f"))
    demo("demo_ibm_nan", lambda j: None, lambda j, b: b.__setitem__(
        slice(j["bufferViews"][j["accessors"][j["skins"][0]["inverseBindMatrices"]]["bufferView"]].get(
            "byteOffset", 0), j["bufferViews"][j["accessors"][j["skins"][0]["inverseBindMatrices"]]["bufferView"]].get(
            "byteOffset", 0) + 4), b"\x00\x00\xc0\x7f"))
    demo("demo_skin_joint_oob", lambda j: j["skins"][0]["joints"].append(9999))
    demo("demo_no_bin", lambda j: None, lambda j, b: b.__delitem__(slice(0, len(b))))

    # GLB containers, truncated and broken.
    glb = base.glb()
    for cut in (0, 3, 11, 12, 19, 20, 40, len(glb) // 2, len(glb) - 1):
        c.add("glb", f"truncated_at_{cut}", glb[:cut], note=f"GLB cut at byte {cut} of {len(glb)}")
    demo_glb = DEMO.read_bytes()
    c.add("glb", "demo_truncated_half", demo_glb[:len(demo_glb) // 2])
    c.add("glb", "demo_truncated_last_byte", demo_glb[:-1])

    def patched(offset, fmt, value):
        b = bytearray(glb)
        struct.pack_into(fmt, b, offset, value)
        return bytes(b)

    c.add("glb", "bad_magic", patched(0, "<4s", b"glTf"))
    c.add("glb", "version_1", patched(4, "<I", 1))
    c.add("glb", "version_3", patched(4, "<I", 3))
    c.add("glb", "length_huge", patched(8, "<I", 0xFFFFFFFF))
    c.add("glb", "length_small", patched(8, "<I", 24))
    c.add("glb", "json_chunk_length_huge", patched(12, "<I", 0xFFFFFFF0))
    c.add("glb", "json_chunk_length_odd", patched(12, "<I", 5))
    c.add("glb", "json_chunk_type_wrong", patched(16, "<4s", b"BIN\0"))
    json_len = struct.unpack_from("<I", glb, 12)[0]
    c.add("glb", "bin_chunk_length_huge", patched(20 + json_len, "<I", 0xFFFFFFF0))
    c.add("glb", "bin_chunk_type_wrong", patched(24 + json_len, "<4s", b"XXXX"))
    c.add("glb", "json_not_json", make_glb(b"{\"asset\": [[[", bytes(base.buf)))
    c.add("glb", "shared_truncated_fox", (CLIPS / "Fox.glb").read_bytes()[:30000] if (CLIPS / "Fox.glb").exists()
          else glb[:30])
