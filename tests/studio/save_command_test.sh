#!/usr/bin/env bash
# The studio's File menu, driven by its scripted options under Xvfb (the
# same dialogs the menu opens):
#   a) --save-stream writes a stream that `keystream verify` accepts against
#      the source, and --print-command prints a `keystream compress` line
#      that, run as printed, writes the very same bytes, with a per-bone
#      override in the studio's settings;
#   b) the same with a tolerance a slider would leave (0.1234567 mm) and an
#      override with its own shell distance, in a folder whose name has a
#      space and a quote (the command must quote it);
#   c) --export-glb writes a glTF holding the demo's mesh and skin and one
#      animation, which imports with the demo's frame count (keystream
#      measure reads it as a source);
#   d) a shared BVH clip (when the shared clips are there): saved, verified
#      and reproduced; its export is a bare skeleton;
#   e) writing into a folder that does not exist fails with exit 1, the
#      error naming the file, and no file;
#   f) --show-file-menu without --screenshot, and a save option without a
#      file name, exit 2;
#   g) --show-file-menu --screenshot: the menu is drawn open below its label
#      (that corner differs from a plain screenshot's);
#   h) --rest-tracks skip: the saved stream has rest tracks and the printed
#      command says --rest-tracks skip and writes the very same bytes; a bad
#      value exits 2 naming the option.
#   save_command_test.sh STUDIO KEYSTREAM PNG_CHECK ASSETS_DIR CLIPS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb).

set -euo pipefail
studio=$1 keystream_bin=$2 png_check=$3 assets=$4 clips=$5 work=$6
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"
demo="$assets/demo_walk.glb"

# studio_run NAME ARGS...: the studio on a fresh X server; output in
# $work/NAME.out and NAME.err, exit code in rc.
studio_run() { run_studio 1600x1000 "$@"; }

# The printed command names the tool "keystream": run it as printed, with
# that name bound to the built binary.
keystream() { "$keystream_bin" "$@"; }

# save_and_reproduce NAME SOURCE FOLDER STUDIO_OPTIONS...: saves SOURCE's
# stream into FOLDER from the studio, verifies it, then runs the printed
# command and compares the bytes.
save_and_reproduce() {
  local name=$1 source=$2 folder=$3; shift 3
  mkdir -p "$folder"
  local saved="$folder/$name.ks"
  studio_run "$name" "$source" --save-stream "$saved" --print-command "$@"
  [ "$rc" -eq 0 ] || fail "$name: the studio exited $rc: $(cat "$work/$name.err")"
  grep -q "^save stream: Wrote [0-9,]* bytes to $saved" "$work/$name.out" \
    || fail "$name: no 'Wrote N bytes' line: $(cat "$work/$name.out")"
  [ -s "$saved" ] || fail "$name: the studio wrote no $saved"
  [ ! -s "$work/$name.err" ] || fail "$name: the studio warned: $(cat "$work/$name.err")"
  local out
  out=$("$keystream_bin" verify "$source" "$saved" 2>&1) \
    || fail "$name: keystream verify refused the saved stream: $out"
  local command
  command=$(grep '^keystream compress ' "$work/$name.out") || fail "$name: no command printed: $(cat "$work/$name.out")"
  [ "$(grep -c '^keystream compress ' "$work/$name.out")" -eq 1 ] || fail "$name: more than one command printed"
  mv "$saved" "$folder/$name.studio.ks"
  eval "$command" >"$work/$name.compress.out" 2>&1 || fail "$name: the printed command failed: $command
$(cat "$work/$name.compress.out")"
  cmp "$folder/$name.studio.ks" "$saved" \
    || fail "$name: the printed command wrote other bytes than the studio: $command"
  echo "ok: $name: $(grep '^save stream' "$work/$name.out" | sed 's/.*Wrote //'); reproduced by: $command"
  last_command=$command
}

# a) the demo clip with a per-bone override.
save_and_reproduce demo "$demo" "$work/a" --bone-tolerance left_hand=0.05
grep -qF -- "--bone-tolerance left_hand=0.05" <<<"$last_command" || fail "a: the override is not in: $last_command"

# b) odd numbers, an override with its own distance, a folder that needs quoting.
save_and_reproduce odd "$demo" "$work/b it's here" --tolerance 0.1234567 --shell-distance 4.2 \
  --bone-tolerance spine=0.0777@1.75 --bone-tolerance right_hand=0.3
