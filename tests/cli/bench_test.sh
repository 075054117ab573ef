#!/usr/bin/env bash
# keystream bench, end to end on the demo clip with --quick (a smoke run: the
# numbers are not measurements, but every table must be there and agree with
# what the other commands say), and on a skinned clip with morph weights.
# Arguments: the keystream binary, the assets folder, a temp folder, the
# write_morph_file test tool.
set -euo pipefail
keystream=$1
assets=$2
work=$3
write_morph_file=$4
rm -rf "$work"
mkdir -p "$work"
cd "$work"
demo="$assets/demo_walk.glb"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Every table, Markdown on stdout, JSON in a file.
# The demo file holds "walk" (first, what compress takes) and "idle" (longest, what bench takes by default).
"$keystream" bench --quick --json report.json "$demo#walk" >tables.md 2>progress.txt ||
  { cat progress.txt >&2; fail "bench --quick exited $?"; }
for heading in "## Rate–distortion" "## Sampling and seeking" "## Fit time" "## x42 crowd playback"; do
  grep -qF "$heading" tables.md || fail "no '$heading' table"
done
grep -qF "decoded the same poses bit for bit: yes" tables.md || fail "crowd variants decode different poses"
grep -qE "A Player of it owns [0-9]+ bytes, [0-9]+ of them its key cache\." tables.md || fail "no player memory line"
grep -qF "rate-distortion 1/1: demo_walk.glb#walk" progress.txt || fail "no progress on stderr"
# A bone-only clip: no scalar columns, rows or notes.
if grep -qiE "scalar|bones only" tables.md; then fail "the demo's tables mention scalar tracks"; fi

# The JSON holds the same tables, and agrees with keystream compress.
"$keystream" compress "$demo" -o demo.ks --json compress.json >/dev/null
python3 - report.json compress.json <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
compress = json.load(open(sys.argv[2]))
def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)
rd = report["rate_distortion"]
check(len(rd) == 1 and rd[0]["clip"] == "demo_walk.glb#walk", "one rate-distortion clip")
check(report["shell_distance_m"] == 0.03 or abs(report["shell_distance_m"] - 0.03) < 1e-7, "the default 3 cm shell")
check(report["violations"] == 0 and not rd[0]["violation"], "no violation")
points = rd[0]["points"]
tolerances = [p["tolerance_m"] for p in points]
check(len(tolerances) == 3 and all(abs(t - e) < 1e-9 for t, e in zip(tolerances, [1e-4, 1e-3, 1e-2])),
      "the --quick tolerances 0.1, 1 and 10 mm, got %s" % tolerances)
check([p["label"] for p in points] == ["0.1 mm at 3 cm", "1 mm at 3 cm", "10 mm at 3 cm"], "labels")
default = points[0]  # 0.1 mm at 3 cm: keystream's default (and ACL's)
clip = compress["clips"][0]
check(default["stream_bytes"] == clip["packed_bytes"], "default point bytes %d == compress packed bytes %d"
      % (default["stream_bytes"], clip["packed_bytes"]))
check(default["zstd_bytes"] == clip["packed_zstd_bytes"], "default point zstd bytes == compress zstd bytes")
check(default["metadata_bytes"] == clip["metadata_bytes"], "default point metadata bytes == compress's")
check(default["key_count"] == clip["keys"], "default point keys == compress keys")
check(abs(default["max_object_error_m"]["at_0_03_m"] - clip["object_space_error"][0]["max_m"]) < 1e-9,
      "default point's object-space error at 3 cm == compress's")
for p in points:
    what = " at " + p["label"]
    check(p["bones_over"] == 0 and p["bones_over_without_floor"] == 0 and not p["violation"], "no bone over" + what)
    check(p["floor_m"] == 0 and p["worst_bone"] is None, "no floor reported" + what)
    check(p["max_object_error_m"]["at_0_03_m"] <= p["tolerance_m"], "max error at 3 cm within the tolerance" + what)
    check(p["p99_object_error_m"]["at_0_03_m"] <= p["max_object_error_m"]["at_0_03_m"], "p99 <= max" + what)
    check(p["max_object_error_m"]["at_0_03_m"] <= p["max_object_error_m"]["at_1_m"], "error grows with distance" + what)
    check(p["stream_bytes_without_metadata"] + p["metadata_bytes"] == p["stream_bytes"], "metadata is a part" + what)
    check(p["metadata_bytes"] > 0 and p["bits_per_key"] > 0, "metadata and key bits" + what)
