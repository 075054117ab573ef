#!/usr/bin/env bash
# Scalar tracks (morph weights, user curves) in the studio's screenshot mode
# under Xvfb, on the skinned morph file (tests/io/morph_test_files.h: face's
# weights face/smile, face/blink and face/frown over 6 frames). The studio
# prints what the Bones panel's Curves group and the Curves panel showed,
# and where (framebuffer pixels, X Y W H):
#   curve tracks R rows, selected NAME|none row N, in view|not in view
#   curves track scalar track NAME | curves track BONE KIND
#   scalar values at frame F: player and curves differ by at most D (N tracks)
#   curves TITLE, TITLE, ... over frames LO..HI
#   rect bones-curves X Y W H    the group's rows
#   rect plot-K X Y W H          the Curves panel's plots: 0 the error, then the components
#   a) --select-curve face/blink at a loose --scalar-precision (so the error
#      has something to show), between frames: the group lists the three
#      tracks, the chosen one in view; the Curves panel plots it: the error
#      against its precision, then its weight, whose decoded curve is the
#      player's values bit for bit (D is 0). In the PNG the group's errors are green
#      (within their precision) and none red, the weight plot holds the
#      decoded curve's blue and the keys' yellow, the error plot the red of
#      the precision line and the total error;
#   b) --select-curve 2 (by index: face/frown): another weight is plotted
#      (its plot differs from a's), the group's selected row moves;
#   c) no --select-curve: the curves show a bone's track and the group
#      still lists the tracks, none selected (its rows differ from a's,
#      which highlight one);
#   d) a default precision and a per-track one (--scalar-precision X and
#      NAME=X): File > Copy as command prints both, `keystream verify`
#      accepts the saved stream, and the printed command, run, writes the
#      very same bytes;
#   e) AnimatedMorphCube (when assimp-testmodels is installed): its two
#      weights listed, the second plotted over its 127 frames, the player's
#      values again;
#   f) --select-curve naming no track, --scalar-precision for no track, a
#      bad precision, and --select-curve on a clip without scalar tracks
#      exit 2 naming the option;
#   g) a precision below what the coding can reach (1e-9; face/smile's
#      floor is 1.5e-8): every row red, the group's green gone.
# Each PNG must be the window's size, not blank, with its six panels.
#   scalar_tracks_test.sh STUDIO KEYSTREAM PNG_CHECK WRITE_MORPH_FILE ASSETS_DIR ASSIMP_MODELS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb). WORK_DIR keeps every screenshot and
# the studio's output of each run (NAME.png, NAME.out, NAME.err).

# Colours as the PNG holds them (R,G,B 0..255) and the shares of a region's
# pixels that must have them.
WITHIN=115,230,115      # a row's error within its precision (kTreeMetColor in bone_tree_panel.h)
DECODED=80,190,255      # the decoded curve (kDecodedColor in curve_panel.cpp)
KEYS=255,240,110        # the key markers (kKeyColor)
GROUP_WITHIN_MIN=0.01   # the group's rows: green error text (0.022 measured)
GROUP_RED_MAX=0.001     # ... and no red one (0)
GROUP_OVER_MIN=0.02     # g) every row red (0.068 measured)
DECODED_MIN=0.003       # the weight plot: the decoded curve (0.010 measured)
KEYS_MIN=0.0003         # ... and its keys (0.0009 measured)
ERROR_RED_MIN=0.005     # the error plot: the precision line and the total error (0.016 measured)
# Means are ks_png_check --diff's mean absolute difference per channel (0..255).
OTHER_PLOT_MIN_MEAN=2.0 # b) two weights' plots (9.2 measured)
HIGHLIGHT_MIN_MEAN=3.0  # c) the group with a row selected and with none (9.3 measured)

set -euo pipefail
studio=$1 keystream_bin=$2 png_check=$3 write_morph_file=$4 assets=$5 models=$6 work=$7
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"

