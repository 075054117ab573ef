#!/usr/bin/env bash
# The Set panel (issue 42), as a person sees it under Xvfb and as a
# pipeline cooks the same set:
#   a) robot.glb opens as a set of 14 clips, every one fitted and within its
#      bound: the report line, the Set window's title bar, the status
#      column's green "done" in the PNG;
#   b) with a tolerance and a per-bone override set in the studio, Save all
#      writes 14 .ks files byte-identical to `keystream compress robot.glb
#      --all-animations --bone-tolerances FILE` reading the tolerance file
#      the studio saved, under the same names; the printed set command, run
#      as printed, writes the same bytes again;
#   c) Save all into a folder that has the files exits 1 naming one, and
#      leaves them as they were;
#   d) --simulate-play with --refit-tolerance: the set refits behind
#      the playing view, and reports its frames and the refitted set;
#   e) a folder opens as a set of its clips' animations, on the Set tab; a
#      clip of one animation opened from elsewhere replaces the set; a
#      folder without clips exits 1 naming it; the set's actions without a set exit 1, and
#      --refit-tolerance without --simulate-play exits 2.
#   set_view_test.sh STUDIO KEYSTREAM PNG_CHECK ASSETS_DIR CLIPS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb).

set -euo pipefail
studio=$1 keystream_bin=$2 png_check=$3 assets=$4 clips=$5 work=$6
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"
robot="$clips/robot.glb"
demo="$assets/demo_walk.glb"
[ -f "$robot" ] || fail "$robot is missing (the shared clips)"
GREEN_TEXT_MIN=0.05  # a) of the status cells' pixels, green-dominant (the word "done")

# The printed command names the tool "keystream": run it as printed, with
# that name bound to the built binary.
keystream() { "$keystream_bin" "$@"; }

# a) the set as shown.
run_studio 1600x1000 shot "$robot" --show-set --screenshot "$work/shot.png"
expect_exit shot 0
line=$(grep '^set ' "$work/shot.out" || fail "shot: no 'set' line in: $(cat "$work/shot.out")")
[[ $line =~ ^set\ 14\ rows,\ 14\ done,\ 0\ failed ]] || fail "shot: expected 14 clips done, got: $line"
echo "ok: a) $line"
status=$(awk '$1 == "rect" && $2 == "set-status" {print $3 "," $4 "," $5 "," $6}' "$work/shot.out")
[ -n "$status" ] || fail "shot: no set-status rect: $(cat "$work/shot.out")"
check_that "a) every status cell reads done, in green" "$work/shot.png" --region "$status" \
  --count-dominant green --min-fraction "$GREEN_TEXT_MIN"
table=$(awk '$1 == "rect" && $2 == "set-table" {print $3 "," $4 "," $5 "," $6}' "$work/shot.out")
[ -n "$table" ] || fail "shot: no set-table rect: $(cat "$work/shot.out")"
check_that "a) the table is drawn" "$work/shot.png" --region "$table" --not-blank --min-colors 16

# b) Save all against the command line, with settings a slider and the Bones panel would leave.
run_studio 1600x1000 save "$robot" --tolerance 0.37 --bone-tolerance "LowerLeg.L=0.05@2" \
  --save-tolerances "$work/robot.tolerances.txt" --save-all "$work/studio" --print-set-command
expect_exit save 0
grep -q '^save all: 14 files' "$work/save.out" || fail "save: no 'save all: 14 files': $(cat "$work/save.out")"
grep -q '^\*=0\.37' "$work/robot.tolerances.txt" || fail "the tolerance file lacks *=0.37: $(cat "$work/robot.tolerances.txt")"
grep -q '^LowerLeg\.L=0\.05@2$' "$work/robot.tolerances.txt" || fail "the tolerance file lacks the override"
"$keystream_bin" compress "$robot" --all-animations --bone-tolerances "$work/robot.tolerances.txt" \
  -o "$work/cli" >"$work/cli.out" 2>&1 || fail "keystream compress failed: $(cat "$work/cli.out")"
