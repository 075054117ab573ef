#!/usr/bin/env bash
# A refit's progress in the studio's screenshot mode under Xvfb: on long
# mocap (01_03, 4,511 frames, a fit of a few tenths of a second),
# --show-refitting halves the tolerance once the first fit is done and
# takes the screenshot while the refit runs. The studio prints
#   refitting: pass P, D / N tracks
# and the Settings panel shows the progress bar (its dark amber fill) and
# the amber "fitting for ..." line under it.
#   refit_progress_test.sh STUDIO PNG_CHECK ASSIMP_MODELS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb).

set -euo pipefail
studio=$1 png_check=$2 models=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"
clip="$models/BVH/01_03.bvh"
[ -f "$clip" ] || fail "$clip not found (install the Debian package assimp-testmodels)"

run_studio 1600x1000 refitting "$clip" --screenshot "$work/refitting.png" --show-refitting
[ "$rc" -eq 0 ] || fail "refitting: exit $rc: $(cat "$work/refitting.err")"
grep -qE '^refitting: pass [0-9]+, [1-9][0-9]* / 93 tracks$' "$work/refitting.out" ||
  fail "refitting: expected 'refitting: pass P, D / 93 tracks', got: $(cat "$work/refitting.out")"
"$png_check" "$work/refitting.png" --size 1600x1000 --not-blank >/dev/null || fail "refitting: bad screenshot"
# The Settings panel's top (x 0..380, y 130..230 at 1600x1000): the bar's fill
# (0.55, 0.38, 0.05) and the amber text (1, 0.8, 0.3).
"$png_check" "$work/refitting.png" --region 0,130,380,100 --count like 140,97,13 --min-fraction 0.0005 \
  >"$work/fill.txt" || fail "refitting: no progress bar fill: $(cat "$work/fill.txt")"
"$png_check" "$work/refitting.png" --region 0,130,380,100 --count like 255,204,77 --tolerance 40 \
  --min-fraction 0.002 >"$work/text.txt" || fail "refitting: no 'fitting for' line: $(cat "$work/text.txt")"
echo "ok: refitting: $(cat "$work/refitting.out")"

# Without --screenshot the option is refused.
run_studio 1600x1000 no_screenshot "$clip" --show-refitting
[ "$rc" -eq 2 ] || fail "no_screenshot: expected exit 2, got $rc"
grep -qF -- "--show-refitting needs --screenshot" "$work/no_screenshot.err" ||
  fail "no_screenshot: $(cat "$work/no_screenshot.err")"
echo "ok: --show-refitting needs --screenshot"
echo "all refit progress checks passed"
