#!/usr/bin/env bash
# Additive clips in the studio (issue 40, item 7), under Xvfb with Mesa's
# software OpenGL, side by side at material colours, robot.glb's Robot_Wave
# at frame 20:
#   a) --additive-base robot.glb#Robot_Idle (another animation of the file):
#      both views show the layer composed on its base, which is the clip
#      within its tolerance: each view matches the same view of the clip
#      fitted as it is; the studio names the base as Stats does;
#   b) first-frame and bind-pose: the same;
#   c) --layer-alone: the layer on the bind pose, on both sides, differs
#      from the composed pose where the character is (and the two sides
#      still agree with each other);
#   d) File > Copy as command emits --additive-base FILE#ANIMATION (the file
#      absolute, as the stream records it) and first-frame: the printed
#      command, and keystream compress given the same flags, write the
#      studio's very bytes; keystream verify accepts the stream;
#   e) the skinned morph file made additive to its first frame: its
#      composed frames match the clip's, and frames 4 and 5 (one pose, other
#      weights) still differ by the morph targets;
#   f) bad bases: a missing file exits 2, a base on another skeleton 1,
#      each naming it.
#   additive_test.sh STUDIO KEYSTREAM PNG_CHECK WRITE_MORPH_FILE CLIPS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb). WORK_DIR keeps every screenshot and
# the studio's output of each run (NAME.png, NAME.out, NAME.err).

# Means are ks_png_check --diff's mean absolute difference per channel (0..255).
LABEL_ROWS=26         # rows at the top and bottom of a view that hold its labels
COMPOSED_MAX_MEAN=0.5 # a composed view against the clip's (0.001..0.07 measured: rounding, and two fits
                      # within 0.1 mm moving an edge by a pixel)
LAYER_MIN_MEAN=3.0    # the layer alone against the composed pose (11 measured)
AGREE_MAX_MEAN=1.0    # the original and compressed views of one run (0.22..0.25 measured)
MORPH_MIN_MEAN=1.0    # the skinned morph file's frames 4 and 5 (as morph_test.sh)

set -euo pipefail
studio=$1 keystream_bin=$2 png_check=$3 write_morph_file=$4 clips=$5 work=$6
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"

robot="$work/robot.glb"
cp "$clips/robot.glb" "$robot"
wave=(--animation Robot_Wave --frame 20)

# shot NAME ARGS...: screenshot mode at 1600x1000 succeeds and writes
# $work/NAME.png; sets original and compressed to the bodies of the two
# views (X,Y,W,H without their label rows), from the lines the studio prints.
shot() {
  local name=$1; shift
  run_studio 1600x1000 "$name" "$@" --size 1600x1000 --color material --view side-by-side \
    --screenshot "$work/$name.png"
  expect_exit "$name" 0
  "$png_check" "$work/$name.png" --size 1600x1000 --not-blank --has-panels 6 >"$work/$name.check" 2>&1 ||
    fail "$name: bad screenshot: $(cat "$work/$name.check")"
  view_bodies "$name"
}
# expect_line NAME LINE: run NAME printed LINE, whole.
expect_line() {
  grep -qxF -- "$2" "$work/$1.out" || fail "$1: expected '$2', got: $(cat "$work/$1.out")"
  echo "ok: $1: $2"
}
# compare A B max|min MEAN: both views of run A against the same views of
# run B (the views of both runs are where the last shot put them).
compare() {
  local a=$1 b=$2 bound=$3 mean=$4 side
  for side in original compressed; do
    check_that "$a against $b, $side view: --$bound-mean $mean" "$work/$a.png" --region "${!side}" \
      --diff "$work/$b.png" "--$bound-mean" "$mean"
  done
}
# agree NAME: the original and compressed views of run NAME agree.
agree() {
  check_that "$1: original and compressed views agree" "$work/$1.png" --region "$original" \
    --diff "$work/$1.png" --other-region "$compressed" --max-mean $AGREE_MAX_MEAN
}
# same_views A B: runs A and B drew their views at the same place (else no diff means anything).
same_views() {
  [ "$(grep '^view ' "$work/$1.out")" = "$(grep '^view ' "$work/$2.out")" ] ||
    fail "$1 and $2 drew their views elsewhere: $(grep '^view ' "$work/$1.out" "$work/$2.out")"
}

# a) another animation of the file as the base, composed.
shot plain "$robot" "${wave[@]}"
grep -q '^clip ' "$work/plain.out" && fail "plain: a clip fitted as it is is named additive: $(cat "$work/plain.out")"
agree plain
shot on_idle "$robot" "${wave[@]}" --additive-base "$robot#Robot_Idle"
expect_line on_idle "clip additive to robot.glb#Robot_Idle (errors on the composed pose), viewport composed on the base"
same_views on_idle plain
compare on_idle plain max $COMPOSED_MAX_MEAN
agree on_idle

