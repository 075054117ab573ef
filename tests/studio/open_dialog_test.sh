#!/usr/bin/env bash
# The studio's Open window, driven under Xvfb by its scripted options as
# clicks would drive it (--open-choose FILE: FILE clicked in the listing;
# --open-choose-animation N: N chosen in the animation combo; --open-press:
# Open pressed). The studio starts on the demo clip at frame 40 with
# left_thigh selected, and prints what is open at the end:
#   a) choosing the demo's second animation (idle) changes nothing until
#      Open: still [walk], frame 40, left_thigh, the window shown;
#   b) Open loads idle, frame 0, left_thigh (the same rig: the same bone by
#      name), and closes the window;
#   c) another file, a two-bone BVH: its first animation, frame 0, the
#      selection on its moving bone with the largest error, Spine (the demo's
#      left_thigh is not there), the window closed;
#   d) a file that does not open: the demo stays as it was, the window stays
#      shown, exit 1 with the error naming the file;
#   e) Escape (--open-escape) after choosing idle closes the window and
#      changes nothing;
#   f) --open-press without --open-choose exits 2.
#   open_dialog_test.sh STUDIO ASSETS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb).

set -euo pipefail
studio=$1 assets=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"
demo="$assets/demo_walk.glb"

cat >"$work/two_bones.bvh" <<'BVH'
HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Spine
  {
    OFFSET 0 10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 10 0
    }
  }
}
MOTION
Frames: 3
Frame Time: 0.0333333
0 90 0 0 0 0 0 0 0
0 91 0 0 10 0 5 0 0
0 92 0 0 20 0 10 0 0
BVH

# expect NAME CODE LINE ARGS...: the studio, started on the demo at frame 40
# with left_thigh selected and given ARGS, exits CODE and prints LINE.
expect() {
  local name=$1 code=$2 line=$3; shift 3
  run_studio 1600x1000 "$name" "$demo" --frame 40 --select left_thigh "$@"
  expect_exit "$name" "$code"
  grep -qxF -- "$line" "$work/$name.out" || fail "$name: expected '$line', got: $(cat "$work/$name.out")"
  echo "ok: $name: $line"
}

expect a_chosen 0 "open: demo_walk.glb [walk] animation 0, frame 40, bone left_thigh; Open window shown" \
  --open-choose "$demo" --open-choose-animation 1
expect b_opened 0 "open: demo_walk.glb [idle] animation 1, frame 0, bone left_thigh; Open window closed" \
  --open-choose "$demo" --open-choose-animation 1 --open-press
expect c_other 0 "open: two_bones.bvh [two_bones] animation 0, frame 0, bone Spine; Open window closed" \
  --open-choose "$work/two_bones.bvh" --open-press
expect d_missing 1 "open: demo_walk.glb [walk] animation 0, frame 40, bone left_thigh; Open window shown" \
  --open-choose "$work/missing.glb" --open-press
grep -qF "missing.glb" "$work/d_missing.err" || fail "d: the error does not name the file: $(cat "$work/d_missing.err")"
expect e_escape 0 "open: demo_walk.glb [walk] animation 0, frame 40, bone left_thigh; Open window closed" \
  --open-choose "$demo" --open-choose-animation 1 --open-escape
rc=0
"$studio" "$demo" --open-press >/dev/null 2>"$work/f.err" || rc=$?
[ "$rc" -eq 2 ] || fail "f: --open-press without --open-choose exited $rc"
echo "ok: f: $(head -n 1 "$work/f.err")"
echo "PASS"
