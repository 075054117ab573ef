#!/usr/bin/env bash
# End-to-end test of `keystream info` and `keystream export`: packs the demo
# clip (plain and zstd), checks what info reports in text and JSON (the error
# mode, tolerance, shell distance and every per-bone override, or the local
# thresholds), that bad files are refused naming the file, and that an
# exported .glb re-imports with the stream's poses (verify) and replaces an
# existing file atomically.
#
# usage: info_export_test.sh KEYSTREAM ASSETS_DIR TEMP_DIR
set -euo pipefail

KEYSTREAM=$1
ASSETS=$2
TMP=$3
rm -rf "$TMP"
mkdir -p "$TMP"

fail() {
  echo "FAIL: $*" >&2
  echo "--- stdout (first lines):" >&2
  head -n 30 "$TMP/out" >&2 || true
  echo "--- stderr:" >&2
  head -n 30 "$TMP/err" >&2 || true
  exit 1
}

# run CODE ARGS...: runs keystream with ARGS, output in $TMP/out and $TMP/err;
# fails unless it exits with CODE.
run() {
  local expected=$1
  shift
  local rc=0
  "$KEYSTREAM" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
  [[ $rc == "$expected" ]] || fail "keystream $* exited $rc, expected $expected"
}

# expect_out PATTERN: $TMP/out holds a line matching the extended regex.
expect_out() { grep -Eq -- "$1" "$TMP/out" || fail "no line matching '$1' in the output"; }
expect_err() { grep -Eq -- "$1" "$TMP/err" || fail "no line matching '$1' on stderr"; }

# json_get FILE EXPR: evaluates the Python expression EXPR on the JSON object d.
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# --- pack the demo clip, plain and zstd
run 0 compress "$ASSETS/demo_walk.glb" -o "$TMP/demo.ks"
run 0 compress "$ASSETS/demo_walk.glb" -o "$TMP/demo_zstd.ks" --zstd
[[ -s $TMP/demo.ks && -s $TMP/demo_zstd.ks ]] || fail "compress wrote no stream files"
# Another tolerance and shell distance, overrides with and without their own distance; and local mode.
run 0 compress "$ASSETS/demo_walk.glb" -o "$TMP/tolerances.ks" --tolerance 0.25 --shell-distance 5 \
  --bone-tolerance left_hand=0.05@2 --bone-tolerance head=0.5
run 0 compress "$ASSETS/demo_walk.glb" -o "$TMP/local.ks" --local --translation-error 1 --rotation-error 0.2

# --- info, text
run 0 info "$TMP/demo.ks"
expect_out '^format +version 11,'
expect_out 'plain key stream'
expect_out '^error mode +object space'
expect_out '^tolerance +0\.1 mm at 3 cm from each bone, 0 bone overrides$'
grep -q '^thresholds' "$TMP/out" && fail "an object-space stream printed local thresholds"
expect_out "^clip +'walk'"
expect_out '^scalar tracks +none$'
expect_out '^additive +no$'
expect_out '^skeleton +24 bones, 72 tracks'
expect_out "^file +.*demo\\.ks, $(stat -c %s "$TMP/demo.ks") bytes"
run 0 info "$TMP/demo_zstd.ks" --tracks --runs
expect_out 'zstd key stream'
expect_out '^  key stream +[0-9]+ bytes plain, [0-9]+ bytes zstd'
expect_out '^player holds +[1-9][0-9]* bytes: the key stream, decompressed once'
[[ $(grep -Ec '^track +[0-9]' "$TMP/out") == 72 ]] || fail "--tracks did not list 72 tracks"
grep -q '^run of track ' "$TMP/out" || fail "--runs listed no runs"