# b) the clip's first frame, the bind pose.
for base in first-frame bind-pose; do
  shot "on_$base" "$robot" "${wave[@]}" --additive-base $base
  expect_line "on_$base" "clip additive to $base (errors on the composed pose), viewport composed on the base"
  same_views "on_$base" plain
  compare "on_$base" plain max $COMPOSED_MAX_MEAN
done

# c) the layer alone.
shot layer "$robot" "${wave[@]}" --additive-base "$robot#Robot_Idle" --layer-alone
expect_line layer "clip additive to robot.glb#Robot_Idle (errors on the composed pose), viewport layer alone on the bind pose"
same_views layer on_idle
compare layer on_idle min $LAYER_MIN_MEAN
agree layer

# d) the command, and keystream compress with the same flags.
keystream() { "$keystream_bin" "$@"; }
mkdir -p "$work/d"
cd "$work"  # keystream compress reads robot.glb as the studio was given it
for base in "$robot#Robot_Idle" first-frame; do
  name=$(basename "$base" | tr '#' '_')
  saved="$work/d/$name.ks"
  run_studio 1600x1000 "d_$name" "$robot" --animation Robot_Wave --additive-base "$base" \
    --save-stream "$saved" --print-command
  expect_exit "d_$name" 0
  command=$(grep '^keystream compress ' "$work/d_$name.out") ||
    fail "d_$name: no command: $(cat "$work/d_$name.out")"
  # The base as the command line spells it: FILE#ANIMATION quoted for the shell.
  case $base in
    first-frame) expected="--additive-base first-frame" ;;
    *) expected="--additive-base '$base'" ;;
  esac
  grep -qF -- "$expected" <<<"$command" || fail "d_$name: no '$expected' in: $command"
  out=$("$keystream_bin" verify "$robot" "$saved" 2>&1) || fail "d_$name: keystream verify refused the stream: $out"
  mv "$saved" "$work/d/$name.studio.ks"
  eval "$command" >"$work/d_$name.compress.out" 2>&1 ||
    fail "d_$name: the printed command failed: $command
$(cat "$work/d_$name.compress.out")"
  cmp "$work/d/$name.studio.ks" "$saved" || fail "d_$name: the printed command wrote other bytes: $command"
  echo "ok: d_$name: reproduced by: $command"
  "$keystream_bin" compress robot.glb --animation Robot_Wave --additive-base "$base" -o "$work/d/$name.cli.ks" \
    >"$work/d_$name.cli.out" 2>&1 || fail "d_$name: keystream compress failed: $(cat "$work/d_$name.cli.out")"
  cmp "$work/d/$name.studio.ks" "$work/d/$name.cli.ks" ||
    fail "d_$name: keystream compress --additive-base $base wrote other bytes than the studio"
  echo "ok: d_$name: keystream compress robot.glb --animation Robot_Wave --additive-base $base writes the same bytes"
done

# e) morph targets on an additive clip.
"$write_morph_file" "$work/skinned_morph.gltf" >"$work/skinned_morph_weights.txt"
for frame in 4 5; do
  shot "morph_$frame" "$work/skinned_morph.gltf" --frame $frame
  shot "morph_additive_$frame" "$work/skinned_morph.gltf" --frame $frame --additive-base first-frame
  same_views "morph_additive_$frame" "morph_$frame"
  compare "morph_additive_$frame" "morph_$frame" max $COMPOSED_MAX_MEAN
done
compare morph_additive_5 morph_additive_4 min $MORPH_MIN_MEAN

# f) bad bases.
# expect_refused NAME CODE MESSAGE ARGS...: exit CODE, MESSAGE in stderr.
expect_refused() {
  local name=$1 code=$2 message=$3; shift 3
  run_studio 1600x1000 "$name" "$robot" --screenshot "$work/$name.png" "$@"
  expect_exit "$name" "$code"
  grep -qF -- "$message" "$work/$name.err" || fail "$name: expected '$message' in: $(cat "$work/$name.err")"
  echo "ok: $name: $message"
}
expect_refused f_missing 2 "--additive-base: the additive base \"no_such.glb\" is neither first-frame, bind-pose nor an existing file" \
  --additive-base no_such.glb
expect_refused f_skeleton 1 "bones, the clip 44: an additive base must be on the clip's skeleton" \
  --additive-base "$clips/cmu_cgspeed_01_01.bvh"
echo "all additive checks passed"
