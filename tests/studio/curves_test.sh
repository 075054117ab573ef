#!/usr/bin/env bash
# The Curves panel in the studio's screenshot mode under Xvfb. The studio
# prints the panel's plots, top to bottom, and the frames they show:
#   curves TITLE, TITLE, ... over frames LO..HI
#   a) the demo clip: the error plot first (angle to the source in degrees
#      for the default rotation track), then the quaternion components, over
#      the whole clip and no further;
#   b) --curve-view euler: the error, then X, Y and Z Euler angles in degrees;
#   c) a bad --curve-view exits 2 naming the option.
# Each PNG must be the window's size and not blank.
#   curves_test.sh STUDIO PNG_CHECK ASSETS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb).

set -euo pipefail
studio=$1 png_check=$2 assets=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"
demo="$assets/demo_walk.glb"

# expect NAME CODE LINE ARGS...: the studio's screenshot of the demo with
# ARGS exits CODE and (when CODE is 0) prints LINE.
expect() {
  local name=$1 code=$2 line=$3; shift 3
  run_studio 1600x1000 "$name" "$demo" --screenshot "$work/$name.png" "$@"
  expect_exit "$name" "$code"
  if [ "$code" -eq 0 ]; then
    grep -qxF -- "$line" "$work/$name.out" || fail "$name: expected '$line', got: $(cat "$work/$name.out")"
    "$png_check" "$work/$name.png" --size 1600x1000 --not-blank >/dev/null || fail "$name: bad screenshot"
  else
    grep -qF -- "$line" "$work/$name.err" || fail "$name: expected '$line' in: $(cat "$work/$name.err")"
  fi
  echo "ok: $name: $line"
}

# The demo's walk has 67 frames: 0..66.
expect a_quaternion 0 "curves error: angle to the source (deg), qx, qy, qz, qw over frames 0..66"
expect b_euler 0 "curves error: angle to the source (deg), x (deg), y (deg), z (deg) over frames 0..66" \
  --curve-view euler
expect c_bad_view 2 "--curve-view: 'degrees' is not quaternion or euler" --curve-view degrees
echo "all curves checks passed"