sizes = [p["stream_bytes_without_metadata"] for p in points]
check(sizes[0] > sizes[1] > sizes[2], "looser is smaller: %s" % sizes)
at = rd[0]["at_tolerance"]
check(at is not None and at == default, "the last line is the 0.1 mm point")

timings = report["timings"]
check(len(timings) == 1, "one timed clip")
check("player kernels" in report["build"], "the build line names the player's kernels")
rows = timings[0]["rows"]
check(len(rows) == 2 * 8, "8 measures warm and cold, got %d" % len(rows))
t = timings[0]
check(t["default_stream_bytes"] == rows[0]["stream_bytes"], "the sequential rows read the default stream")
check(t["auto_jump_frame_bytes"] <= 0.1 * t["default_stream_bytes"], "auto keeps jump frames within 10% of the stream")
check(any(r["measure"].startswith("seek, J = auto (") for r in rows), "a seek row at the interval auto chose")
check(t["open_s"]["median"] > 0 and t["open_full_s"]["median"] > 0, "StreamView::open timed, fast and full")
# The walk's keys fit the default key cache (20 bytes a key, 2 per animated track and frame).
check(0 < t["default_key_cache_bytes"] < t["default_player_bytes"], "a player's memory and its key cache")
check(t["default_key_cache_bytes"] >= 20 * t["keys"], "the key cache holds every key")
bones = timings[0]["bones"]
check(0 < timings[0]["animated_tracks"] <= 3 * bones, "animated tracks of the timed clip")
for r in rows:
    check(r["error"] == "", "row %s ran" % r["measure"])
    check(r["player_s_per_pose"]["median"] > 0 and r["baseline_s_per_pose"]["median"] > 0, "times measured")
    # The baseline reads a whole segment, 4 keys, for every animated track
    # every pose (a constant track is its stored value).
    check(abs(r["baseline_keys_per_pose"] - 4 * timings[0]["animated_tracks"]) < 1e-9,
          "baseline reads 4 keys per animated track")
    # Playing forward the player reads only the keys that became due; a seek
    # reads a jump frame and the keys after it, which can be more, or, from
    # the key cache (the walk's keys fit it), none: only the random times a
    # frame or two after the last play on and take keys.
    if r["measure"].startswith("sequential"):
        check(r["player_keys_per_pose"] < r["baseline_keys_per_pose"], "the player reads fewer keys (%s)" % r["measure"])
    elif t["default_key_cache_bytes"] > 0:
        check(r["player_keys_per_pose"] < rows[0]["player_keys_per_pose"],
              "a seek from the key cache reads fewer keys than play (%s)" % r["measure"])
    else:
        check(r["player_keys_per_pose"] > 0, "a seek reads keys (%s)" % r["measure"])
    check((r["copies"] == 1) == (r["cache"] == "warm"), "warm rows use one copy, cold rows many")
check(timings[0]["fit_s"]["median"] > 0, "fit timed")
check(timings[0]["local_fit_s"]["median"] > 0, "local-mode fit timed in the same run")
# Cold rows spread the same samples over many copies: a seek reads keys as
# a warm one does (a copy stuck on one time would read none). Only a lower
# bound: a quick run under the sanitizers samples each copy once or twice,
# from frame 0, so cold seeks can read more than warm ones.
warm = {r["measure"]: r for r in rows if r["cache"] == "warm"}
for r in rows:
    if r["cache"] == "cold" and r["measure"].startswith("seek"):
        w = warm[r["measure"]]["player_keys_per_pose"]
        check(r["player_keys_per_pose"] >= 0.25 * w,
              "cold %s reads %.1f keys per pose, warm %.1f" % (r["measure"], r["player_keys_per_pose"], w))
check(rows[0]["stream_bytes"] == default["stream_bytes"], "the timed stream is the default point's stream")
check(t["scalar_tracks"] == 0 and t["scalar_values"] == 0 and not any(r["scalars"] for r in rows),
      "a bone-only clip samples no scalar tracks")
