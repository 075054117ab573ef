#!/usr/bin/env bash
# Scalar tracks (morph-target weights) through the command line (issue 40):
# a generated skinned morph glTF and AnimatedMorphCube (when installed)
# compress and verify at the default precision; inspect, info, measure and
# the JSON reports show the tracks, their targets, precisions and bytes;
# --scalar-precision and --scalar-precisions reach the fit, the stream and
# verify; a precision stricter than the stream meets, given on verify's
# command line, fails naming the track; unknown names, repeated names and bad
# values are refused with the option (and file:line) at fault.
#   scalar_tracks_test.sh KEYSTREAM WRITE_MORPH_FILE ASSIMP_MODELS_DIR WORK_DIR
set -euo pipefail
ks=$1 write_morph=$2 models=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/cli_test_env.sh
source "$(dirname "$0")/cli_test_env.sh"
# check_json FILE PYTHON ARGS...: runs PYTHON with the JSON document in d and ARGS in args.
check_json() {
  local file=$1 code=$2; shift 2
  python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
args = sys.argv[2:]
$code" "$file" "$@" || fail "JSON check failed on $file: $code"
}

# --- The skinned morph file: CUBICSPLINE weights at 30 Hz, so that no key
# lands exactly and every track has an error to measure.
morph="$work/morph.gltf"
"$write_morph" "$morph" CUBICSPLINE >"$work/names" || fail "write_morph_file failed"
mapfile -t names <"$work/names"
[ "${names[*]}" = "face/smile face/blink face/frown" ] || fail "unexpected track names: ${names[*]}"

run 0 "$ks" inspect "$morph" --scalars
shows "scalars     3 (3 morph weights, 0 curves)"
shows "face/smile                       1 component, morph weight 0 of 'face', values 0 .. 1"
shows "face/frown                       1 component, morph weight 2 of 'face', values 0.2 .. 0.6"

# --- compress and verify at the default precision (0.0001).
run 0 "$ks" compress "$morph" -o "$work/morph.ks" --json "$work/compress.json"
shows "3 scalar tracks within their precision"
check_json "$work/compress.json" '
s = d["settings"]
assert s["scalar_precision"] == 0.0001 and s["scalar_precisions"] == [], s
c = d["clips"][0]
assert c["ok"] and c["scalar_track_count"] == 3 and c["scalar_tracks_over"] == 0, c
assert c["scalar_precisions_met"] is True and 0 < c["scalar_bytes"] < c["written_bytes"], c
assert [t["name"] for t in c["scalar_tracks"]] == ["face/smile", "face/blink", "face/frown"], c["scalar_tracks"]
for i, t in enumerate(c["scalar_tracks"]):
    assert t["target"] == "morph-weight" and t["node"] == "face" and t["target_index"] == i, t
    assert t["components"] == 1 and t["precision"] == 0.0001 and t["ok"], t
    assert 0 <= t["max"] <= t["precision"] and 0 <= t["mean"] <= t["max"] and 0 <= t["worst_frame"] < c["frames"], t'

run 0 "$ks" verify "$morph" "$work/morph.ks"
shows "scalar tracks    3 (3 morph weights, 0 curves), 0 over their precision; default precision 0.0001 (stored in the stream)"
shows "every bone within its tolerance, every scalar track within its precision at every frame"
run 0 "$ks" verify "$morph" "$work/morph.ks" --tracks
shows "  ok   face/smile "
shows "  ok   face/frown "
run 0 "$ks" verify "$morph" "$work/morph.ks" --json
cp "$work/out" "$work/verify.json"
check_json "$work/verify.json" '
assert d["ok"] and d["scalar_tracks_over"] == 0, d
assert d["scalar_precision"] == {"default": 0.0001, "origin": "stored in the stream"}, d["scalar_precision"]
tracks = d["scalar_tracks"]
assert [t["name"] for t in tracks] == ["face/smile", "face/blink", "face/frown"], tracks
for i, t in enumerate(tracks):
    assert set(t) >= {"name", "components", "target", "node", "target_index", "precision", "max", "mean",
                      "worst_frame", "ok"}, t
    assert t["target"] == "morph-weight" and t["node"] == "face" and t["target_index"] == i and t["ok"], t
    # An error of 0 would leave the failure checks below nothing to fail on.
    assert 0 < t["max"] <= t["precision"] == 0.0001, t'

# --- info and measure.
run 0 "$ks" info "$work/morph.ks"
grep -Eq '^scalar tracks +3 \(3 morph weights, 0 curves\), default precision 0\.0001, [0-9]+ bytes \([0-9.]+% of the stream\)$' \
  "$work/out" || fail "info: no scalar tracks line: $(cat "$work/out")"
