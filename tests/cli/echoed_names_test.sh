#!/usr/bin/env bash
# Names and values read from inputs reach the terminal escaped (issue 39):
# a glTF node, a BVH joint, a tolerance-file line and a file name holding
# ESC, BEL and CR (a window title, a colour, a forged line) show as \x1b,
# \x07, \x0d in the text output of inspect, measure, compress and info, and
# no byte below 0x20 but newline and tab is written; JSON output carries the
# names exactly (escaped per the JSON spec), and invalid UTF-8 in a stream's
# names does not stop it.
#   echoed_names_test.sh KEYSTREAM ASSETS_DIR WORK_DIR
set -euo pipefail
ks=$1 assets=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
demo="$assets/demo_walk.glb"
hostile=$'\e]0;pwned\a\e[2Jhand\rforged'     # as a file holds it
shown='\x1b]0;pwned\x07\x1b[2Jhand\x0dforged'  # as the tools must show it

# run CODE CMD...: CMD exits with CODE; its stdout and stderr go to out and err.
run() {
  local code=$1; shift
  local rc=0
  "$@" >"$work/out" 2>"$work/err" || rc=$?
  [ "$rc" -eq "$code" ] || fail "${*@Q} exited $rc, expected $code: $(cat -v "$work/out" "$work/err")"
}
# printable: the last run wrote no control byte but newline and tab.
printable() {
  python3 - "$work/out" "$work/err" <<'PY' || fail "control bytes written: $(cat -v "$work/out" "$work/err")"
import sys
for path in sys.argv[1:3]:
    data = open(path, "rb").read()
    bad = sorted({b for b in data if (b < 0x20 and b not in (9, 10)) or b == 0x7f})
    assert not bad, "%s: bytes %s" % (path, bad)
PY
}
# shows TEXT: the last run's output (stdout and stderr) holds TEXT.
shows() {
  grep -qF -- "$1" "$work/out" "$work/err" || fail "the output does not show '$1': $(cat -v "$work/out" "$work/err")"
}

# --- A glTF whose animation and first joint are named with the hostile bytes.
python3 - "$demo" "$work/hostile.glb" "$hostile" <<'PY'
import json, struct, sys
data = open(sys.argv[1], 'rb').read()
length = struct.unpack('<I', data[12:16])[0]
doc = json.loads(data[20:20 + length])
doc['animations'][0]['name'] = sys.argv[3] + ' walk'
doc['nodes'][doc['skins'][0]['joints'][1]]['name'] = sys.argv[3]
text = json.dumps(doc).encode()
text += b' ' * (-len(text) % 4)
rest = data[20 + length:]
with open(sys.argv[2], 'wb') as out:
    out.write(struct.pack('<4sII', b'glTF', 2, 20 + len(text) + len(rest)) + struct.pack('<I4s', len(text), b'JSON'))
    out.write(text + rest)
PY
run 0 "$ks" inspect "$work/hostile.glb" --bones; printable; shows "$shown"
run 0 "$ks" measure "$work/hostile.glb" --tracks; printable; shows "$shown"
run 0 "$ks" compress "$work/hostile.glb" -o "$work/hostile.ks"; printable; shows "[$shown walk]"
run 0 "$ks" info "$work/hostile.ks" --tracks; printable; shows "$shown"
run 0 "$ks" verify "$work/hostile.glb" "$work/hostile.ks" --bones; printable; shows "$shown"
# JSON carries the names whole, escaped as JSON escapes them.
run 0 "$ks" compress "$work/hostile.glb" -o "$work/hostile_json.ks" --json -; printable
python3 - "$work/out" "$hostile" <<'PY' || fail "compress --json does not carry the names: $(cat -v "$work/out")"
import json, sys
clip = json.load(open(sys.argv[1]))["clips"][0]
assert clip["animation"] == sys.argv[2] + " walk", clip["animation"]
assert sys.argv[2] in [b["bone"] for b in clip["bone_errors"]]
PY
run 0 "$ks" info "$work/hostile.ks" --tracks --json; printable
python3 - "$work/out" "$hostile" <<'PY' || fail "info --json does not carry the names: $(cat -v "$work/out")"
import json, sys
info = json.load(open(sys.argv[1]))
assert info["clip_name"] == sys.argv[2] + " walk", info["clip_name"]
assert sys.argv[2] in [t["bone_name"] for t in info["track_list"]]
PY