grep -qF -- "'$work/b it'\\''s here/odd.ks'" <<<"$last_command" || fail "b: the output is not quoted: $last_command"
grep -qF -- "--bone-tolerance spine=0.0777@1.75" <<<"$last_command" || fail "b: override missing: $last_command"

# c) export onto the source's meshes.
studio_run export "$demo" --export-glb "$work/demo.decoded.glb"
[ "$rc" -eq 0 ] || fail "c: the studio exited $rc: $(cat "$work/export.err")"
grep -q "^export decoded glTF: Wrote .* (with the source's meshes)" "$work/export.out" \
  || fail "c: $(cat "$work/export.out")"
# The export imports, with every frame of the demo.
out=$("$keystream_bin" measure "$work/demo.decoded.glb" --tolerance 10 2>&1) \
  || fail "c: keystream measure refused the export as a source: $out"
frames=$("$keystream_bin" measure "$demo" --tolerance 10 2>&1 | grep -o '[0-9]* frames' | head -n 1)
grep -qF "$frames" <<<"$out" || fail "c: the export has not the demo's $frames: $out"
# The GLB's JSON chunk: the demo's mesh and skin are there.
python3 - "$work/demo.decoded.glb" <<'PY' || fail "c: the export lost the source's mesh"
import json, struct, sys
data = open(sys.argv[1], "rb").read()
length, kind = struct.unpack_from("<II", data, 12)
doc = json.loads(data[20:20 + length])
sys.exit(0 if doc.get("meshes") and doc.get("skins") and len(doc.get("animations", [])) == 1 else 1)
PY
echo "ok: export: $(cat "$work/export.out")"

# d) a shared BVH clip.
bvh="$clips/cmu_cgspeed_01_01.bvh"
if [ -f "$bvh" ]; then
  save_and_reproduce bvh "$bvh" "$work/d" --bone-tolerance Hips=0.2@5 --export-glb "$work/d/bvh.decoded.glb"
  grep -q "^export decoded glTF: .*skeleton only" "$work/bvh.out" || fail "d: $(cat "$work/bvh.out")"
else
  echo "skip: d: no shared clip $bvh"
fi

# e) a folder that does not exist.
studio_run nowhere "$demo" --save-stream "$work/no such folder/x.ks"
[ "$rc" -eq 1 ] || fail "e: expected exit 1, got $rc: $(cat "$work/nowhere.err")"
grep -qF "no such folder" "$work/nowhere.err" || fail "e: the error does not name the file: $(cat "$work/nowhere.err")"
[ ! -e "$work/no such folder" ] || fail "e: something was written"
echo "ok: e: $(cat "$work/nowhere.err")"

# f) bad usage.
studio_run menu "$demo" --show-file-menu
[ "$rc" -eq 2 ] || fail "f: --show-file-menu without --screenshot exited $rc"
studio_run empty "$demo" --save-stream ""
[ "$rc" -eq 2 ] || fail "f: --save-stream '' exited $rc"
echo "ok: f: bad usage exits 2"

# g) the File menu open, against the same screenshot without it.
studio_run plain "$demo" --screenshot "$work/plain.png"
[ "$rc" -eq 0 ] || fail "g: the plain screenshot exited $rc: $(cat "$work/plain.err")"
studio_run file_menu "$demo" --show-file-menu --screenshot "$work/file_menu.png"
[ "$rc" -eq 0 ] || fail "g: --show-file-menu exited $rc: $(cat "$work/file_menu.err")"
out=$("$png_check" "$work/file_menu.png" --region 0,22,300,100 --diff "$work/plain.png" --min-mean 10 2>&1) \
  || fail "g: the File menu is not drawn open: $out"
echo "ok: g: the File menu opens"

# h) rest tracks skipped in the studio's settings.
save_and_reproduce rest_skip "$demo" "$work/h" --rest-tracks skip
grep -qF -- "--rest-tracks skip" <<<"$last_command" || fail "h: --rest-tracks skip is not in: $last_command"
out=$("$keystream_bin" info "$work/h/rest_skip.studio.ks" 2>&1) || fail "h: keystream info refused the stream: $out"
grep -qE '^track codings .* rest [0-9]+;' <<<"$out" || fail "h: the saved stream has no rest tracks: $out"
studio_run rest_bogus "$demo" --rest-tracks bogus
[ "$rc" -eq 2 ] || fail "h: --rest-tracks bogus exited $rc"
grep -qF -- "--rest-tracks" "$work/rest_bogus.err" || fail "h: the error does not name the option: $(cat "$work/rest_bogus.err")"
echo "ok: h: rest tracks skipped and reproduced"
echo "PASS"