grep -Eq '^additive +no$' "$work/out" || fail "info: no additive line: $(cat "$work/out")"
run 0 "$ks" info "$work/morph.ks" --tracks
shows "scalar face/blink                        1 component, morph weight 1 of 'face', precision 0.0001"
run 0 "$ks" info "$work/morph.ks" --json --tracks
cp "$work/out" "$work/info.json"
check_json "$work/info.json" '
s = d["scalar_tracks"]
assert s["count"] == 3 and s["morph_weights"] == 3 and s["curves"] == 0 and s["default_precision"] == 0.0001, s
assert 0 < s["bytes"] < d["file_bytes"] and abs(s["share"] - s["bytes"] / d["file_bytes"]) < 1e-9, s
assert [t["name"] for t in s["tracks"]] == ["face/smile", "face/blink", "face/frown"], s
assert all(t["precision"] == 0.0001 and t["target"] == "morph-weight" for t in s["tracks"]), s
assert d["keys"]["scalar"] > 0 and d["flags"]["additive"] is False, d["keys"]
assert d["additive"] == {"additive": False, "base": "none", "base_name": ""}, d["additive"]
scalar_rows = [t for t in d["track_list"] if t["kind"] == "scalar"]
assert [t["bone_name"] for t in scalar_rows] == ["face/smile", "face/blink", "face/frown"], scalar_rows'
run 0 "$ks" measure "$morph" --tracks
shows "scalar tracks    3 (3 morph weights, 0 curves), "
shows "0 over their precision; worst face/"
shows "scalar face/frown "

