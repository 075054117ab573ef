#!/usr/bin/env bash
# Names in the metadata through the command line (compress --names): full,
# the default, stores the clip's, source's and bones' names; hash a 32-bit
# FNV-1a hash per bone; none nothing. info says which (text and JSON, the
# track owners as names, "#hash" or bone_N); the streams shrink in that
# order with the same tables and keys; verify passes all three, and against
# a source with one bone renamed fails the full and hash streams naming the
# bone (the none stream has nothing to check); measure takes the option; a
# bad value exits 2 naming --names.
#   names_test.sh KEYSTREAM CLIPS_DIR WORK_DIR
set -euo pipefail
ks=$1 clips=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/cli_test_env.sh
source "$(dirname "$0")/cli_test_env.sh"
cd "$work"

robot="$clips/robot.glb"
animation=Robot_Dance

# --- compress and verify in each mode; full is the default.
for names in full hash none; do
  run 0 "$ks" compress "$robot" --animation "$animation" --names "$names" -o "$names.ks"
  run 0 "$ks" verify "$robot" "$names.ks" --animation "$animation"
  shows "every bone within its tolerance at every frame"
done
run 0 "$ks" compress "$robot" --animation "$animation" -o default.ks
cmp -s default.ks full.ks || fail "--names full is not the default"

# --- info says which names the stream holds.
run 0 "$ks" info full.ks
shows "clip             'Robot_Dance' from 'robot.glb'"
grep -E '^skeleton +[0-9]+ bones, [0-9]+ tracks; names stored$' out >/dev/null || fail "info full: $(cat out)"
run 0 "$ks" info hash.ks
shows "clip             (not stored) from (not stored)"
grep -E '^skeleton +[0-9]+ bones, [0-9]+ tracks; 32-bit FNV-1a name hashes stored$' out >/dev/null ||
  fail "info hash: $(cat out)"
run 0 "$ks" info none.ks
shows "clip             (not stored) from (not stored)"
grep -E '^skeleton +[0-9]+ bones, [0-9]+ tracks; no names stored$' out >/dev/null || fail "info none: $(cat out)"
for names in full hash none; do
  run 0 "$ks" info "$names.ks" --json --tracks
  cp out "$names.json"
done
# The JSON field; the track owners: names, their hashes, bone_N.
python3 - full.json hash.json none.json <<'PY' || fail "info --json disagrees with the names stored"
import json, sys
def fnv1a32(name):
    h = 0x811c9dc5
    for byte in name.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h
full, hashed, none = (json.load(open(p)) for p in sys.argv[1:4])
assert (full["bone_names"], hashed["bone_names"], none["bone_names"]) == ("full", "hash", "none")
assert full["clip_name"] == "Robot_Dance" and full["source_name"] == "robot.glb", full
for d in (hashed, none):
    assert d["clip_name"] == "" and d["source_name"] == "", d
    assert d["bones"] == full["bones"] and d["tracks"] == full["tracks"]
assert len(full["track_list"]) == full["tracks"]
for f, h, n in zip(full["track_list"], hashed["track_list"], none["track_list"]):
    assert f["bone"] == h["bone"] == n["bone"], (f, h, n)
    assert h["bone_name"] == "#%08x" % fnv1a32(f["bone_name"]), (f, h)
    assert n["bone_name"] == "bone_%d" % f["bone"], (f, n)
assert hashed["track_list"][0]["bone_name"] == "#d1be68c8"  # "RobotArmature"
PY
run 0 "$ks" info hash.ks --tracks
grep -E '^track +0 #d1be68c8 ' out >/dev/null || fail "info --tracks shows no hash for bone 0: $(cat out)"

# --- full > hash > none; only the metadata differs: hash adds 4 bytes a bone.
python3 - full.ks hash.ks none.ks <<'PY' || fail "the streams are not ordered full > hash > none"
import struct, sys
streams = [open(p, "rb").read() for p in sys.argv[1:4]]
full, hashed, none = streams
assert len(full) > len(hashed) > len(none), [len(s) for s in streams]
bones = struct.unpack_from("<I", full, 16)[0]  # header_offset::kBoneCount
metadata = [struct.unpack_from("<I", s, 40)[0] for s in streams]  # header_offset::kMetadataOffset
assert metadata[0] == metadata[1] == metadata[2], metadata
assert full[64:metadata[0]] == hashed[64:metadata[0]] == none[64:metadata[0]], "tables or keys differ"  # past the header (kHeaderSize 64)
assert len(hashed) - len(none) == 4 * bones, (len(hashed), len(none), bones)
PY

# --- measure takes the option and packs what compress writes.
for names in hash none; do
  run 0 "$ks" measure "$robot" --animation "$animation" --names "$names"
  shows "compressed       $(stat -c %s "$names.ks") bytes"
done

# --- verify against a source with one bone renamed: glTF's interpolation
# test, the node "Step Rotation" animates renamed in a copy.
cp "$clips/interpolation_test.gltf" "$clips/interpolation_test.bin" "$work/"
clip=interpolation_test.gltf
step="Step Rotation"
python3 - "$clip" renamed.gltf "$step" <<'PY' > renamed_bone || fail "could not write renamed.gltf"
import json, sys
gltf = json.load(open(sys.argv[1]))
animation = next(a for a in gltf["animations"] if a["name"] == sys.argv[3])
node = animation["channels"][0]["target"]["node"]
gltf["nodes"][node]["name"] += " renamed"
json.dump(gltf, open(sys.argv[2], "w"))
print(gltf["nodes"][node]["name"])
PY
renamed=$(cat renamed_bone)
[ "$renamed" = "Cube.003 renamed" ] || fail "renamed the unexpected node '$renamed'"
for names in full hash none; do
  run 0 "$ks" compress "$clip" --animation "$step" --names "$names" -o "step_$names.ks"
  run 0 "$ks" verify "$clip" "step_$names.ks" --animation "$step"
done
run 1 "$ks" verify renamed.gltf step_hash.ks --animation "$step"
shows "step_hash.ks: bone 5's name hash in the stream is not that of \"$renamed\" in renamed.gltf"
run 1 "$ks" verify renamed.gltf step_full.ks --animation "$step"
shows "bone 5 is \"Cube.003\" in the stream but \"$renamed\" in renamed.gltf"
# Without names an engine binds by index: nothing to tell the bones apart.
run 0 "$ks" verify renamed.gltf step_none.ks --animation "$step"
shows "every bone within its tolerance at every frame"

# --- export finds a source's bones by name: without names it says so.
run 0 "$ks" export step_full.ks -o step_full.glb --source "$clip"
for names in hash none; do
  run 1 "$ks" export "step_$names.ks" -o "step_$names.glb" --source "$clip"
  shows "cannot export with --source: the stream stores no bone names (compressed with --names $names)"
  [ ! -e "step_$names.glb" ] || fail "a refused export wrote step_$names.glb"
  run 0 "$ks" export "step_$names.ks" -o "step_$names.glb"
done

# --- a bad or missing value is refused naming the option; nothing is written.
run 2 "$ks" compress "$robot" --animation "$animation" --names bogus -o bogus.ks
shows "--names"
shows "bogus"
[ ! -e bogus.ks ] || fail "a refused compress wrote bogus.ks"
run 2 "$ks" measure "$robot" --animation "$animation" --names Hash
shows "--names"
run 2 "$ks" compress "$robot" --animation "$animation" -o missing.ks --names
shows "--names"
[ ! -e missing.ks ] || fail "a refused compress wrote missing.ks"
echo "names: ok"
