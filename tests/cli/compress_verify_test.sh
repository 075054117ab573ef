#!/usr/bin/env bash
# keystream compress then verify, end to end through the command line:
# every shared clip (when ../shared/clips is present) and the demo clip hold
# the object-space tolerance, plain and with zstd, and verify agrees; batch
# mode writes a JSON report with every bone's maximum; per-bone overrides
# (flags and a settings file) reach the fit, the stream and verify; local
# mode checks its thresholds; a stream whose stored tolerance is not met
# makes compress and verify exit 1 naming the bones and frames; bad values
# exit 2 naming the option; bad inputs fail with a message naming the file
# and never destroy an existing output; names with terminal escape sequences
# print without a control byte.
#   compress_verify_test.sh KEYSTREAM ASSETS_DIR CLIPS_DIR WORK_DIR
set -euo pipefail
ks=$1 assets=$2 clips=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect CODE TEXT CMD...: CMD exits with CODE and its output mentions TEXT.
expect() {
  local code=$1 text=$2; shift 2
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  [ "$rc" -eq "$code" ] || fail "'$*' exited $rc, expected $code: $out"
  grep -qF -- "$text" <<<"$out" || fail "'$*' did not mention '$text': $out"
}
# check_json FILE PYTHON ARGS...: runs PYTHON with the JSON document in d.
check_json() {
  local file=$1 code=$2; shift 2
  python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
args = sys.argv[2:]
$code" "$file" "$@" || fail "JSON check failed on $file: $code"
}
demo="$assets/demo_walk.glb"

