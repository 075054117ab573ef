#!/usr/bin/env bash
# Morph targets drawn by the studio's viewport on the GPU, end to end under
# Xvfb with Mesa's software OpenGL, side by side at material colours:
#   a) AnimatedMorphCube (no skin: the cube drawn rigidly with its node, its
#      two targets' weights its only animation). Frames 0 and 126 both have
#      weights 0: their views are the same picture. Frame 48 (target 0 at 1)
#      and frame 102 (target 1 at 1) each differ from the rest shape, and
#      from each other. At every one of these frames the original view (the
#      source's weights) and the compressed one (the player's) agree.
#      Skipped when assimp-testmodels is not installed.
#   b) the skinned morph file (tests/io/morph_test_files.h): frames 4 and 5
#      hold the same pose but different weights, so they differ by the
#      targets alone (applied before skinning); original and compressed
#      agree at each.
#   morph_test.sh STUDIO PNG_CHECK WRITE_MORPH_FILE ASSIMP_MODELS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb). WORK_DIR keeps every screenshot and
# the studio's output of each run (NAME.png, NAME.out, NAME.err).

# Means are ks_png_check --diff's mean absolute difference per channel (0..255).
LABEL_ROWS=26           # rows at the top and bottom of a view that hold its labels
SAME_MAX_MEAN=0.05      # equal weights and pose: the same picture
DEFORMED_MIN_MEAN=1.0   # another weight of a target: a visibly other shape
AGREE_MAX_MEAN=0.5      # original and compressed views of one frame (the cube: 0.21, the views' divider)
# The skinned quad swings towards the camera until it fills the view, so the
# bones' own decoded error (0.14 degrees, the rotation's quantization floor)
# moves its long edges by a pixel: 0.57 and 0.30 measured.
AGREE_SKINNED_MAX_MEAN=1.0

set -euo pipefail
studio=$1 png_check=$2 write_morph_file=$3 models=$4 work=$5
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"

# shot NAME ARGS...: screenshot mode at 1600x1000 succeeds and writes
# $work/NAME.png; sets original and compressed to the bodies of the two
# views (X,Y,W,H without their label rows), from the lines the studio prints.
shot() {
  local name=$1; shift
  run_studio 1600x1000 "$name" "$@" --size 1600x1000 --color material --view side-by-side \
    --screenshot "$work/$name.png"
  expect_exit "$name" 0
  [ -s "$work/$name.png" ] || fail "$name: exited 0 but wrote no PNG"
  view_bodies "$name"
}


# agree NAME MEAN: the original and compressed views of run NAME differ by at most MEAN.
agree() {
  check_that "$1: original and compressed views agree" "$work/$1.png" --region "$original" \
    --diff "$work/$1.png" --other-region "$compressed" --max-mean "$2"
}

# compare A B max|min MEAN: both views of run A against the same views of run B.
compare() {
  local a=$1 b=$2 bound=$3 mean=$4 side
  for side in original compressed; do
    check_that "$a against $b, $side view: --$bound-mean $mean" "$work/$a.png" --region "${!side}" \
      --diff "$work/$b.png" "--$bound-mean" "$mean"
  done
}

# a) AnimatedMorphCube.
cube="$models/glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf"
if [ -f "$cube" ]; then
  for frame in 0 126 48 102; do
    shot "cube_$frame" "$cube" --frame $frame
    agree "cube_$frame" $AGREE_MAX_MEAN
  done
  compare cube_126 cube_0 max $SAME_MAX_MEAN
  compare cube_48 cube_0 min $DEFORMED_MIN_MEAN
  compare cube_102 cube_0 min $DEFORMED_MIN_MEAN
  compare cube_102 cube_48 min $DEFORMED_MIN_MEAN
else
  echo "skipped: a) $cube is not installed (package assimp-testmodels)"
fi

# b) The skinned morph file.
"$write_morph_file" "$work/skinned_morph.gltf" >"$work/skinned_morph_weights.txt"
for frame in 4 5; do
  shot "skinned_$frame" "$work/skinned_morph.gltf" --frame $frame
  agree "skinned_$frame" $AGREE_SKINNED_MAX_MEAN
done
compare skinned_5 skinned_4 min $DEFORMED_MIN_MEAN

echo "all morph target checks passed"
