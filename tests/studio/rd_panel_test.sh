#!/usr/bin/env bash
# The Rate-distortion panel in the studio's screenshot mode under Xvfb (the
# demo clip). The studio prints "rd N points of M, current E mm".
#   a) --show-rd: the sweep's 9 points, the current fit at 0.1 mm; the
#      panel (at 420,90, 760x560) draws the curve's line, its points and the
#      current fit's ring;
#   b) --rd-click 5: a click on the table's row of 0.5 mm sets the tolerance,
#      and the Curves panel shows the refit's curves, not a's;
#   c) bad uses of --rd-click exit 2 naming the option.
#   rd_panel_test.sh STUDIO PNG_CHECK ASSETS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb).

set -euo pipefail
studio=$1 png_check=$2 assets=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"
demo="$assets/demo_walk.glb"
panel=420,90,760,560

run_studio 1600x1000 a_sweep "$demo" --screenshot "$work/a_sweep.png" --show-rd
[ "$rc" -eq 0 ] || fail "a_sweep: exit $rc: $(cat "$work/a_sweep.err")"
grep -qxF "rd 9 points of 9, current 0.1 mm" "$work/a_sweep.out" || fail "a_sweep: $(cat "$work/a_sweep.out")"
"$png_check" "$work/a_sweep.png" --size 1600x1000 --not-blank --has-panels 6 >/dev/null || fail "a_sweep: bad screenshot"
# The line (120,170,230) and points (150,200,255), and the current ring (255,205,80).
"$png_check" "$work/a_sweep.png" --region "$panel" --count like 120,170,230/150,200,255 --min-fraction 0.0008 \
  >"$work/a_line.txt" || fail "a_sweep: no curve: $(cat "$work/a_line.txt")"
"$png_check" "$work/a_sweep.png" --region "$panel" --count like 255,205,80 --min-fraction 0.0002 \
  >"$work/a_ring.txt" || fail "a_sweep: no current fit ring: $(cat "$work/a_ring.txt")"
echo "ok: a_sweep: $(grep '^rd ' "$work/a_sweep.out")"

run_studio 1600x1000 b_click "$demo" --screenshot "$work/b_click.png" --show-rd --rd-click 5
[ "$rc" -eq 0 ] || fail "b_click: exit $rc: $(cat "$work/b_click.err")"
grep -qxF "rd 9 points of 9, current 0.5 mm" "$work/b_click.out" || fail "b_click: $(cat "$work/b_click.out")"
"$png_check" "$work/b_click.png" --size 1600x1000 --not-blank >/dev/null || fail "b_click: bad screenshot"
# The Curves panel below redrew the new fit's curves (its plots keep a texture
# while nothing they show changes: a stale one would look like a's).
"$png_check" "$work/b_click.png" --region 380,700,1220,300 --diff "$work/a_sweep.png" --min-mean 2 \
  >"$work/b_curves.txt" || fail "b_click: the curves did not change: $(cat "$work/b_curves.txt")"
echo "ok: b_click: $(grep '^rd ' "$work/b_click.out")"

expect_refused() {
  local name=$1 line=$2; shift 2
  run_studio 1600x1000 "$name" "$demo" "$@"
  [ "$rc" -eq 2 ] || fail "$name: expected exit 2, got $rc"
  grep -qF -- "$line" "$work/$name.err" || fail "$name: expected '$line' in: $(cat "$work/$name.err")"
  echo "ok: $name: $line"
}
expect_refused c_no_panel "--rd-click needs --show-rd and --screenshot" --screenshot "$work/c.png" --rd-click 2
expect_refused c_bad_index "--rd-click: '9' is not a point index, 0..8" --screenshot "$work/c.png" --show-rd \
  --rd-click 9
echo "all rate-distortion panel checks passed"