# --- A tolerance file naming the hostile bone and one it does not have; the flag too.
printf '%s=0.2\n%s_2=0.3\n' "$hostile" "$hostile" >"$work/hostile.txt"
run 2 "$ks" measure "$demo" --bone-tolerances "$work/hostile.txt"; printable; shows "\"$shown\""
run 2 "$ks" compress "$demo" -o "$work/x.ks" --bone-tolerances "$work/hostile.txt"; printable; shows "\"${shown}_2\""
run 2 "$ks" measure "$demo" --bone-tolerance "$hostile=0.1"; printable; shows "no bone named \"$shown\""
run 2 "$ks" measure "$demo" --bone-tolerance "$hostile"; printable; shows "'$shown' is not NAME=MM"
run 2 "$ks" measure "$demo" --tolerance "$hostile"; printable; shows "'$shown' is not a positive number"
run 2 "$ks" "$hostile"; printable; shows "unknown command '$shown'"
# The bone is the glTF's: the override reaches the fit, the stream and info.
printf '%s=0.2\n' "$hostile" >"$work/known.txt"
run 0 "$ks" compress "$work/hostile.glb" -o "$work/override.ks" --bone-tolerances "$work/known.txt"; printable
run 0 "$ks" info "$work/override.ks"; printable; shows "override       $shown: 0.2 mm"
run 0 "$ks" verify "$work/hostile.glb" "$work/override.ks"; printable; shows "override       $shown: 0.2 mm"

# --- A BVH whose joint is named with ESC and BEL (a BVH line cannot hold a CR),
# and one whose joint name is not UTF-8: the stream and its JSON still read.
bvh() {
  printf 'HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n'
  printf '  JOINT %s\n  {\n    OFFSET 0 10 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n' "$1"
  printf '    End Site\n    {\n      OFFSET 0 10 0\n    }\n  }\n}\nMOTION\nFrames: 3\nFrame Time: 0.033333\n'
  printf '0 90 0 0 0 0 0 0 0\n0 90 0 10 0 0 20 0 0\n0 90 0 20 0 0 40 0 0\n'
}
bvh $'\e]0;pwned\aspine\e[2J' >"$work/hostile.bvh"
bvh_shown='\x1b]0;pwned\x07spine\x1b[2J'
run 0 "$ks" inspect "$work/hostile.bvh" --bones; printable; shows "$bvh_shown"
run 0 "$ks" measure "$work/hostile.bvh" --tracks; printable; shows "$bvh_shown"
run 0 "$ks" compress "$work/hostile.bvh" -o "$work/hostile_bvh.ks"; printable
run 0 "$ks" info "$work/hostile_bvh.ks" --tracks; printable; shows "$bvh_shown"
bvh $'sp\xffine\xc3' >"$work/latin.bvh"
run 0 "$ks" compress "$work/latin.bvh" -o "$work/latin.ks" --json -; printable
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/out" || fail "compress --json: $(cat -v "$work/out")"
run 0 "$ks" info "$work/latin.ks" --tracks; printable; shows 'sp\xffine\xc3'
run 0 "$ks" info "$work/latin.ks" --tracks --json; printable
python3 - "$work/out" <<'PY' || fail "info --json on a name that is not UTF-8: $(cat -v "$work/out")"
import json, sys
names = [t["bone_name"] for t in json.load(open(sys.argv[1]))["track_list"]]
assert "sp\ufffdine\ufffd" in names, names
PY

# --- A file name holding the hostile bytes (a folder downloaded whole).
odd="$work/odd"$'\e]0;pwned\a\r'
mkdir -p "$odd"
cp "$demo" "$odd/walk"$'\e[2J'.glb
odd_shown="$work/odd"'\x1b]0;pwned\x07\x0d/walk\x1b[2J.glb'
run 0 "$ks" inspect "$odd/walk"$'\e[2J'.glb; printable; shows "$odd_shown"
run 0 "$ks" compress "$odd" -o "$work/odd_out"; printable; shows 'walk\x1b[2J.glb'
run 1 "$ks" verify "$odd/walk"$'\e[2J'.glb "$work/hostile.ks"; printable; shows "$odd_shown"

echo "echoed names: glTF, BVH, tolerance-file and file names escaped on every text surface, whole in JSON"
