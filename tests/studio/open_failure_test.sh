#!/usr/bin/env bash
# A file that fails to open over an open clip, as a person meets it (File >
# Open, driven by --open-choose FILE --open-press; drag and drop opens the
# same way). The studio starts on the demo at frame 40 with left_thigh
# selected and tuned (--tolerance 0.5, an override on left_thigh), and
# prints what is open, its settings and the error the Open window drew:
#   a) the demo itself chosen, not opened: no error, and no pixel of the
#      error's red anywhere in the screenshot;
#   b) Open pressed: the demo, its frame, bone, rig and settings as in a);
#      the Open window shown with the error naming the file, drawn once
#      (red text of one message, not two); exit 1 with the error on stderr;
#   c) an empty .ks: the same, without the screenshot.
#   open_failure_test.sh STUDIO PNG_CHECK ASSETS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb).

set -euo pipefail
studio=$1 png_check=$2 assets=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"
# Relative names, so that the message (and the red text it makes) has the
# same length wherever the build is.
cd "$work"
printf '{"asset": {"version": "2.0"}, "nodes": [' >malformed.gltf
: >empty.ks
tuned=("$assets/demo_walk.glb" --frame 40 --select left_thigh --tolerance 0.5 --bone-tolerance left_thigh=0.2@5)
kept_open="open: demo_walk.glb [walk] animation 0, frame 40, bone left_thigh; Open window shown"
kept_settings="settings: tolerance 0.5 mm at 3 cm, 1 bone overrides"
ERROR_RED=255,115,102  # the Open window's error text, ImVec4(1, 0.45, 0.4)

# has_line NAME LINE: run NAME printed LINE.
has_line() { grep -qxF -- "$2" "$work/$1.out" || fail "$1: expected '$2', got: $(cat "$work/$1.out")"; }

run_studio 1600x1000 a_chosen "${tuned[@]}" --open-choose "$assets/demo_walk.glb" --screenshot a_chosen.png
expect_exit a_chosen 0
has_line a_chosen "$kept_open"
has_line a_chosen "$kept_settings"
! grep -q "^Open window error" a_chosen.out || fail "a: an error before Open: $(cat a_chosen.out)"
"$png_check" a_chosen.png --size 1600x1000 --count like $ERROR_RED --max-fraction 0.0001 >a_red.txt ||
  fail "a: error-red pixels with no error: $(cat a_red.txt)"
echo "ok: a: no error drawn, no error red"

run_studio 1600x1000 b_failed "${tuned[@]}" --open-choose malformed.gltf --open-press --screenshot b_failed.png
expect_exit b_failed 1
has_line b_failed "$kept_open"
has_line b_failed "$kept_settings"
grep -q "^bones 24 rows" b_failed.out || fail "b: not the demo's rig in the Bones panel: $(cat b_failed.out)"
grep -q "^Open window error: malformed.gltf: " b_failed.out || fail "b: the Open window drew no error: $(cat b_failed.out)"
grep -qF "malformed.gltf" b_failed.err || fail "b: stderr does not name the file: $(cat b_failed.err)"
# The message's three lines of red text are about 0.0014 of the picture,
# twice that when drawn twice.
"$png_check" b_failed.png --size 1600x1000 --not-blank --count like $ERROR_RED --min-fraction 0.0007 \
  --max-fraction 0.0021 >b_red.txt ||
  fail "b: the error's red text, once: $(cat b_red.txt)"
echo "ok: b: $(grep "^Open window error" b_failed.out)"
grep "fraction" b_red.txt

run_studio 1600x1000 c_empty_ks "${tuned[@]}" --open-choose empty.ks --open-press
expect_exit c_empty_ks 1
has_line c_empty_ks "$kept_open"
has_line c_empty_ks "$kept_settings"
grep -q "^Open window error: empty.ks: " c_empty_ks.out || fail "c: the Open window drew no error: $(cat c_empty_ks.out)"
echo "ok: c: $(grep "^Open window error" c_empty_ks.out)"
echo "PASS"