"$write_morph_file" "$work/skinned_morph.gltf" >"$work/skinned_morph_weights.txt"
morph="$work/skinned_morph.gltf"
loose=(--scalar-precision 0.05 --frame 2.5)

# shot NAME FILE ARGS...: the screenshot of FILE with ARGS succeeds, is the
# window's size, not blank, with its six panels.
shot() {
  local name=$1 file=$2; shift 2
  run_studio 1600x1000 "$name" "$file" --screenshot "$work/$name.png" "$@"
  expect_exit "$name" 0
  "$png_check" "$work/$name.png" --size 1600x1000 --not-blank --has-panels 6 >"$work/$name.check" 2>&1 ||
    fail "$name: bad screenshot: $(cat "$work/$name.check")"
}
# expect_line NAME LINE: run NAME printed LINE, whole.
expect_line() {
  grep -qxF -- "$2" "$work/$1.out" || fail "$1: expected '$2', got: $(cat "$work/$1.out")"
  echo "ok: $1: $2"
}
# rect NAME PART: the rectangle run NAME printed for PART, as X,Y,W,H.
rect() {
  local line x y w h
  line=$(grep "^rect $2 " "$work/$1.out") || fail "$1: no 'rect $2' line in: $(cat "$work/$1.out")"
  read -r _ _ x y w h <<<"$line"
  if [ "$w" -le 0 ] || [ "$h" -le 0 ]; then fail "$1: $2 is not in view: $line"; fi
  echo "$x,$y,$w,$h"
}

# a) face/blink plotted.
shot a_blink "$morph" --select-curve face/blink "${loose[@]}"
expect_line a_blink "curve tracks 3 rows, selected face/blink row 1, in view"
expect_line a_blink "curves track scalar track face/blink"
expect_line a_blink "curves error: largest component difference, weight over frames 0..5"
expect_line a_blink "scalar values at frame 2.5: player and curves differ by at most 0 (3 tracks)"
group=$(rect a_blink bones-curves)
error_plot=$(rect a_blink plot-0)
weight_plot=$(rect a_blink plot-1)
check_that "a_blink: the group's errors within their precision" "$work/a_blink.png" --region "$group" \
  --count like "$WITHIN" --min-fraction $GROUP_WITHIN_MIN
check_that "a_blink: no error over its precision" "$work/a_blink.png" --region "$group" \
  --count-dominant red --max-fraction $GROUP_RED_MAX
check_that "a_blink: the decoded weight" "$work/a_blink.png" --region "$weight_plot" \
  --count like "$DECODED" --min-fraction $DECODED_MIN
check_that "a_blink: the weight's keys" "$work/a_blink.png" --region "$weight_plot" \
  --count like "$KEYS" --min-fraction $KEYS_MIN
check_that "a_blink: the error against the precision" "$work/a_blink.png" --region "$error_plot" \
  --count-dominant red --min-fraction $ERROR_RED_MIN

# b) by index: face/frown, another curve.
shot b_frown "$morph" --select-curve 2 "${loose[@]}"
expect_line b_frown "curve tracks 3 rows, selected face/frown row 2, in view"
expect_line b_frown "curves track scalar track face/frown"
[ "$(rect b_frown plot-1)" = "$weight_plot" ] || fail "b_frown: the weight plot moved: $(rect b_frown plot-1)"
check_that "b_frown: another weight than face/blink's" "$work/b_frown.png" --region "$weight_plot" \
  --diff "$work/a_blink.png" --min-mean $OTHER_PLOT_MIN_MEAN

# c) no scalar track selected: a bone's curves, the group without a selection.
shot c_bone "$morph" "${loose[@]}"
expect_line c_bone "curve tracks 3 rows, selected none row -1, not in view"
grep -qE '^curves track [^ ]+ (translation|rotation|scale)$' "$work/c_bone.out" ||
  fail "c_bone: not a bone's track: $(grep '^curves' "$work/c_bone.out")"