sources=("$demo")
if [ -d "$clips" ]; then
  for f in "$clips"/*.bvh "$clips"/*.glb "$clips"/*.gltf; do [ -e "$f" ] && sources+=("$f"); done
fi

# --- Batch: every source at once, in parallel, plain and zstd, at the default
# tolerance (0.1 mm at 3 cm); the JSON has every bone's maximum; each verifies.
for variant in plain zstd; do
  flags=(); [ $variant = zstd ] && flags=(--zstd)
  out="$work/$variant"
  "$ks" compress "${sources[@]}" -o "$out" "${flags[@]}" --json "$out/report.json" >"$work/$variant.table" 2>"$work/$variant.progress" \
    || fail "compress ($variant) failed: $(cat "$work/$variant.table" "$work/$variant.progress")"
  python3 - "$out/report.json" "${#sources[@]}" "$variant" <<'PY' || fail "bad JSON report ($variant)"
import json, sys
report = json.load(open(sys.argv[1]))
clips = report["clips"]
settings = report["settings"]
assert len(clips) == int(sys.argv[2]), len(clips)
assert settings["zstd"] == (sys.argv[3] == "zstd")
assert settings["error_mode"] == "object-space", settings
assert settings["tolerance_mm"] == 0.1 and settings["shell_distance_cm"] == 3, settings
for c in clips:
    assert c["ok"] and c["written"] and c["missed_tracks"] == 0 and c["bones_over"] == 0, c["source"]
    assert c["written_bytes"] == (c["packed_zstd_bytes"] if sys.argv[3] == "zstd" else c["packed_bytes"]), c
    bones = c["bone_errors"]
    assert len(bones) == c["bones"], (c["source"], len(bones), c["bones"])
    assert len({b["bone"] for b in bones}) == len(bones), "bone names repeat"
    for b in bones:
        assert b["tolerance_mm"] == 0.1 and b["shell_distance_cm"] == 3, b
        assert 0 <= b["max_mm"] <= b["tolerance_mm"] and not b["over"], (c["source"], b)
        assert 0 <= b["worst_frame"] < c["frames"], (c["source"], b)
    # The clip's largest object-space error at 3 cm is its worst bone's.
    at_3cm = [e for e in c["object_space_error"] if abs(e["distance_m"] - 0.03) < 1e-6][0]
    assert abs(max(b["max_mm"] for b in bones) - at_3cm["max_m"] * 1e3) <= 1e-6 * max(1, at_3cm["max_m"] * 1e3), c
PY
  grep -qF "| **total** (${#sources[@]} clips)" "$work/$variant.table" || fail "no summary table ($variant)"
  grep -qF "[${#sources[@]}/${#sources[@]}]" "$work/$variant.progress" || fail "no progress lines ($variant)"
  for src in "${sources[@]}"; do
    name=$(basename "${src%.*}")
    expect 0 "every bone within its tolerance at every frame" "$ks" verify "$src" "$out/$name.ks"
  done
done
# verify's JSON agrees with compress's report, bone by bone.
"$ks" verify "$demo" "$work/plain/demo_walk.ks" --json >"$work/verify.json" || fail "verify --json"
python3 - "$work/verify.json" "$work/plain/report.json" <<'PY' || fail "verify and compress disagree"
import json, sys
v = json.load(open(sys.argv[1]))
c = [c for c in json.load(open(sys.argv[2]))["clips"] if c["source"].endswith("demo_walk.glb")][0]
assert v["ok"] and v["error_mode"] == "object-space" and v["bones_over"] == 0, v
assert v["tolerance"] == {"tolerance_mm": 0.1, "shell_distance_cm": 3, "bone_tolerances": []}, v["tolerance"]
# Same decoded data, same measurement (the floors are the fit's, which only compress knows).
no_floor = lambda bones: [{k: x for k, x in b.items() if k != "floor_mm"} for b in bones]
assert no_floor(v["bones"]) == no_floor(c["bone_errors"]), (v["bones"], c["bone_errors"])
ratios = {b["bone"]: b["ratio"] for b in v["bones"]}
assert v["worst_bones"] == sorted(ratios, key=lambda n: -ratios[n])[:5], v["worst_bones"]
PY

# --- Per-bone overrides: a settings file (comments, blank lines, spaces) and
# a flag; children inherit; the stream stores them; info and verify show them.
cat >"$work/bones.txt" <<'EOF'
# hands tighter, at 2 cm
left_hand = 0.05 @ 2

head=0.3   # the head looser, at the inherited 3 cm
EOF
"$ks" compress "$demo" -o "$work/over.ks" --bone-tolerances "$work/bones.txt" --bone-tolerance right_hand=0.04@1.5 \
  --json "$work/over.json" >/dev/null 2>&1 || fail "compress with bone tolerances"
check_json "$work/over.json" '
c = d["clips"][0]
assert c["ok"] and c["bones_over"] == 0, c
bones = {b["bone"]: b for b in c["bone_errors"]}
want = {"left_hand": (0.05, 2), "left_fingers": (0.05, 2), "right_hand": (0.04, 1.5), "right_fingers": (0.04, 1.5),
        "head": (0.3, 3), "neck": (0.1, 3), "hips": (0.1, 3)}
for name, (mm, cm) in want.items():
    assert (bones[name]["tolerance_mm"], bones[name]["shell_distance_cm"]) == (mm, cm), bones[name]
    assert bones[name]["max_mm"] <= mm, bones[name]
assert [o["bone"] for o in d["settings"]["bone_tolerances"]] == ["left_hand", "head", "right_hand"], d["settings"]'
expect 0 "override       left_hand: 0.05 mm at 2 cm, and the bones below it" "$ks" info "$work/over.ks"
expect 0 "override       head: 0.3 mm at the inherited distance" "$ks" info "$work/over.ks"
expect 0 "tolerance        0.1 mm at 3 cm from each bone, 3 bone overrides" "$ks" info "$work/over.ks"
expect 0 "override       right_hand: 0.04 mm at 1.5 cm" "$ks" verify "$demo" "$work/over.ks"
expect 0 "every bone within its tolerance" "$ks" verify "$demo" "$work/over.ks"
# measure takes the same options.
expect 0 "3 bone overrides" "$ks" measure "$demo" --bone-tolerances "$work/bones.txt" --bone-tolerance right_hand=0.04@1.5
# verify against a bound given on its command line instead of the stored one.
expect 1 "over their tolerance" "$ks" verify "$demo" "$work/over.ks" --tolerance 0.001
expect 0 "given here, the rest stored in the stream" "$ks" verify "$demo" "$work/over.ks" --tolerance 10 \
  --bone-tolerance root=10
expect 1 "OVER left_fingers" "$ks" verify "$demo" "$work/over.ks" --bone-tolerance left_hand=0.0001

# --- A stream whose stored tolerance is not met, made two honest ways.
# 1. A tolerance of 1 nm, below the float32 resolution of model-space
#    positions (~0.1 um at 1 m): no fit reaches it. compress lists the bones
#    over with frame and floor, still writes the stream, and exits 1; verify
#    finds the same bones over at the same frames.
rc=0
"$ks" compress "$demo" -o "$work/tight.ks" --tolerance 0.000001 --json "$work/tight.json" >"$work/tight.out" 2>&1 || rc=$?
[ $rc -eq 1 ] || fail "compress at 1 nm exited $rc: $(cat "$work/tight.out")"
for text in "bones over their tolerance" "OVER " "mm > 1e-06 mm at 3 cm" ", frame " "floor of its chain" "MISSED"; do
  grep -qF -- "$text" "$work/tight.out" || fail "compress at 1 nm did not mention '$text': $(cat "$work/tight.out")"
done
[ -f "$work/tight.ks" ] || fail "the stream that missed its tolerance was not written"
expect 0 "tolerance        1e-06 mm at 3 cm" "$ks" info "$work/tight.ks"
rc=0
"$ks" verify "$demo" "$work/tight.ks" --json >"$work/tight_verify.json" 2>/dev/null || rc=$?
[ $rc -eq 1 ] || fail "verify of the 1 nm stream exited $rc"
python3 - "$work/tight_verify.json" "$work/tight.json" <<'PY' || fail "verify and compress disagree on the missed stream"
import json, sys
v = json.load(open(sys.argv[1]))
c = json.load(open(sys.argv[2]))["clips"][0]
assert not v["ok"] and not c["ok"] and c["written"], (v["ok"], c["ok"])
assert v["bones_over"] == c["bones_over"] > 0, (v["bones_over"], c["bones_over"])
over = [b for b in c["bone_errors"] if b["over"]]
assert all("floor_mm" in b for b in over), over
strip = lambda bones: [{k: b[k] for k in ("bone", "max_mm", "tolerance_mm", "worst_frame", "over")} for b in bones]
assert strip(v["bones"]) == strip(c["bone_errors"])
PY
worst=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["worst_bones"][0])' "$work/tight_verify.json")
expect 1 "OVER $worst " "$ks" verify "$demo" "$work/tight.ks"
expect 1 "bones over their tolerance; worst" "$ks" verify "$demo" "$work/tight.ks"
# 2. The source the stream is checked against differs from the one it was
#    compressed from at one frame: a 3-bone BVH chain (centimetres) whose
#    Head turns 2 degrees more at frame 12 only (~1 mm at 3 cm).
python3 - "$work" <<'PY'
import math, sys
def write(path, bump_deg):
    lines = ["HIERARCHY", "ROOT Hips", "{", "  OFFSET 0 90 0",
             "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation",
             "  JOINT Spine", "  {", "    OFFSET 0 12 0", "    CHANNELS 3 Zrotation Xrotation Yrotation",
             "    JOINT Head", "    {", "      OFFSET 0 40 0", "      CHANNELS 3 Zrotation Xrotation Yrotation",
             "      End Site", "      {", "        OFFSET 0 15 0", "      }", "    }", "  }", "}",
             "MOTION", "Frames: 30", "Frame Time: 0.0333333"]
    for f in range(30):
        t = f / 30.0
        head_z = 10 * math.sin(2 * math.pi * t) + (bump_deg if f == 12 else 0.0)
        values = [20 * t, 90 + 2 * math.sin(4 * math.pi * t), 0, 5 * math.sin(2 * math.pi * t), 0, 30 * t,
                  8 * math.cos(2 * math.pi * t), 3 * math.sin(2 * math.pi * t), 0,
                  head_z, 4 * math.sin(4 * math.pi * t), 0]
        lines.append(" ".join("%.6f" % v for v in values))
    open(path, "w").write("\n".join(lines) + "\n")
write(sys.argv[1] + "/chain.bvh", 0.0)
write(sys.argv[1] + "/chain_bumped.bvh", 2.0)
PY
"$ks" compress "$work/chain.bvh" -o "$work/chain.ks" --bvh-unit-scale 0.01 >/dev/null 2>&1 || fail "compress chain.bvh"
expect 0 "every bone within its tolerance" "$ks" verify "$work/chain.bvh" "$work/chain.ks" --bvh-unit-scale 0.01
expect 1 "1 of 3 bones over their tolerance; worst Head" "$ks" verify "$work/chain_bumped.bvh" "$work/chain.ks" --bvh-unit-scale 0.01
rc=0
"$ks" verify "$work/chain_bumped.bvh" "$work/chain.ks" --bvh-unit-scale 0.01 --json >"$work/bumped.json" || rc=$?
[ $rc -eq 1 ] || fail "verify --json against the bumped source exited $rc"
check_json "$work/bumped.json" '
bones = {b["bone"]: b for b in d["bones"]}
assert not d["ok"] and d["bones_over"] == 1, d["bones_over"]
assert bones["Head"]["over"] and bones["Head"]["worst_frame"] == 12, bones["Head"]
assert 0.5 < bones["Head"]["max_mm"] < 2, bones["Head"]
assert not bones["Hips"]["over"] and not bones["Spine"]["over"], bones
assert d["worst_bones"][0] == "Head"'

# --- Local mode: per-kind thresholds, stored and checked by verify.
"$ks" compress "$demo" -o "$work/one.ks" --local --translation-error 2 --rotation-error 0.5 \
  --jump-interval 0.25 >/dev/null 2>&1 || fail "single compress"
expect 0 "local: translation 2 mm, rotation 0.5 deg, scale 0.001 (stored in the stream)" "$ks" verify "$demo" "$work/one.ks"
expect 0 "every track within its threshold" "$ks" verify "$demo" "$work/one.ks"
expect 0 "error mode       local" "$ks" info "$work/one.ks"
expect 1 "OVER " "$ks" verify "$demo" "$work/one.ks" --local --rotation-error 0.01
expect 1 "tracks over their threshold" "$ks" verify "$demo" "$work/one.ks" --local --rotation-error 0.01
# verify picks the animation the stream was made from.
"$ks" compress "$demo" --animation idle -o "$work/idle.ks" >/dev/null 2>&1 || fail "compress idle"
expect 0 "[idle]" "$ks" verify "$demo" "$work/idle.ks"
# --all-animations: one file per animation.
"$ks" compress "$demo" --all-animations -o "$work/every" >/dev/null 2>&1 || fail "all animations"
[ -f "$work/every/demo_walk.walk.ks" ] && [ -f "$work/every/demo_walk.idle.ks" ] || fail "missing per-animation files"

# --- Bad values: exit 2 naming the option (and the bone, file and line), nothing written.
for cmd in compress measure; do
  for value in 0 -1 nan inf 1e-50 abc ""; do
    expect 2 "--tolerance: '$value' is not a positive number of millimetres" "$ks" $cmd "$demo" --tolerance "$value"
    expect 2 "--shell-distance: '$value' is not a positive number of centimetres" "$ks" $cmd "$demo" --shell-distance "$value"
  done
  expect 2 "--tolerance needs a value" "$ks" $cmd "$demo" --tolerance
  for value in 0 1 -5 abc 1.5 1e30 99999999999999999999 ""; do
    expect 2 "--max-bone-frames: '$value' is not a whole number in 2..1099511627776" \
      "$ks" $cmd "$demo" --max-bone-frames "$value"
  done
  expect 2 "--bone-tolerance: 'head' is not NAME=MM or NAME=MM@CM" "$ks" $cmd "$demo" --bone-tolerance head
  expect 2 "--bone-tolerance: '=0.1' names no bone" "$ks" $cmd "$demo" --bone-tolerance =0.1
  expect 2 "the tolerance of \"head\" ('x') is not a positive number" "$ks" $cmd "$demo" --bone-tolerance head=x
  expect 2 "the tolerance of \"head\" ('-2') is not a positive number" "$ks" $cmd "$demo" --bone-tolerance head=-2
  expect 2 "the tolerance of \"head\" ('nan') is not a positive number" "$ks" $cmd "$demo" --bone-tolerance head=nan
  expect 2 "the shell distance of \"head\" ('0') is not a positive number" "$ks" $cmd "$demo" --bone-tolerance head=0.1@0
  expect 2 "the shell distance of \"head\" ('') is not a positive number" "$ks" $cmd "$demo" --bone-tolerance head=0.1@
  expect 2 "bone \"head\" already has a tolerance" "$ks" $cmd "$demo" --bone-tolerance head=0.1 --bone-tolerance head=0.2
  expect 2 "--bone-tolerance: $demo has no bone named \"Head\"" "$ks" $cmd "$demo" --bone-tolerance Head=0.1
  expect 2 "--rotation-error sets a per-kind threshold of --local mode" "$ks" $cmd "$demo" --rotation-error 0.2
  expect 2 "--translation-error sets a per-kind threshold of --local mode" "$ks" $cmd "$demo" --translation-error 1
  expect 2 "--tolerance sets the object-space tolerance, which --local mode does not use" \
    "$ks" $cmd "$demo" --local --tolerance 0.2
  expect 2 "--rotation-error: '0' is not a positive number of degrees" "$ks" $cmd "$demo" --local --rotation-error 0
done
expect 2 "--bone-tolerance: $demo has no bone named \"nobody\"" "$ks" compress "$demo" -o "$work/refused.ks" \
  --bone-tolerance nobody=0.1
[ -e "$work/refused.ks" ] && fail "a refused compress wrote its output"
# A settings file: missing, a folder, a malformed line, an unknown bone (named with file and line).
expect 2 "--bone-tolerances: '$work/missing.txt': no such file" "$ks" compress "$demo" --bone-tolerances "$work/missing.txt"
expect 2 "--bone-tolerances: '$work': not a file" "$ks" measure "$demo" --bone-tolerances "$work"
printf 'head=0.2\n\nleft_hand 0.05\n' >"$work/malformed.txt"
expect 2 "--bone-tolerances $work/malformed.txt:3: 'left_hand 0.05' is not NAME=MM or NAME=MM@CM" \
  "$ks" compress "$demo" --bone-tolerances "$work/malformed.txt"
printf 'head=0.2\nleft_hand=0.05@zero\n' >"$work/bad_number.txt"
expect 2 "--bone-tolerances $work/bad_number.txt:2: the shell distance of \"left_hand\" ('zero')" \
  "$ks" measure "$demo" --bone-tolerances "$work/bad_number.txt"
printf '# bones of another rig\nHead=0.2\n' >"$work/other_rig.txt"
expect 2 "--bone-tolerances $work/other_rig.txt:2: $demo has no bone named \"Head\"" \
  "$ks" compress "$demo" -o "$work/refused.ks" --bone-tolerances "$work/other_rig.txt"
expect 2 "has no bone named \"Head\"" "$ks" measure "$demo" --bone-tolerances "$work/other_rig.txt"
printf 'head=0.2\n' >"$work/head.txt"
expect 2 "--bone-tolerance: bone \"head\" already has a tolerance (from --bone-tolerances $work/head.txt:1)" \
  "$ks" compress "$demo" --bone-tolerances "$work/head.txt" --bone-tolerance head=0.3
[ -e "$work/refused.ks" ] && fail "a refused compress wrote its output"
# In a batch, an override naming a bone one of the clips lacks refuses the batch before any work.
rc=0
"$ks" compress "$demo" "$work/chain.bvh" -o "$work/refused_batch" --bone-tolerance head=0.2 >"$work/batch.out" 2>&1 || rc=$?
[ $rc -eq 2 ] || fail "a batch with an unknown bone exited $rc"
grep -qF -- "--bone-tolerance: $work/chain.bvh has no bone named \"head\"" "$work/batch.out" || fail "batch refusal: $(cat "$work/batch.out")"
[ -e "$work/refused_batch" ] && fail "a refused batch wrote files"
# verify: the same options, the same refusals.
expect 2 "--tolerance: '0' is not a positive number" "$ks" verify "$demo" "$work/over.ks" --tolerance 0
expect 2 "--bone-tolerance: $demo has no bone named \"nobody\"" "$ks" verify "$demo" "$work/over.ks" --bone-tolerance nobody=1
expect 2 "--rotation-error sets a per-kind threshold of --local mode" "$ks" verify "$demo" "$work/one.ks" --rotation-error 1

# --- Bad inputs: a clear message, the right exit code, nothing lost.
expect 1 "no such file or folder" "$ks" compress "$work/missing.bvh" -o "$work/x.ks"
expect 2 "unknown option '--frobnicate'" "$ks" compress "$demo" --frobnicate
expect 2 "unknown option '--range'" "$ks" compress "$demo" --range 2
expect 2 "--zstd-level: '99' is not a whole number in 1..22" "$ks" compress "$demo" --zstd-level 99
expect 2 "no input given" "$ks" compress
# Import settings out of range name the option, not only the value.
expect 2 "--sample-rate: must be 0 (automatic) or within 1 to 10000 Hz" "$ks" compress "$demo" --sample-rate 1e-38
expect 2 "--bvh-unit-scale: must be a positive number" "$ks" measure "$work/chain.bvh" --bvh-unit-scale -1
mkdir -p "$work/a" "$work/b"
cp "$demo" "$work/a/same.glb"; cp "$demo" "$work/b/same.glb"
expect 2 "would write" "$ks" compress "$work/a/same.glb" "$work/b/same.glb" -o "$work/same"
printf 'HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0\n' >"$work/broken.bvh"
cp "$work/one.ks" "$work/keep.ks"
expect 1 "broken.bvh" "$ks" compress "$work/broken.bvh" -o "$work/keep.ks"
cmp -s "$work/one.ks" "$work/keep.ks" || fail "a failed compress changed the existing output"
head -c 200 "$work/one.ks" >"$work/truncated.ks"
expect 1 "truncated.ks" "$ks" verify "$demo" "$work/truncated.ks"
expect 1 "the stream has 24 bones, $work/chain.bvh has 3" "$ks" verify "$work/chain.bvh" "$work/one.ks"
expect 2 "needs SOURCE and FILE.ks" "$ks" verify "$work/one.ks"
# A batch with one bad file reports it and exits 1, the good ones are written.
expect 1 "FAILED" "$ks" compress "$demo" "$work/broken.bvh" -o "$work/mixed"
[ -f "$work/mixed/demo_walk.ks" ] || fail "the good clip of a mixed batch was not written"
ls -A "$work/mixed" | grep -q '^\.' && fail "temporary files left behind: $(ls -A "$work/mixed")"

# glb_with SRC DST CODE: the binary glTF SRC with its JSON changed by the
# Python statement CODE (on `doc`), written as DST.
glb_with() {
  python3 - "$@" <<'PY' || fail "could not write $2"
import json, struct, sys
data = open(sys.argv[1], 'rb').read()
length, kind = struct.unpack('<I4s', data[12:20])
doc = json.loads(data[20:20 + length])
exec(sys.argv[3])
text = json.dumps(doc).encode()
text += b' ' * (-len(text) % 4)
rest = data[20 + length:]
with open(sys.argv[2], 'wb') as out:
    out.write(struct.pack('<4sII', b'glTF', 2, 20 + len(text) + len(rest)) + struct.pack('<I4s', len(text), b'JSON'))
    out.write(text + rest)
PY
}

# --- Nothing the user had is lost.
# A clip that misses its bound does not replace an existing stream, unless --force.
cp "$work/one.ks" "$work/kept.ks"
expect 1 "exists and is kept; --force replaces it" "$ks" compress "$demo" -o "$work/kept.ks" --tolerance 0.000001
cmp -s "$work/one.ks" "$work/kept.ks" || fail "a clip that missed its bound replaced an existing stream"
expect 1 "MISSED" "$ks" compress "$demo" -o "$work/kept.ks" --tolerance 0.000001 --force
cmp -s "$work/one.ks" "$work/kept.ks" && fail "--force did not replace the stream"
# An output (or the JSON report) that is an input is refused before any work, in any spelling.
cp "$work/chain.bvh" "$work/self.bvh"
expect 2 "is the input $work/self.bvh" "$ks" compress "$work/self.bvh" -o "$work/self.bvh"
expect 2 "is the input" "$ks" compress "$work/self.bvh" -o "$work/./SELF.bvh"
expect 2 "is the input" "$ks" compress "$work/self.bvh" -o "$work/self.ks" --json "$work/self.bvh"
cmp -s "$work/chain.bvh" "$work/self.bvh" || fail "compress replaced its source"
[ -e "$work/self.ks" ] && fail "a refused compress wrote its output"
# Two files of one name in different folders, one animation each per output folder: refused.
expect 2 "would write" "$ks" compress "$work/a/same.glb" "$work/b/same.glb" --all-animations -o "$work/same_all"
[ -e "$work/same_all" ] && fail "a refused batch created its folder"
# Animation names that are one file name once made safe ("Run!", "run?") each get their own file.
glb_with "$demo" "$work/run.glb" "doc['animations'][0]['name'], doc['animations'][1]['name'] = 'Run!', 'run?'"
"$ks" compress "$work/run.glb" --all-animations -o "$work/runs" >/dev/null 2>&1 || fail "compress of run.glb"
[ -f "$work/runs/run.Run__0.ks" ] && [ -f "$work/runs/run.run__1.ks" ] ||
  fail "colliding animation names: $(ls "$work/runs")"
expect 0 "[Run!]" "$ks" verify "$work/run.glb" "$work/runs/run.Run__0.ks"
expect 0 "[run?]" "$ks" verify "$work/run.glb" "$work/runs/run.run__1.ks"
# inspect --animation-files names them alike (keystream_add_clips lists its outputs with it).
"$ks" inspect "$work/run.glb" --animation-files >"$work/parts" 2>&1 || fail "inspect --animation-files"
[ "$(tr '\n' ' ' <"$work/parts")" = "Run__0 run__1 " ] || fail "inspect --animation-files: $(cat "$work/parts")"

# --- What an import cannot use is said on every surface: a channel that a
# later one for the same property overrides.
glb_with "$demo" "$work/overridden.glb" \
  "for a in doc['animations']: a['channels'].append(dict(a['channels'][0]))"
expect 0 "as channel 0; the later one is used" "$ks" compress "$work/overridden.glb" -o "$work/overridden.ks" \
  --json "$work/overridden.json"
json_has=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["clips"][0]["warnings"])' "$work/overridden.json")
[[ "$json_has" == *"the later one is used"* ]] || fail "compress JSON has no warning: $json_has"
expect 0 "as channel 0; the later one is used" "$ks" verify "$work/overridden.glb" "$work/overridden.ks"

# --- A source key between frames is checked where it is: a 90-degree key at
# 0.5123 s, which no rate up to 240 Hz lands, is a miss on every surface,
# at its own time, not a pass measured on the resample.
python3 - "$work/off_grid.gltf" <<'PY'
import base64, json, math, struct, sys
half = math.radians(90) / 2
times = [0.0, 0.5123, 1.0]
values = [0, 0, 0, 1, 0, 0, math.sin(half), math.cos(half), 0, 0, 0, 1]
data = struct.pack("<3f", *times) + struct.pack("<12f", *values)
doc = {
    "asset": {"version": "2.0"},
    "scene": 0, "scenes": [{"nodes": [0]}],
    "nodes": [{"name": "root", "children": [1]}, {"name": "upper", "translation": [0, 1, 0], "children": [2]},
              {"name": "tip", "translation": [0, 1, 0]}],
    "buffers": [{"byteLength": len(data),
                 "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}],
    "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 12}, {"buffer": 0, "byteOffset": 12, "byteLength": 48}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "SCALAR", "min": [0.0], "max": [1.0]},
                  {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC4"}],
    "animations": [{"name": "swing", "samplers": [{"input": 0, "output": 1, "interpolation": "LINEAR"}],
                    "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}],
}
json.dump(doc, open(sys.argv[1], "w"))
PY
expect 1 "(a source key between frames)" "$ks" compress "$work/off_grid.gltf" -o "$work/off_grid.ks" \
  --json "$work/off_grid.json"
check_json "$work/off_grid.json" '
c = d["clips"][0]
assert not c["ok"] and c["bones_over"] >= 1, c
late = [b for b in c["bone_errors"] if "worst_frame_time" in b]
assert late and all(b["worst_frame"] != b["worst_frame_time"] for b in late), c["bone_errors"]'
expect 1 "(a source key between frames)" "$ks" verify "$work/off_grid.gltf" "$work/off_grid.ks"

# --- Names from a file reach the terminal shortened and printable: an animation and a bone named with
# terminal escape sequences (a window title, a screen clear, a bell) leave no control byte in any text output.
glb_with "$demo" "$work/escape.glb" "doc['animations'][0]['name'] = '\\x1b]0;owned\\x07walk'
doc['nodes'][doc['skins'][0]['joints'][1]]['name'] = '\\x1b[2J\\x1b[31mbone\\x07'"
control=$(printf '[\033\007]')
no_control() {
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  [ "$rc" -eq 0 ] || fail "'$*' exited $rc: $out"
  LC_ALL=C grep -q "$control" <<<"$out" && fail "'$*' printed terminal control bytes: $(cat -v <<<"$out")"
  return 0
}
no_control "$ks" inspect "$work/escape.glb" --bones
no_control "$ks" measure "$work/escape.glb" --tracks
no_control "$ks" compress "$work/escape.glb" -o "$work/escape.ks"
no_control "$ks" verify "$work/escape.glb" "$work/escape.ks" --bones --tracks
no_control "$ks" info "$work/escape.ks" --tracks

echo "compress/verify: ${#sources[@]} sources round-trip plain and zstd; overrides, local mode, misses and refusals checked"