for p in points:
    check(p["scalar_tracks"] == 0 and p["scalar_bytes"] == 0 and p["worst_scalar"] is None, "no scalar tracks")
    check(p["bone_bytes"] == p["stream_bytes_without_metadata"], "the bones are the stream without metadata")

crowd = report["crowd"]
check(crowd["settings"]["characters"] == 56 and crowd["settings"]["game_frames"] == 556, "x42 defaults")
check(len(crowd["rows"]) == 4 and crowd["poses_identical"], "four variants, same poses")
base = crowd["rows"][0]
check(len(crowd["clips"]) == 1, "the demo's idle clip")
animated = crowd["clips"][0]["animated_tracks"]
check(0 < animated <= 3 * bones, "animated tracks of the crowd's clip")
check(base["keys_read"] == 56 * 556 * animated * 4,
      "baseline keys read = characters x frames x animated tracks x 4")
check(all(r["keys_read"] < base["keys_read"] for r in crowd["rows"][1:]), "players read fewer keys")
check(all(r["run_s"]["median"] > 0 for r in crowd["rows"]), "crowd runs timed")
PY

# A skinned clip with three morph weights: the scalar columns, the bytes
# split as keystream compress reports them, and the bones-only sampling rows.
"$write_morph_file" morph.gltf >/dev/null
"$keystream" bench --quick --only rd,timing --json morph.json morph.gltf >morph.md 2>morph_progress.txt ||
  { cat morph_progress.txt >&2; fail "bench --quick on the morph clip exited $?"; }
grep -qF "### morph.gltf: 3 bones, 3 scalar tracks, " morph.md || fail "no scalar track count in the headings"
grep -qF "| scalar tracks | bone bytes | scalar bytes | worst scalar error / precision |" morph.md ||
  fail "no scalar columns in the rate-distortion table"
grep -qF "Every row samples the 3 scalar tracks too (3 floats a pose" morph.md || fail "no scalar sampling note"
"$keystream" compress morph.gltf -o morph.ks --json compress_morph.json >/dev/null
python3 - morph.json compress_morph.json <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
compressed = json.load(open(sys.argv[2]))["clips"][0]
def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)
rd = report["rate_distortion"][0]
check(rd["scalar_tracks"] == 3 and not rd["violation"], "three scalar tracks, no violation")
points = rd["points"]
for p in points:
    what = " at " + p["label"]
    check(p["scalar_tracks"] == 3, "scalar tracks" + what)
    check(p["scalar_bytes"] > 0 and p["bone_bytes"] > 0, "both parts have bytes" + what)
    check(p["bone_bytes"] + p["scalar_bytes"] + p["metadata_bytes"] == p["stream_bytes"], "the parts make the stream" + what)
    check(abs(p["bone_share_of_stream"] + p["scalar_share_of_stream"] + p["metadata_bytes"] / p["stream_bytes"] - 1) < 1e-9,
          "the shares add up" + what)
    check(p["scalars_over"] == 0 and p["max_scalar_error"] <= 1e-4, "within the default precision" + what)
    w = p["worst_scalar"]
    check(w is not None and w["track"].startswith("face/") and abs(w["precision"] - 1e-4) < 1e-10, "worst scalar" + what)
# The default point is what keystream compress says of the default stream.
default = points[0]
check(abs(default["tolerance_m"] - 1e-4) < 1e-10, "the first --quick point is 0.1 mm")
check(default["stream_bytes"] == compressed["packed_bytes"] and default["scalar_bytes"] == compressed["scalar_bytes"],
      "bench's stream and scalar bytes %d, %d are compress's %d, %d"
      % (default["stream_bytes"], default["scalar_bytes"], compressed["packed_bytes"], compressed["scalar_bytes"]))
check(compressed["scalar_track_count"] == 3, "compress sees the three weights too")

t = report["timings"][0]
check(t["scalar_tracks"] == 3 and t["scalar_values"] == 3, "the timed clip's scalar tracks")
rows = t["rows"]
bones_only = [r for r in rows if r["measure"].endswith(", bones only")]
curves_only = [r for r in rows if r["measure"].endswith(", curves only")]
check(len(rows) == 2 * (8 + 2 + 2) and len(bones_only) == 4 and len(curves_only) == 4,
      "8 measures with scalars, 2 bones only and 2 curves only, warm and cold")