[ "$(rect c_bone bones-curves)" = "$group" ] || fail "c_bone: the group moved: $(rect c_bone bones-curves)"
check_that "c_bone: the group highlights no row" "$work/c_bone.png" --region "$group" \
  --diff "$work/a_blink.png" --min-mean $HIGHLIGHT_MIN_MEAN

# d) precisions through the printed command.
keystream() { "$keystream_bin" "$@"; }
saved="$work/d/precisions.ks"
mkdir -p "$work/d"
run_studio 1600x1000 d_command "$morph" --scalar-precision 0.05 --scalar-precision face/smile=0.002 \
  --save-stream "$saved" --print-command
expect_exit d_command 0
command=$(grep '^keystream compress ' "$work/d_command.out") || fail "d_command: no command: $(cat "$work/d_command.out")"
grep -qF -- "--scalar-precision 0.05" <<<"$command" || fail "d_command: no default precision in: $command"
grep -qF -- "--scalar-precision face/smile=0.002" <<<"$command" || fail "d_command: no track precision in: $command"
out=$("$keystream_bin" verify "$morph" "$saved" 2>&1) || fail "d_command: keystream verify refused the stream: $out"
mv "$saved" "$work/d/precisions.studio.ks"
eval "$command" >"$work/d_command.compress.out" 2>&1 ||
  fail "d_command: the printed command failed: $command
$(cat "$work/d_command.compress.out")"
cmp "$work/d/precisions.studio.ks" "$saved" || fail "d_command: the printed command wrote other bytes: $command"
echo "ok: d_command: reproduced by: $command"

# e) AnimatedMorphCube.
cube="$models/glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf"
if [ -f "$cube" ]; then
  shot e_cube "$cube" --select-curve AnimatedMorphCube/1 --scalar-precision 0.01 --frame 60.5
  expect_line e_cube "curve tracks 2 rows, selected AnimatedMorphCube/1 row 1, in view"
  expect_line e_cube "curves error: largest component difference, weight over frames 0..126"
  expect_line e_cube "scalar values at frame 60.5: player and curves differ by at most 0 (2 tracks)"
  check_that "e_cube: the decoded weight" "$work/e_cube.png" --region "$(rect e_cube plot-1)" \
    --count like "$DECODED" --min-fraction $DECODED_MIN
else
  echo "skipped: e) $cube is not installed (package assimp-testmodels)"
fi

# f) bad usage.
# expect_refused NAME MESSAGE FILE ARGS...: exit 2, MESSAGE in stderr.
expect_refused() {
  local name=$1 message=$2 file=$3; shift 3
  run_studio 1600x1000 "$name" "$file" --screenshot "$work/$name.png" "$@"
  expect_exit "$name" 2
  grep -qF -- "$message" "$work/$name.err" || fail "$name: expected '$message' in: $(cat "$work/$name.err")"
  echo "ok: $name: $message"
}
expect_refused f_no_track "--select-curve: $morph has no scalar track 'face/wink'" "$morph" --select-curve face/wink
expect_refused f_no_index "has no scalar track '3'" "$morph" --select-curve 3
expect_refused f_no_override "--scalar-precision: $morph has no scalar track 'face/wink'" "$morph" \
  --scalar-precision face/wink=0.01
expect_refused f_bad_value "--scalar-precision: 'face/smile=0' is not X or NAME=X" "$morph" \
  --scalar-precision face/smile=0
expect_refused f_no_scalars "has no scalar track 'face/smile'" "$assets/demo_walk.glb" --select-curve face/smile
# g) over the precision.
shot g_over "$morph" --select-curve 0 --scalar-precision 1e-9
check_that "g_over: the rows over their precision" "$work/g_over.png" --region "$(rect g_over bones-curves)" \
  --count-dominant red --min-fraction $GROUP_OVER_MIN
check_that "g_over: none within" "$work/g_over.png" --region "$(rect g_over bones-curves)" \
  --count like "$WITHIN" --max-fraction 0
echo "all scalar track checks passed"
