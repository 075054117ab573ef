#!/usr/bin/env bash
# The Curves panel names the selected track's curve (Hermite, linear, step)
# and marks a keyed source's keys with ticks on the time axes
# (docs/curves.md). The studio prints, in its screenshot mode under Xvfb:
#   curves curve: LABEL, N source key ticks
#   a) Fox's Run (glTF LINEAR, 25 keys a rotation), b_Head_05's rotation at
#      1280x800: linear or step through some of the source's 25 keys, 25
#      ticks, drawn in the error plot in their own pink; no panel overflows;
#   b) a BVH take (sampled: nothing keyed): Hermite, no ticks and no pink;
#   c) AnimatedMorphCube's first weight (LINEAR at every frame): Hermite
#      won, and the line says what the source has.
#   curve_kind_test.sh STUDIO PNG_CHECK CLIPS_DIR ASSIMP_MODELS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb).

set -euo pipefail
studio=$1 png_check=$2 clips=$3 models=$4 work=$5
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"
TICK_PINK=255,110,200  # kSourceKeyColor in app/studio/panels/curve_panel.cpp
TICKS_MIN=0.0008       # of the error plot: 25 ticks of 8 x 2 px, partly under the curves (0.0013 measured)

# shot NAME SIZE ARGS...: the studio's screenshot with ARGS exits 0 with no panel overflowing.
shot() {
  local name=$1 size=$2; shift 2
  run_studio "$size" "$name" "$@" --screenshot "$work/$name.png" --size "$size"
  expect_exit "$name" 0
  grep -qxF "overflow none" "$work/$name.out" || fail "$name: $(grep overflow "$work/$name.out" | tr '\n' ';')"
}
# expect_line NAME REGEX: run NAME printed a whole line matching REGEX (extended).
expect_line() {
  grep -qxE -- "$2" "$work/$1.out" || fail "$1: expected /$2/, got: $(cat "$work/$1.out")"
  echo "ok: $1: $(grep -xE -- "$2" "$work/$1.out")"
}
# error_plot NAME: the error plot's rectangle X,Y,W,H from run NAME's "rect plot-0" line.
error_plot() {
  local x y w h
  read -r _ _ x y w h < <(grep '^rect plot-0 ' "$work/$1.out") || fail "$1: no rect plot-0 line"
  echo "$x,$y,$w,$h"
}

shot a_fox_run 1280x800 "$clips/Fox.glb" --animation Run --select b_Head_05
expect_line a_fox_run "curves track b_Head_05 rotation"
expect_line a_fox_run \
  "curves curve: (linear|step) through ([0-9]+ of the source's 25|all 25 source) keys( and [0-9]+ more)?, 25 source key ticks"
check_that "a_fox_run: the source key ticks" "$work/a_fox_run.png" --region "$(error_plot a_fox_run)" \
  --count like $TICK_PINK --min-fraction $TICKS_MIN

shot b_bvh 1280x800 "$clips/cmu_cc4_001_14.bvh"
expect_line b_bvh "curves curve: Hermite, [0-9]+ keys, 0 source key ticks"
check_that "b_bvh: no source key ticks" "$work/b_bvh.png" --region "$(error_plot b_bvh)" \
  --count like $TICK_PINK --max-fraction 0

morph_cube="$models/glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf"
shot c_morph_weight 1600x1000 "$morph_cube" --select-curve 0
expect_line c_morph_weight \
  "curves curve: Hermite, [0-9]+ keys; the source has [0-9]+ linear keys, [0-9]+ source key ticks"
echo "all curve kind checks passed"