diff <(cd "$work/studio" && ls) <(cd "$work/cli" && ls) || fail "b) Save all and compress named the files apart"
[ "$(ls "$work/cli" | wc -l)" -eq 14 ] || fail "b) compress wrote $(ls "$work/cli" | wc -l) files, not 14"
for f in "$work"/cli/*.ks; do
  cmp -s "$f" "$work/studio/$(basename "$f")" || fail "b) $(basename "$f") differs between Save all and compress"
done
echo "ok: b) 14 files byte-identical to keystream compress --all-animations --bone-tolerances"
command=$(grep '^keystream compress ' "$work/save.out") || fail "save: no set command: $(cat "$work/save.out")"
[ ! -s "$work/save.err" ] || fail "save: the studio warned: $(cat "$work/save.err")"
cp -r "$work/studio" "$work/saved"
eval "$command" >"$work/printed.out" 2>&1 || fail "b) the printed command failed: $command: $(cat "$work/printed.out")"
for f in "$work"/saved/*.ks; do
  cmp -s "$f" "$work/studio/$(basename "$f")" || fail "b) the printed command wrote $(basename "$f") otherwise"
done
echo "ok: b) the printed command writes the same bytes: $command"

# c) Save all never replaces without asking.
run_studio 1600x1000 again "$robot" --tolerance 0.37 --save-all "$work/studio"
expect_exit again 1
grep -q "exist" "$work/again.err" || fail "c) no word of the existing files: $(cat "$work/again.err")"
for f in "$work"/saved/*.ks; do
  cmp -s "$f" "$work/studio/$(basename "$f")" || fail "c) $(basename "$f") was replaced"
done
echo "ok: c) $(head -c 300 "$work/again.err")"

# d) the set refits behind the playing view.
run_studio 1600x1000 play "$robot" --show-set --simulate-play 1 --refit-tolerance 0.3
expect_exit play 0
refit=$(grep '^refit at 0.3 mm: the clip and a set of 14 clips' "$work/play.out") || fail "d) no set refit line: $(cat "$work/play.out")"
grep -q '^set 14 rows, 14 done, 0 failed' "$work/play.out" || fail "d) the set did not end refitted: $(cat "$work/play.out")"
echo "ok: d) $refit"

# e) a folder; an empty one; the set's actions with no set; bad usage.
mkdir -p "$work/folder/sub" "$work/empty"
cp "$demo" "$work/folder/walk.glb"
cp "$robot" "$work/folder/sub/robot.glb"
run_studio 1600x1000 folder "$work/folder" --screenshot "$work/folder.png"
expect_exit folder 0
line=$(grep '^set ' "$work/folder.out" || fail "folder: no 'set' line: $(cat "$work/folder.out")")
[[ $line =~ ^set\ ([0-9]+)\ rows,\ ([0-9]+)\ done,\ 0\ failed ]] || fail "folder: $line"
[ "${BASH_REMATCH[1]}" -gt 14 ] && [ "${BASH_REMATCH[1]}" -eq "${BASH_REMATCH[2]}" ] \
  || fail "folder: expected robot's 14 and the walk's animations, all done: $line"
echo "ok: e) a folder: $line"
# Opening a file of one animation from outside the set replaces the set, as it replaces the clip.
run_studio 1600x1000 replaced "$robot" --show-set --open-choose "$clips/rigged_simple.gltf" --open-press \
  --screenshot "$work/replaced.png"
expect_exit replaced 0
grep -q '^open: rigged_simple.gltf' "$work/replaced.out" || fail "e) rigged_simple did not open: $(cat "$work/replaced.out")"
! grep -q '^set ' "$work/replaced.out" || fail "e) the set stayed open: $(grep '^set ' "$work/replaced.out")"
echo "ok: e) a single clip opened replaces the set"
run_studio 1600x1000 empty "$work/empty" --screenshot "$work/empty.png"
expect_exit empty 1
grep -q "empty.*holds no" "$work/empty.err" || fail "e) an empty folder: $(cat "$work/empty.err")"
run_studio 1600x1000 no_set "$clips/rigged_simple.gltf" --save-all "$work/none"
expect_exit no_set 1
grep -q "need a set open" "$work/no_set.err" || fail "e) the set's actions without a set: $(cat "$work/no_set.err")"
[ ! -e "$work/none" ] || fail "e) Save all without a set wrote $work/none"
echo "ok: e) $(cat "$work/no_set.err")"
run_studio 1600x1000 bad_usage "$robot" --refit-tolerance 0.3 --screenshot "$work/x.png"
expect_exit bad_usage 2
grep -q -- "--refit-tolerance needs --simulate-play" "$work/bad_usage.err" \
  || fail "e) bad usage: $(cat "$work/bad_usage.err")"
echo "all set view checks passed"
