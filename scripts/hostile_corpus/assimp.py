"""FBX and Collada files for the hostile corpus, which assimp parses behind
our guard: the animated models of assimp-testmodels cut at several points
and with bytes flipped, a binary FBX whose array or record lengths lie,
ASCII FBX braces and Collada elements nested 20,000 deep, counts of billions
in a few bytes, broken XML, names carrying escape sequences, and zipped
Collada (.zae) that is no zip, cut, flipped, nested deep inside, or claims
or inflates to far more than its bytes. The models
are read in place from the assimp-testmodels package (installed by
scripts/setup); without it only the generated files are written.
"""

import io
import random
import re
import struct
import zipfile
from pathlib import Path

from . import fbx
from .common import special_paths

MODELS = Path("/usr/share/assimp/models")
FBX = MODELS / "FBX" / "huesitos.fbx"
DAE = MODELS / "Collada" / "box_nested_animation.dae"


def flipped(data, seed, count=16):
    out = bytearray(data)
    rng = random.Random(seed)
    for _ in range(count):
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def forged_array(data, length):
    """The first deflated array of a binary FBX declaring `length` values."""
    out = bytearray(data)
    for i in range(27, len(out) - 13):
        encoding, stored = struct.unpack_from("<II", out, i + 5)
        if out[i:i + 1] in (b"d", b"i", b"f") and encoding == 1 and 16 < stored < 100000:
            struct.pack_into("<I", out, i + 1, length)
            return bytes(out)
    return None