for r in rows:
    check(r["error"] == "", "row %s ran" % r["measure"])
    check(r["scalars"] == (r not in bones_only), "row %s samples the scalar tracks unless bones only" % r["measure"])
    check(r["curves_only"] == (r in curves_only), "row %s is curves only as its measure says" % r["measure"])
    check(r["player_s_per_pose"]["median"] > 0 and r["baseline_s_per_pose"]["median"] > 0, "times measured")
with_scalars = {(r["measure"], r["cache"]): r for r in rows if r["scalars"] and not r["curves_only"]}
for r in bones_only:
    full = with_scalars[(r["measure"][:-len(", bones only")], r["cache"])]
    # The baseline reads 4 keys per animated track it samples: fewer without the weights.
    check(r["baseline_keys_per_pose"] < full["baseline_keys_per_pose"], "bones only reads fewer baseline keys")
for r in curves_only:
    full = with_scalars[(r["measure"][:-len(", curves only")], r["cache"])]
    # The player's key walk is the full sample's; the baseline reads the weights' keys alone.
    check(r["player_keys_per_pose"] == full["player_keys_per_pose"], "curves only walks the keys a full sample does")
    check(abs(r["baseline_keys_per_pose"] - 4 * 3) < 1e-9, "curves only: the baseline reads the 3 weights' keys")
for r in rows:
    if r["scalars"] and not r["curves_only"]:
        check(abs(r["baseline_keys_per_pose"] - 4 * t["animated_tracks"]) < 1e-9,
              "with scalars the baseline reads 4 keys per animated track, weights included")
PY

# A clip's own tolerance, without the sweep: the bytes keystream compress
# writes at that tolerance.
"$keystream" bench --quick --only rd --tolerances none --tolerance 5 --tolerance "demo_walk.glb#walk=0.25" \
  --json tolerance.json "$demo#walk" >tolerance.md 2>/dev/null || fail "bench --tolerance CLIP=MM"
"$keystream" compress "$demo" --tolerance 0.25 -o demo_025.ks --json compress_025.json >/dev/null
python3 - tolerance.json compress_025.json <<'PY'
import json, sys
rd = json.load(open(sys.argv[1]))["rate_distortion"]
clip = json.load(open(sys.argv[2]))["clips"][0]
if len(rd) != 1 or rd[0]["points"] != []:
    sys.exit("FAIL: --tolerances none still swept")
at = rd[0]["at_tolerance"]
if at is None or abs(at["tolerance_m"] - 0.00025) > 1e-10 or at["label"] != "0.25 mm at 3 cm":
    sys.exit("FAIL: the clip's own tolerance (0.25 mm, over the 5 mm for every clip) was not used: %s" % at)
if at["stream_bytes"] != clip["packed_bytes"] or at["key_count"] != clip["keys"]:
    sys.exit("FAIL: bench at 0.25 mm %d bytes, %d keys; compress --tolerance 0.25 %d bytes, %d keys"
             % (at["stream_bytes"], at["key_count"], clip["packed_bytes"], clip["keys"]))
if at["bones_over"] != 0 or at["max_object_error_m"]["at_0_03_m"] > at["tolerance_m"]:
    sys.exit("FAIL: 0.25 mm not held")
PY
grep -qF "| **0.25 mm at 3 cm** |" tolerance.md || fail "no bold line at the clip's tolerance"

# --only picks tables; --json - puts JSON on stdout and the tables on stderr.
"$keystream" bench --quick --only x42 --characters 4 --crowd-frames 30 --json - "$demo" >only.json 2>only.md
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["rate_distortion"] == [] and r["timings"] == [] and len(r["crowd"]["rows"]) == 4' only.json ||
  fail "--only x42 --json -"
grep -qF "## x42 crowd playback" only.md || fail "tables on stderr with --json -"
if grep -qF "## Rate–distortion" only.md; then fail "--only x42 printed the rate-distortion table"; fi

# --rest-tracks skip: every line as compress --rest-tracks skip writes it.
"$keystream" bench --quick --only rd --json skip.json --rest-tracks skip "$demo#walk" >skip.md 2>/dev/null ||
  fail "bench --rest-tracks skip exited $?"
