#!/usr/bin/env bash
# The Bones panel on deep rigs, in the studio's screenshot mode under Xvfb.
# The studio prints what the panel showed of the selection:
#   bones R rows, indent S px, selected NAME row N, in view|not in view, name fits|cut
# On a 30-level chain of long names (made here) and the 100-bone CMU take:
#   a) no --select: the first fit selects the moving bone with the largest
#      error (the end of the chain), its branch open and its row scrolled
#      into view, its whole name in view (the column scrolls sideways past
#      the indentation), and the indentation shrunk below ImGui's 21 px so
#      the levels fit;
#   b) --select a bone near the top at 1280x800: in view, whole;
#   c) --bone-filter: the matches and their ancestors only (segment_1:
#      bones 1 and 10..19 match, 0..18 above them: 20 rows); a filter
#      matching nothing leaves no rows and no selected row;
#   d) the CMU take filtered to its toes: the 14 toe bones and the 8
#      ancestors that place them (22 rows);
#   e) a bad --bone-filter (no value) exits 2.
# Each PNG must be the window's size and not blank.
#   bone_tree_test.sh STUDIO PNG_CHECK CLIPS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb) and python3.

set -euo pipefail
studio=$1 png_check=$2 clips=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"

# A chain of 30 bones, each named Deep_Chain_Segment_NN, bending over 60 frames.
chain="$work/deep_chain.bvh"
python3 - "$chain" <<'PY'
import math, sys
depth, frames = 30, 60
lines = ["HIERARCHY", "ROOT Root_Hips", "{", "  OFFSET 0 90 0",
         "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation"]
indent = "  "
for i in range(1, depth):
    lines += [f"{indent}JOINT Deep_Chain_Segment_{i:02d}", f"{indent}{{"]
    indent += "  "
    lines += [f"{indent}OFFSET 0 3 0", f"{indent}CHANNELS 3 Zrotation Xrotation Yrotation"]
lines += [f"{indent}End Site", f"{indent}{{", f"{indent}  OFFSET 0 3 0", f"{indent}}}"]
for _ in range(depth):
    indent = indent[:-2]
    lines.append(f"{indent}}}")
lines += ["MOTION", f"Frames: {frames}", "Frame Time: 0.0333333"]
for f in range(frames):
    values = [0, 90, 0, 0, 0, 0]
    for i in range(1, depth):
        values += [round(10 * math.sin(f * 0.2 + i * 0.3), 4), round(5 * math.cos(f * 0.15 + i), 4), 0]
    lines.append(" ".join(str(v) for v in values))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY

# run NAME CODE FILE ARGS...: the studio's screenshot of FILE with ARGS exits CODE.
run() {
  local name=$1 code=$2 file=$3; shift 3
  run_studio 1600x1000 "$name" "$file" --screenshot "$work/$name.png" "$@"
  expect_exit "$name" "$code"
}
# bones NAME: the panel's line of run NAME.
bones() { grep '^bones ' "$work/$1.out" || fail "$1: no 'bones' line in: $(cat "$work/$1.out")"; }
# expect_bones NAME REGEX: the panel's line matches REGEX, and the PNG is a real render.
expect_bones() {
  local line
  line=$(bones "$1")
  [[ $line =~ $2 ]] || fail "$1: expected /$2/, got: $line"
  "$png_check" "$work/$1.png" --size "${3:-1600x1000}" --not-blank >/dev/null || fail "$1: bad screenshot"
  echo "ok: $1: $line"
}

# a) the default selection, deep in the chain, scrolled to and whole.
run a_default 0 "$chain"
expect_bones a_default '^bones 30 rows, indent ([0-9.]+) px, selected Deep_Chain_Segment_[0-9]+ row ([0-9]+), in view, name fits$'
line=$(bones a_default)
indent=$(sed -E 's/.*indent ([0-9.]+) px.*/\1/' <<<"$line")
row=$(sed -E 's/.*row ([0-9]+),.*/\1/' <<<"$line")
python3 -c "import sys; sys.exit(0 if 4.0 <= $indent < 21.0 else 1)" || fail "a_default: indent $indent px, expected 4..21"
[ "$row" -ge 20 ] || fail "a_default: selected row $row, expected the far end of the chain (row >= 20)"

# b) a bone near the top, in a smaller window.
run b_top 0 "$chain" --select Deep_Chain_Segment_03 --size 1280x800
expect_bones b_top '^bones 30 rows, indent [0-9.]+ px, selected Deep_Chain_Segment_03 row 3, in view, name fits$' 1280x800

# c) the filter: matches and their ancestors; nothing matching.
run c_filter 0 "$chain" --bone-filter segment_1 --select Deep_Chain_Segment_15
expect_bones c_filter '^bones 20 rows, indent [0-9.]+ px, selected Deep_Chain_Segment_15 row 15, in view, name fits$'
run c_nothing 0 "$chain" --bone-filter no_such_bone
expect_bones c_nothing '^bones 0 rows, indent [0-9.]+ px, selected .* row -1, not in view, name cut$'

# d) the CMU take's toes.
cmu="$clips/cmu_cc4_001_14.bvh"
[ -f "$cmu" ] || fail "missing shared clip $cmu"
run d_toes 0 "$cmu" --bone-filter TOE --select CC_Base_R_BigToe1
expect_bones d_toes '^bones 22 rows, indent [0-9.]+ px, selected CC_Base_R_BigToe1 row [0-9]+, in view, name fits$'

# e) --bone-filter needs a value.
run e_no_value 2 "$chain" --bone-filter
grep -q -- "--bone-filter needs a text" "$work/e_no_value.err" || fail "e_no_value: $(cat "$work/e_no_value.err")"
echo "ok: e_no_value"
echo "all bone tree checks passed"