def fbx_corpus(c):
    special_paths(c, "fbx")
    c.add("fbx", "deep_braces", "; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n" + "A: {\n" * 20000,
          note="braces nested 20,000 deep")
    c.add("fbx", "ascii_array_1e11", "; FBX 7.4.0 project file\nObjects:  {\n Geometry: 1, \"g\", \"Mesh\" {\n"
          "  Vertices: *99999999999 {\n   a: 0,0,0\n  }\n }\n}\n", note="an array of 1e11 values in a few bytes")
    c.add("fbx", "magic_only", b"Kaydara FBX Binary  \x00\x1a\x00", note="the binary magic and nothing else")
    # A record claiming to end past the file, and 20,000 records nested in each other.
    header = b"Kaydara FBX Binary  \x00\x1a\x00" + struct.pack("<I", 7400)
    c.add("fbx", "record_past_end", header + struct.pack("<IIIB", 0xFFFFFFF0, 0, 0, 1) + b"A")
    nested = bytearray(header)
    depth = 20000
    for level in range(depth):
        end = len(header) + 14 * depth + 13 * (depth - level)
        nested += struct.pack("<IIIB", end, 0, 0, 1) + b"A"
    for _ in range(depth):
        nested += bytes(13)
    c.add("fbx", "records_nested_20000", bytes(nested), note="binary records nested 20,000 deep")
    if not FBX.exists():
        return
    data = FBX.read_bytes()
    for cut in (27, 40, 1000, len(data) // 2, len(data) - 1):
        c.add("fbx", f"cut_at_{cut}", data[:cut])
    for seed in range(6):
        c.add("fbx", f"flipped_{seed}", flipped(data, seed))
    forged = forged_array(data, 0x7FFFFFFF)
    if forged:
        c.add("fbx", "array_2g_values", forged, note="a deflated array declaring 2^31 values")
    c.add("fbx", "escape_names", data.replace(b"Bone.001", b"\x1b[31m!\x07", 1), note="a bone named with escapes")
    # Issue 39: what crashed assimp or outgrew the input, each past our limit by a little
    # (tests/cli/hostile_fbx_test.py runs the full-size ones).
    c.add("fbx", "zero_key_curves", fbx.zero_key_curves(data), note="every curve without keys")
    c.add("fbx", "chain_1100", fbx.parent_chain(data, 1100), note="bones nested 1,100 deep")
    c.add("fbx", "siblings_17000", fbx.siblings(data, 17000), note="17,000 sibling bones")
    c.add("fbx", "curve_200000_keys", fbx.long_curve(data, 200000), note="a curve of 200,000 keys")


def dae_corpus(c):
    special_paths(c, "dae")
    c.add("dae", "deep_nodes", '<?xml version="1.0"?><COLLADA><library_visual_scenes><visual_scene id="s">'
          + "<node>" * 20000, note="nodes nested 20,000 deep")
    c.add("dae", "float_array_4e9", '<?xml version="1.0"?><COLLADA><library_geometries><geometry><mesh><source>'
          '<float_array id="a" count="4000000000">1 2 3</float_array></source></mesh></geometry>'
          "</library_geometries></COLLADA>", note="a float array of four billion values in a few bytes")
    c.add("dae", "not_xml", "this is not XML <<<>>>")
    if not DAE.exists():
        return
    text = DAE.read_bytes()
    for cut in (10, 200, len(text) // 2, len(text) - 20):
        c.add("dae", f"cut_at_{cut}", text[:cut])
    for seed in range(4):
        c.add("dae", f"flipped_{seed}", flipped(text, seed, 8))
    c.add("dae", "unclosed_tags", text.replace(b"</node>", b"", 2), note="two </node> removed")
    c.add("dae", "escape_names", text.replace(b'name="Bone"', b'name="\x1b]0;pwned\x07"'),
          note="a bone named with escapes")
    c.add("dae", "key_times_nan", text.replace(b"0.04166662", b"nan", 1), note="a key time of NaN")
    c.add("dae", "v_leading_space", text.replace(b"<v>", b"<v> ", 1),
          note="a space before the skin's indices (assimp 5.2 alone crashes on it)")
    c.add("dae", "array_without_count", text.replace(b'normals-array" count="18"', b'normals-array" count\xb3="18"'),
          note="a float array whose count attribute is mangled (assimp 5.2 alone crashes on it)")
    c.add("dae", "polylist_without_vcount", re.sub(rb"<vcount>3[ 3]*</vcount>", b"", text, count=1),
          note="a <polylist> without its <vcount> (assimp 5.2 alone crashes on it)")


def zip_of(entries, claimed=None):
    """A zip archive of (name, bytes) entries, deflated; `claimed` maps a name
    to the inflated size its central directory entry states instead."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    out = bytearray(buffer.getvalue())
    for name, size in (claimed or {}).items():
        entry = out.find(b"PK\x01\x02")
        while entry >= 0 and out[entry + 46:entry + 46 + len(name)] != name.encode():
            entry = out.find(b"PK\x01\x02", entry + 4)
        if entry >= 0:
            struct.pack_into("<I", out, entry + 24, size)
    return bytes(out)


def zae_corpus(c):
    special_paths(c, "zae")
    c.add("zae", "not_zip", "<COLLADA></COLLADA> is not a zip archive")
    c.add("zae", "no_document", zip_of([("readme.txt", "no Collada here")]))
    c.add("zae", "deep_nodes", zip_of([("deep.dae", '<?xml version="1.0"?><COLLADA>' + "<node>" * 20000)]),
          note="a zipped document nested 20,000 deep")
    c.add("zae", "claims_2g", zip_of([("a.dae", "<COLLADA/>" * 100)], {"a.dae": 0x7FFFFFF0}),
          note="an entry claiming 2 GB from a few hundred stored bytes")
    # Within deflate's 1032:1, as FBX arrays may be: read, then refused by assimp.
    c.add("zae", "spaces_20m", zip_of([("a.dae", b" " * 20_000_000)]), note="20 MB of spaces deflated to 20 KB")
    if not DAE.exists():
        return
    text = DAE.read_bytes()
    zae = zip_of([("manifest.xml", "<dae_root>./box.dae</dae_root>"), ("box.dae", text)])
    c.add("zae", "valid", zae, note="box_nested_animation.dae zipped")
    for cut in (10, len(zae) // 2, len(zae) - 10):
        c.add("zae", f"cut_at_{cut}", zae[:cut])
    for seed in range(4):
        c.add("zae", f"flipped_{seed}", flipped(zae, seed, 8))
    c.add("zae", "manifest_elsewhere", zip_of([("manifest.xml", "<dae_root>../../etc/passwd</dae_root>"),
                                                ("box.dae", text)]), note="a manifest naming a path outside")