# --- info, JSON: parses, and its numbers match the file and the text
for ks in demo demo_zstd; do
  run 0 info "$TMP/$ks.ks" --json --tracks --runs
  cp "$TMP/out" "$TMP/$ks.json"
  [[ $(json_get "$TMP/$ks.json" 'd["version"]') == 11 ]] || fail "$ks: JSON version"
  [[ $(json_get "$TMP/$ks.json" 'd["error_mode"]') == object-space ]] || fail "$ks: JSON error mode"
  [[ $(json_get "$TMP/$ks.json" 'd["tolerance"] == {"tolerance_mm": 0.1, "shell_distance_cm": 3, "bone_tolerances": []} and d["thresholds"] is None') == True ]] ||
    fail "$ks: JSON tolerance"
  [[ $(json_get "$TMP/$ks.json" 'd["bones"]') == 24 ]] || fail "$ks: JSON bone count"
  [[ $(json_get "$TMP/$ks.json" 'd["clip_name"]') == walk ]] || fail "$ks: JSON clip name"
  [[ $(json_get "$TMP/$ks.json" 'd["file_bytes"]') == "$(stat -c %s "$TMP/$ks.ks")" ]] || fail "$ks: JSON file size"
  [[ $(json_get "$TMP/$ks.json" 'len(d["track_list"])') == 72 ]] || fail "$ks: JSON track list"
  # The sections tile the file; the keys by kind add up; the runs hold every streamed key and tile the key stream.
  [[ $(json_get "$TMP/$ks.json" 'sum(v for k, v in d["sections"].items() if k not in ("key_stream_plain", "key_stream_compressed", "key_stream_ratio")) + (d["sections"]["key_stream_compressed"] or d["sections"]["key_stream_plain"]) == d["file_bytes"]') == True ]] ||
    fail "$ks: JSON sections do not add up to the file size"
  [[ $(json_get "$TMP/$ks.json" 'd["keys"]["translation"] + d["keys"]["rotation"] + d["keys"]["scale"] == d["keys"]["total"] == sum(t["keys"] for t in d["track_list"])') == True ]] ||
    fail "$ks: JSON key counts disagree"
  [[ $(json_get "$TMP/$ks.json" 'sum(r["keys"] for r in d["run_list"])==d["keys"]["in_key_stream"]') == True ]] ||
    fail "$ks: JSON runs do not hold the key stream"
  [[ $(json_get "$TMP/$ks.json" 'all(a["first_bit"] + a["bits"] == b["first_bit"] for a, b in zip(d["run_list"], d["run_list"][1:]))') == True ]] ||
    fail "$ks: JSON runs do not follow one another"
  run 0 info "$TMP/$ks.ks"
  expect_out "^frames +$(json_get "$TMP/$ks.json" 'd["frames"]') at "
  expect_out "^keys +$(json_get "$TMP/$ks.json" 'd["keys"]["total"]'): "
done
[[ $(json_get "$TMP/demo.json" 'd["flags"]["zstd_key_stream"]') == False ]] || fail "plain stream flagged zstd"
[[ $(json_get "$TMP/demo_zstd.json" 'd["flags"]["zstd_key_stream"]') == True ]] || fail "zstd stream not flagged zstd"

# --- info: E, d and every override, as given to compress
run 0 info "$TMP/tolerances.ks"
expect_out '^error mode +object space'
expect_out '^tolerance +0\.25 mm at 5 cm from each bone, 2 bone overrides$'
expect_out '^  override +left_hand: 0\.05 mm at 2 cm, and the bones below it$'
expect_out '^  override +head: 0\.5 mm at the inherited distance, and the bones below it$'
run 0 info "$TMP/tolerances.ks" --json
cp "$TMP/out" "$TMP/tolerances.json"
[[ $(json_get "$TMP/tolerances.json" 'd["tolerance"]["tolerance_mm"], d["tolerance"]["shell_distance_cm"]') == "(0.25, 5.0)" ]] ||
  fail "JSON tolerance and shell distance"
