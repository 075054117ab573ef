#!/usr/bin/env bash
# keystream compress then verify, end to end through the command line:
# every shared clip (when ../shared/clips is present) and the demo clip
# round-trip within their thresholds, plain and with zstd; batch mode writes
# a parseable JSON report; bad inputs fail with a message naming the file and
# never destroy an existing output.
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

sources=("$assets/demo_walk.glb")
if [ -d "$clips" ]; then
  for f in "$clips"/*.bvh "$clips"/*.glb "$clips"/*.gltf; do [ -e "$f" ] && sources+=("$f"); done
fi

# Batch: every source at once, in parallel, plain and zstd; each verifies.
for variant in plain zstd; do
  flags=(); [ $variant = zstd ] && flags=(--zstd)
  out="$work/$variant"
  "$ks" compress "${sources[@]}" -o "$out" "${flags[@]}" --json "$out/report.json" >"$work/$variant.table" 2>"$work/$variant.progress" \
    || fail "compress ($variant) failed: $(cat "$work/$variant.table" "$work/$variant.progress")"
  python3 - "$out/report.json" "${#sources[@]}" "$variant" <<'PY' || fail "bad JSON report ($variant)"
import json, sys
report = json.load(open(sys.argv[1]))
clips = report["clips"]
assert len(clips) == int(sys.argv[2]), len(clips)
assert report["settings"]["zstd"] == (sys.argv[3] == "zstd")
for c in clips:
    assert c["ok"] and c["written"] and c["missed_tracks"] == 0, c
    assert c["written_bytes"] == (c["packed_zstd_bytes"] if sys.argv[3] == "zstd" else c["packed_bytes"]), c
    assert c["max_translation_error_m"] <= report["settings"]["translation_error_m"], c
    assert c["max_rotation_error_deg"] <= report["settings"]["rotation_error_deg"] * 1.0000001, c
PY
  grep -qF "| **total** (${#sources[@]} clips)" "$work/$variant.table" || fail "no summary table ($variant)"
  grep -qF "[${#sources[@]}/${#sources[@]}]" "$work/$variant.progress" || fail "no progress lines ($variant)"
  for src in "${sources[@]}"; do
    name=$(basename "${src%.*}")
    expect 0 "every track within its threshold" "$ks" verify "$src" "$out/$name.ks"
  done
done

# One file: OUT is the file; options reach the codec; a tighter check fails.
"$ks" compress "$assets/demo_walk.glb" -o "$work/one.ks" --translation-error 2 --rotation-error 0.5 \
  --jump-interval 0.25 >/dev/null 2>&1 || fail "single compress"
expect 0 "translation 2 mm, rotation 0.5 deg" "$ks" verify "$assets/demo_walk.glb" "$work/one.ks"
expect 1 "EXCEEDS" "$ks" verify "$assets/demo_walk.glb" "$work/one.ks" --rotation-error 0.01
# verify picks the animation the stream was made from.
"$ks" compress "$assets/demo_walk.glb" --animation idle -o "$work/idle.ks" >/dev/null 2>&1 || fail "compress idle"
expect 0 "[idle]" "$ks" verify "$assets/demo_walk.glb" "$work/idle.ks"
# --all-animations: one file per animation.
"$ks" compress "$assets/demo_walk.glb" --all-animations -o "$work/every" >/dev/null 2>&1 || fail "all animations"
[ -f "$work/every/demo_walk.walk.ks" ] && [ -f "$work/every/demo_walk.idle.ks" ] || fail "missing per-animation files"

# Bad inputs: a clear message, the right exit code, nothing lost.
expect 1 "no such file or folder" "$ks" compress "$work/missing.bvh" -o "$work/x.ks"
expect 2 "unknown option '--frobnicate'" "$ks" compress "$assets/demo_walk.glb" --frobnicate
expect 2 "--zstd-level: '99' is not a whole number in 1..22" "$ks" compress "$assets/demo_walk.glb" --zstd-level 99
expect 2 "no input given" "$ks" compress
mkdir -p "$work/a" "$work/b"
cp "$assets/demo_walk.glb" "$work/a/same.glb"; cp "$assets/demo_walk.glb" "$work/b/same.glb"
expect 2 "would write" "$ks" compress "$work/a/same.glb" "$work/b/same.glb" -o "$work/same"
printf 'HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0\n' >"$work/broken.bvh"
cp "$work/one.ks" "$work/keep.ks"
expect 1 "broken.bvh" "$ks" compress "$work/broken.bvh" -o "$work/keep.ks"
cmp -s "$work/one.ks" "$work/keep.ks" || fail "a failed compress changed the existing output"
head -c 200 "$work/one.ks" >"$work/truncated.ks"
expect 1 "truncated.ks" "$ks" verify "$assets/demo_walk.glb" "$work/truncated.ks"
if [ -f "$clips/cmu_cgspeed_01_01.bvh" ]; then
  expect 1 "the stream has 24 bones" "$ks" verify "$clips/cmu_cgspeed_01_01.bvh" "$work/one.ks"
fi
expect 2 "needs SOURCE and FILE.ks" "$ks" verify "$work/one.ks"
# A batch with one bad file reports it and exits 1, the good ones are written.
expect 1 "FAILED" "$ks" compress "$assets/demo_walk.glb" "$work/broken.bvh" -o "$work/mixed"
[ -f "$work/mixed/demo_walk.ks" ] || fail "the good clip of a mixed batch was not written"
ls -A "$work/mixed" | grep -q '^\.' && fail "temporary files left behind: $(ls -A "$work/mixed")"
echo "compress/verify: ${#sources[@]} sources round-trip plain and zstd"