# --- A stricter precision on verify's command line than the stream meets:
# half the largest error measured above, for one track, then for all.
worst=$(python3 -c 'import json, sys
t = max(json.load(open(sys.argv[1]))["scalar_tracks"], key=lambda t: t["max"])
print(t["name"], repr(t["max"] / 2), repr(t["max"] * 2))' "$work/verify.json")
read -r worst_name half double <<<"$worst"
run 1 "$ks" verify "$morph" "$work/morph.ks" --scalar-precision "$worst_name=$half"
shows "scalar tracks    3 (3 morph weights, 0 curves), 1 over their precision; default precision 0.0001 (given here, the rest stored in the stream)"
shows "  OVER $worst_name "
shows "keystream verify: $work/morph.ks: 1 of 3 scalar tracks over their precision; worst $worst_name "
run 1 "$ks" verify "$morph" "$work/morph.ks" --scalar-precision "$worst_name=$half" --json
check_json "$work/out" '
assert not d["ok"] and d["scalar_tracks_over"] == 1, d
over = [t for t in d["scalar_tracks"] if not t["ok"]]
assert [t["name"] for t in over] == [args[0]] and over[0]["max"] > over[0]["precision"], over' "$worst_name"
run 1 "$ks" verify "$morph" "$work/morph.ks" --scalar-precision "$half"
shows "over their precision; default precision"
# The same from a file, with comments and blank lines; twice the error passes.
printf '# the face\n\n%s=%s   # too tight\n' "$worst_name" "$half" >"$work/tight.txt"
run 1 "$ks" verify "$morph" "$work/morph.ks" --scalar-precisions "$work/tight.txt"
shows "worst $worst_name "
printf '%s = %s\n' "$worst_name" "$double" >"$work/loose.txt"
run 0 "$ks" verify "$morph" "$work/morph.ks" --scalar-precisions "$work/loose.txt" --json
check_json "$work/out" '
t = [t for t in d["scalar_tracks"] if t["name"] == args[0]][0]
assert d["ok"] and abs(t["precision"] - float(args[1])) <= 1e-7 * float(args[1]), t' "$worst_name" "$double"

# --- Unknown names, refused with where they came from (exit 2).
printf 'face/smile=0.001\n# typo below\nface/smiel=0.001\n' >"$work/unknown.txt"
for cmd in verify measure compress; do
  args=("$morph"); [ $cmd = verify ] && args+=("$work/morph.ks"); [ $cmd = compress ] && args+=(-o "$work/refused.ks")
  run 2 "$ks" $cmd "${args[@]}" --scalar-precisions "$work/unknown.txt"
  shows "keystream $cmd: --scalar-precisions $work/unknown.txt:3: $morph animation \"talk\" has no scalar track named \"face/smiel\" (its scalar tracks: \"face/smile\", \"face/blink\", \"face/frown\")"
done
[ -e "$work/refused.ks" ] && fail "a refused compress wrote its output"
# With --all-animations each animation may animate other tracks: its fit refuses the name.
run 1 "$ks" compress "$morph" -o "$work/all" --all-animations --scalar-precision face/nose=0.1
shows "FAILED: fit settings: has a precision for \"face/nose\", which is not one of its scalar tracks"
run 2 "$ks" measure "$morph" --scalar-precision face/nose=0.1 --scalar-precision face/ear=0.1
shows "2 scalar precisions name scalar tracks $morph animation \"talk\" does not have: \"face/nose\" (--scalar-precision), \"face/ear\" (--scalar-precision)"
run 2 "$ks" measure "$morph" --scalar-precisions "$work/loose.txt" --scalar-precision "$worst_name=0.1"
shows "--scalar-precision: scalar track \"$worst_name\" already has a precision (from --scalar-precisions $work/loose.txt:1)"
# Bad values name the option, the file and the line.
run 2 "$ks" compress "$morph" --scalar-precision abc
shows "--scalar-precision: 'abc' is neither a positive number (every scalar track's precision) nor NAME=X (one track's)"
run 2 "$ks" verify "$morph" "$work/morph.ks" --scalar-precision 0
shows "'0' is neither a positive number"
run 2 "$ks" measure "$morph" --scalar-precision face/smile=-1
shows "--scalar-precision: the precision of \"face/smile\" ('-1') is not a positive number"
printf 'face/smile 0.001\n' >"$work/no_equals.txt"
run 2 "$ks" measure "$morph" --scalar-precisions "$work/no_equals.txt"
shows "--scalar-precisions $work/no_equals.txt:1: 'face/smile 0.001' is not NAME=X (no '=')"
run 2 "$ks" measure "$morph" --scalar-precisions "$work/missing.txt"
shows "--scalar-precisions: '$work/missing.txt': no such file"
printf 'face/smile=0.001\n' >"$work/large.txt"
truncate -s $((16 * 1024 * 1024 + 1)) "$work/large.txt"
run 2 "$ks" measure "$morph" --scalar-precisions "$work/large.txt"
shows "the file is 16777217 bytes; a precision file may hold at most 16777216 bytes (16 MiB)"

# --- Precisions from a file and a default reach the fit and the stream;
# verify checks what the stream stores, and a default given to verify
# replaces only the stored default, not the stored override.
printf 'face/blink=0.001\n' >"$work/blink.txt"
run 0 "$ks" compress "$morph" -o "$work/tuned.ks" --scalar-precision 0.0005 --scalar-precisions "$work/blink.txt" \
  --json "$work/tuned.json"
check_json "$work/tuned.json" '
assert d["settings"]["scalar_precision"] == 0.0005, d["settings"]
assert d["settings"]["scalar_precisions"] == [{"track": "face/blink", "precision": 0.001}], d["settings"]
assert [t["precision"] for t in d["clips"][0]["scalar_tracks"]] == [0.0005, 0.001, 0.0005], d["clips"][0]'
run 0 "$ks" info "$work/tuned.ks" --json
check_json "$work/out" '
s = d["scalar_tracks"]
assert s["default_precision"] == 0.0005 and [t["precision"] for t in s["tracks"]] == [0.0005, 0.001, 0.0005], s'
run 0 "$ks" verify "$morph" "$work/tuned.ks" --json
check_json "$work/out" '
assert d["ok"] and [t["precision"] for t in d["scalar_tracks"]] == [0.0005, 0.001, 0.0005], d["scalar_tracks"]'
rc=0; "$ks" verify "$morph" "$work/tuned.ks" --scalar-precision 0.0002 --json >"$work/out" 2>"$work/err" || rc=$?
check_json "$work/out" '
tracks = d["scalar_tracks"]
assert [t["precision"] for t in tracks] == [0.0002, 0.001, 0.0002], tracks
assert d["ok"] == all(t["max"] <= t["precision"] for t in tracks) == (int(args[0]) == 0), (args, tracks)' "$rc"
# Scalar tracks keep their precision in local mode too.
run 0 "$ks" compress "$morph" -o "$work/local.ks" --local --scalar-precision 0.0005
shows "3 scalar tracks within their precision"
run 0 "$ks" verify "$morph" "$work/local.ks"
shows "default precision 0.0005 (stored in the stream)"

# --- AnimatedMorphCube: its weights are its only animation.
cube="$models/glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf"
if [ -f "$cube" ]; then
  run 0 "$ks" compress "$cube" -o "$work/cube.ks" --json "$work/cube.json"
  check_json "$work/cube.json" '
c = d["clips"][0]
assert c["ok"] and c["scalar_track_count"] == 2 and c["scalar_precisions_met"], c'
  run 0 "$ks" verify "$cube" "$work/cube.ks"
  shows "scalar tracks    2 (2 morph weights, 0 curves), 0 over their precision"
  shows "every scalar track within its precision at every frame"
  run 0 "$ks" info "$work/cube.ks"
  shows "scalar tracks    2 (2 morph weights, 0 curves), default precision 0.0001, "
  run 0 "$ks" inspect "$cube"
  shows "scalars     2 (2 morph weights, 0 curves)"
else
  echo "note: $cube is absent (assimp-testmodels); AnimatedMorphCube skipped"
fi

# --- export writes the weights back: the decoded glb, imported again, has the
# same tracks, and the stream verifies against it (its weights are the
# decoded ones; tests/io/gltf_morph_export_test.cpp checks them against the
# source).
run 0 "$ks" export "$work/morph.ks" -o "$work/morph_decoded.glb" --source "$morph"
run 0 "$ks" verify "$work/morph_decoded.glb" "$work/morph.ks"
shows "every scalar track within its precision at every frame"
run 0 "$ks" inspect "$work/morph_decoded.glb" --scalars
shows "scalars     3 (3 morph weights, 0 curves)"
shows "face/frown                       1 component, morph weight 2 of 'face'"

echo "scalar tracks: compress, verify, info, inspect and measure report them; precisions from flags and files hold"
