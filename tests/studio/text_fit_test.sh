#!/usr/bin/env bash
# Text that fits: in the studio's screenshot mode under Xvfb, the studio
# prints each panel whose contents reached past its right edge (text or
# controls cut off there) as "overflow PANEL by N px", or "overflow none".
#   a) at the default 1600x1000 and at 1280x800, on the demo, Fox (a
#      textured mesh), the 100-bone CMU take and long mocap (01_03), and
#      the demo after a seek from the key cache (--frame 40): none;
#   b) at the smallest window, 640x480, panels may overflow (they scroll),
#      but the studio still renders every panel.
#   text_fit_test.sh STUDIO PNG_CHECK ASSETS_DIR CLIPS_DIR ASSIMP_MODELS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb).

set -euo pipefail
studio=$1 png_check=$2 assets=$3 clips=$4 models=$5 work=$6
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"

for size in 1600x1000 1280x800; do
  for clip in "$assets/demo_walk.glb" "$clips/Fox.glb" "$clips/cmu_cc4_001_14.bvh" "$models/BVH/01_03.bvh"; do
    name="$(basename "$clip" | tr . _)_$size"
    run_studio "$size" "$name" "$clip" --screenshot "$work/$name.png" --size "$size"
    [ "$rc" -eq 0 ] || fail "$name: exit $rc: $(cat "$work/$name.err")"
    grep -qxF "overflow none" "$work/$name.out" || fail "$name: $(grep overflow "$work/$name.out" | tr '\n' ';')"
    "$png_check" "$work/$name.png" --size "$size" --not-blank --has-panels 5 >/dev/null || fail "$name: bad screenshot"
    echo "ok: $name: no panel overflows"
  done
done

# A seek from the key cache (the demo's keys fit it) names it in the timeline's readout.
run_studio 1280x800 demo_seek "$assets/demo_walk.glb" --frame 40 --screenshot "$work/demo_seek.png" --size 1280x800
[ "$rc" -eq 0 ] || fail "demo_seek: exit $rc: $(cat "$work/demo_seek.err")"
grep -qxF "overflow none" "$work/demo_seek.out" || fail "demo_seek: $(grep overflow "$work/demo_seek.out" | tr '\n' ';')"
echo "ok: demo_seek: no panel overflows"

run_studio 640x480 smallest "$clips/Fox.glb" --screenshot "$work/smallest.png" --size 640x480
[ "$rc" -eq 0 ] || fail "smallest: exit $rc: $(cat "$work/smallest.err")"
"$png_check" "$work/smallest.png" --size 640x480 --not-blank --has-panels 5 --bar-width 100 >/dev/null ||
  fail "smallest: bad screenshot"
echo "ok: smallest: $(grep overflow "$work/smallest.out" | tr '\n' ';')"
echo "all text fit checks passed"