grep -qF "Every line was fitted with --rest-tracks skip" skip.md || fail "the table does not say rest tracks were skipped"
"$keystream" compress "$demo" --rest-tracks skip -o skip.ks --json compress_skip.json >/dev/null
python3 - skip.json compress_skip.json report.json <<'PY'
import json, sys
report, compress, keep = (json.load(open(f)) for f in sys.argv[1:4])
def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)
check(report["rest_tracks"] == "skip" and keep["rest_tracks"] == "keep", "the reports name their rest tracks")
point, clip = report["rate_distortion"][0]["points"][0], compress["clips"][0]
check(point["stream_bytes"] == clip["packed_bytes"], "skip point bytes %d == compress --rest-tracks skip's %d"
      % (point["stream_bytes"], clip["packed_bytes"]))
check(point["metadata_bytes"] == clip["metadata_bytes"], "skip point metadata bytes == compress's")
check(point["tracks_by_coding"]["rest"] > 0, "the demo has rest tracks when they are skipped")
check(keep["rate_distortion"][0]["points"][0]["tracks_by_coding"]["rest"] == 0, "keep has no rest tracks")
PY

# Bad options exit 2 and say why; a bad clip exits 1 naming it; an existing
# JSON file survives a failed run.
expect() {
  local code=$1 pattern=$2
  shift 2
  set +e
  "$keystream" bench "$@" >out.txt 2>err.txt
  local got=$?
  set -e
  [ "$got" -eq "$code" ] || fail "bench $* exited $got, not $code"
  grep -qF -- "$pattern" err.txt || { cat err.txt >&2; fail "bench $*: no '$pattern' on stderr"; }
}
expect 2 "unknown table 'foo'" --only rd,foo "$demo"
expect 2 "'0' is not a positive number of millimetres" --tolerances 0.5,0 "$demo"
expect 2 "'nan' is not a positive number of millimetres" --tolerances nan "$demo"
expect 2 "--tolerance: '-1' is not a positive number of millimetres" --tolerance -1 "$demo"
expect 2 "--tolerance: '0' is not a positive number of millimetres" --tolerance "demo_walk.glb#walk=0" "$demo#walk"
expect 2 "--tolerance: no clip is named 'nosuch.glb'" --quick --only rd --tolerance nosuch.glb=0.1 "$demo#walk"
expect 2 "--shell-distance" --shell-distance 0 "$demo"
expect 2 "--rest-tracks: 'maybe' is neither 'keep' nor 'skip'" --rest-tracks maybe "$demo"
expect 2 "--scales is gone" --scales 0.5,1 "$demo"
expect 2 "--target-error is gone" --target-error 0.1 "$demo"
expect 2 "--repetitions" --repetitions 0 "$demo"
expect 2 "--min-time" --min-time -1 "$demo"
expect 2 "--characters" --characters 0 "$demo"
expect 2 "unknown option '--frobnicate'" --frobnicate "$demo"
expect 2 "--cold-mib" --cold-mib 0 "$demo"
expect 2 "--game-rate" --game-rate nan "$demo"
expect 2 "--crowd-frames" --crowd-frames 0 "$demo"
expect 2 "--seed" --seed -1 "$demo"
expect 2 "--jobs" --jobs 0 "$demo"
expect 2 "--json needs a value" "$demo" --json
expect 2 "--simd: 'avx1024' is not scalar, sse2, avx2 or avx512" --simd avx1024 "$demo"
expect 2 "--simd needs a value" "$demo" --simd
expect 1 "--crowd-clip: missing.glb: no such file" --crowd-clip missing.glb "$demo"
expect 1 "missing.glb: no such file or folder" missing.glb
printf 'HIERARCHY\nROOT hips\n{\n  OFFSET 0 0\n' >broken.bvh
echo keep >kept.json
expect 1 "broken.bvh" --json kept.json broken.bvh
[ "$(cat kept.json)" = keep ] || fail "a failed run changed the existing JSON file"
expect 1 "no animation is named 'NoSuchAnimation'" --quick "$demo#NoSuchAnimation"
ls -A | grep -q '\.tmp' && fail "temporary files left behind"
echo "bench CLI tests passed"