[[ $(json_get "$TMP/tolerances.json" '[(o["bone"], o["bone_index"], o["tolerance_mm"], o["shell_distance_cm"]) for o in d["tolerance"]["bone_tolerances"]]') == "[('left_hand', 9, 0.05, 2.0), ('head', 5, 0.5, None)]" ]] ||
  fail "JSON overrides: $(json_get "$TMP/tolerances.json" 'd["tolerance"]')"
# ... and verify checks exactly that bound.
run 0 verify "$ASSETS/demo_walk.glb" "$TMP/tolerances.ks"
expect_out '^bound +object space: 0\.25 mm at 5 cm, 2 bone overrides \(stored in the stream\)'
# --- info: local mode prints its thresholds, not a tolerance
run 0 info "$TMP/local.ks"
expect_out '^error mode +local'
expect_out '^thresholds +translation 1 mm, rotation 0\.2 deg, scale 0\.001$'
grep -q '^tolerance' "$TMP/out" && fail "a local stream printed a tolerance"
run 0 info "$TMP/local.ks" --json
cp "$TMP/out" "$TMP/local.json"
[[ $(json_get "$TMP/local.json" 'd["error_mode"], d["tolerance"], d["thresholds"]') == "('local', None, {'translation_mm': 1.0, 'rotation_deg': 0.2, 'scale': 0.001})" ]] ||
  fail "JSON of a local stream: $(json_get "$TMP/local.json" 'd["thresholds"]')"

# --- info refuses bad files (exit 1) naming them, and bad usage (exit 2)
head -c 1000 "$TMP/demo.ks" >"$TMP/truncated.ks"
head -c 4096 /dev/urandom >"$TMP/random.ks"
for bad in truncated random missing; do
  run 1 info "$TMP/$bad.ks"
  expect_err "^keystream: .*$bad\\.ks: "
done
run 2 info
run 2 info "$TMP/demo.ks" --no-such-option

# --- export without and with a source; both re-import with the stream's poses
run 0 export "$TMP/demo.ks" -o "$TMP/bare.glb"
expect_out '24 bones'
run 0 export "$TMP/demo_zstd.ks" -o "$TMP/mesh.glb" --source "$ASSETS/demo_walk.glb"
for glb in bare mesh; do
  [[ $(head -c 4 "$TMP/$glb.glb") == glTF ]] || fail "$glb.glb is not binary glTF"
done
run 0 verify "$TMP/bare.glb" "$TMP/demo.ks"
run 0 verify "$TMP/mesh.glb" "$TMP/demo_zstd.ks"
run 0 inspect "$TMP/mesh.glb"
expect_out '^mesh +[1-9][0-9]* vertices'
expect_out '^bones +24'
run 0 inspect "$TMP/bare.glb"
expect_out '^mesh +none'

# --- export usage errors
run 2 export "$TMP/demo.ks"
expect_err '-o OUT\.glb is required'
run 2 export "$TMP/demo.ks" -o "$TMP/out.gltf"
run 2 export "$TMP/demo.ks" -o "$TMP/out.glb" --source "$TMP/clip.bvh"
expect_err 'BVH'
run 1 export "$TMP/truncated.ks" -o "$TMP/out.glb"
expect_err 'truncated\.ks: '
[[ ! -e $TMP/out.glb ]] || fail "a failed export wrote its output"

# --- export over an existing file replaces it whole; a failed one leaves it
mkdir "$TMP/replace"
echo "old content" >"$TMP/replace/anim.glb"
run 1 export "$TMP/demo.ks" -o "$TMP/replace/anim.glb" --source "$TMP/missing.glb"
[[ $(cat "$TMP/replace/anim.glb") == "old content" ]] || fail "a failed export changed the existing file"
run 0 export "$TMP/demo.ks" -o "$TMP/replace/anim.glb"
cmp -s "$TMP/replace/anim.glb" "$TMP/bare.glb" || fail "the replaced file is not the export"
[[ $(ls -A "$TMP/replace") == anim.glb ]] || fail "files left beside the output: $(ls -A "$TMP/replace")"

echo "info_export_test: all checks passed"
