#!/usr/bin/env bash
# FBX and Collada through the command line, end to end: every animated model
# of assimp-testmodels (and one zipped as a .zae) compresses within the
# default tolerance and verifies,
# its animation chosen by name and index; a folder of them compresses as a
# batch; export writes glTF carrying an FBX source's mesh, which imports
# back with the stream's bones; inspect prints the unit; malformed files
# fail naming the file and never replace an existing output.
#   assimp_test.sh KEYSTREAM MODELS_DIR WORK_DIR
set -euo pipefail
ks=$1 models=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {
  local code=$1 text=$2; shift 2
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  [ "$rc" -eq "$code" ] || fail "'$*' exited $rc, expected $code: $out"
  grep -qF -- "$text" <<<"$out" || fail "'$*' did not mention '$text': $out"
}
if [ ! -d "$models/FBX" ] || [ ! -d "$models/Collada" ]; then
  echo "SKIP: assimp-testmodels is not installed at $models (scripts/setup installs it)"
  exit 0
fi

# box_zipped.zae: box_nested_animation.dae zipped (deflated), as a .zae holds it.
python3 - "$models/Collada/box_nested_animation.dae" "$work/box_zipped.zae" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as zae:
    zae.writestr("manifest.xml", "<dae_root>./box%20nested.dae</dae_root>")
    zae.write(sys.argv[1], "box nested.dae")
PY
animated=("$models/FBX/animation_with_skeleton.fbx" "$models/FBX/huesitos.fbx"
          "$models/Collada/box_nested_animation.dae" "$models/Collada/anims_with_full_rotations_between_keys.DAE"
          "$models/Collada/library_animation_clips.dae" "$work/box_zipped.zae")
for source in "${animated[@]}"; do
  name=$(basename "$source")
  for variant in plain zstd; do
    flags=(); [ $variant = zstd ] && flags=(--zstd)
    out="$work/$name.$variant.ks"
    expect 0 "| ok |" "$ks" compress "$source" -o "$out" "${flags[@]}"
    expect 0 "every bone within its tolerance at every frame" "$ks" verify "$source" "$out"
  done
done

# The animation by name and by index; an unknown one is refused, listing the names.
expect 0 "| ok |" "$ks" compress "$models/FBX/huesitos.fbx" -o "$work/named.ks" --animation "Armature|Action"
expect 0 "| ok |" "$ks" compress "$models/FBX/huesitos.fbx" -o "$work/indexed.ks" --animation 0
cmp -s "$work/named.ks" "$work/indexed.ks" || fail "the animation by name and by index differ"
expect 1 "Armature|Action" "$ks" compress "$models/FBX/huesitos.fbx" -o "$work/none.ks" --animation Walk
expect 0 "unit scale  0.01 m per file unit" "$ks" inspect "$models/FBX/huesitos.fbx"

# A folder: every .fbx, .dae and .zae in it, with the unreadable ones failing by name.
mkdir -p "$work/folder"
cp "${animated[@]}" "$work/folder/"
expect 0 "6 clips" "$ks" compress "$work/folder" -o "$work/folder_out" --json "$work/folder_out/report.json"
python3 - "$work/folder_out/report.json" <<'PY' || fail "bad batch JSON"
import json, sys
clips = json.load(open(sys.argv[1]))["clips"]
assert len(clips) == 6, len(clips)
assert all(c["ok"] and c["written"] and c["bones_over"] == 0 for c in clips), clips
PY

# export: glTF from an FBX source keeps its mesh, skinned to the stream's bones.
ks_file="$work/huesitos.fbx.plain.ks"
expect 0 "meshes and skins of" "$ks" export "$ks_file" -o "$work/huesitos.glb" --source "$models/FBX/huesitos.fbx"
expect 0 "bones       11" "$ks" inspect "$work/huesitos.glb"
expect 0 "mesh        128 vertices, 120 triangles" "$ks" inspect "$work/huesitos.glb"
expect 0 "every bone within its tolerance at every frame" "$ks" verify "$work/huesitos.glb" "$ks_file"

# Malformed files: refused naming the file; an existing output is kept.
printf '' >"$work/empty.fbx"
head -c 5000 "$models/FBX/huesitos.fbx" >"$work/truncated.fbx"
head -c 900 "$models/Collada/box_nested_animation.dae" >"$work/broken.dae"
echo keep >"$work/kept.ks"
expect 1 "$work/empty.fbx: the file is empty" "$ks" compress "$work/empty.fbx" -o "$work/kept.ks"
expect 1 "$work/truncated.fbx: binary FBX" "$ks" compress "$work/truncated.fbx" -o "$work/kept.ks"
expect 1 "$work/broken.dae: assimp cannot read it" "$ks" compress "$work/broken.dae" -o "$work/kept.ks"
expect 1 "$work/broken.dae" "$ks" inspect "$work/broken.dae"
# The test models' own .zae files are read, but hold no animation.
expect 1 "$models/Collada/human.zae: the file has no animations" \
  "$ks" compress "$models/Collada/human.zae" -o "$work/kept.ks"
head -c 3000 "$work/box_zipped.zae" >"$work/truncated.zae"
expect 1 "$work/truncated.zae: not a zip archive" "$ks" compress "$work/truncated.zae" -o "$work/kept.ks"
expect 1 "$work/truncated.fbx" "$ks" verify "$work/truncated.fbx" "$ks_file"
[ "$(cat "$work/kept.ks")" = keep ] || fail "a refused source replaced the existing output"
echo "assimp CLI: ok"
