#!/usr/bin/env bash
# keystream bench, end to end on the demo clip with --quick (a smoke run: the
# numbers are not measurements, but every table must be there and agree with
# what the other commands say). Arguments: the keystream binary, the assets
# folder, a temp folder.
set -euo pipefail
keystream=$1
assets=$2
work=$3
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
grep -qF "rate-distortion 1/1: demo_walk.glb#walk" progress.txt || fail "no progress on stderr"

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
points = rd[0]["points"]
check([p["threshold_scale"] for p in points] == [0.5, 1.0, 2.0], "the --quick scales")
default = points[1]
clip = compress["clips"][0]
check(default["stream_bytes"] == clip["packed_bytes"], "default point bytes %d == compress packed bytes %d"
      % (default["stream_bytes"], clip["packed_bytes"]))
check(default["zstd_bytes"] == clip["packed_zstd_bytes"], "default point zstd bytes == compress zstd bytes")
check(default["key_count"] == clip["keys"], "default point keys == compress keys")
check(abs(default["max_object_error_m"]["at_0_03_m"] - clip["object_space_error"][0]["max_m"]) < 1e-9,
      "default point's object-space error at 3 cm == compress's")
for p in points:
    check(p["tracks_over_threshold"] == 0, "the bound holds at scale %g" % p["threshold_scale"])
    check(p["max_track_error"]["translation_m"] <= p["translation_error_m"], "translation within threshold")
    check(p["max_object_error_m"]["at_0_03_m"] <= p["max_object_error_m"]["at_1_m"], "error grows with distance")
check(points[0]["stream_bytes"] >= points[1]["stream_bytes"] >= points[2]["stream_bytes"], "looser is smaller")
target = rd[0]["object_error_target"]
check(target["point"] is not None, "a point within 0.1 mm at 3 cm")
check(target["point"]["max_object_error_m"]["at_0_03_m"] <= 1e-4, "the target point meets 0.1 mm")

timings = report["timings"]
check(len(timings) == 1, "one timed clip")
rows = timings[0]["rows"]
check(len(rows) == 2 * 7, "7 measures warm and cold, got %d" % len(rows))
bones = timings[0]["bones"]
for r in rows:
    check(r["error"] == "", "row %s ran" % r["measure"])
    check(r["player_s_per_pose"]["median"] > 0 and r["baseline_s_per_pose"]["median"] > 0, "times measured")
    # The baseline reads a whole segment, 4 keys, for every track every pose.
    check(abs(r["baseline_keys_per_pose"] - 4 * 3 * bones) < 1e-9, "baseline reads 4 keys per track")
    # Playing forward the player reads only the keys that became due; a seek
    # reads a jump frame and the keys after it, which can be more.
    if r["measure"].startswith("sequential"):
        check(r["player_keys_per_pose"] < r["baseline_keys_per_pose"], "the player reads fewer keys (%s)" % r["measure"])
    else:
        check(r["player_keys_per_pose"] > 0, "a seek reads keys (%s)" % r["measure"])
    check((r["copies"] == 1) == (r["cache"] == "warm"), "warm rows use one copy, cold rows many")
check(timings[0]["fit_s"]["median"] > 0, "fit timed")
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

crowd = report["crowd"]
check(crowd["settings"]["characters"] == 56 and crowd["settings"]["game_frames"] == 556, "x42 defaults")
check(len(crowd["rows"]) == 4 and crowd["poses_identical"], "four variants, same poses")
base = crowd["rows"][0]
check(base["keys_read"] == 56 * 556 * 3 * bones * 4, "baseline keys read = characters x frames x tracks x 4")
check(all(r["keys_read"] < base["keys_read"] for r in crowd["rows"][1:]), "players read fewer keys")
check(all(r["run_s"]["median"] > 0 for r in crowd["rows"]), "crowd runs timed")
PY

# --only picks tables; --json - puts JSON on stdout and the tables on stderr.
"$keystream" bench --quick --only x42 --characters 4 --crowd-frames 30 --json - "$demo" >only.json 2>only.md
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["rate_distortion"] == [] and r["timings"] == [] and len(r["crowd"]["rows"]) == 4' only.json ||
  fail "--only x42 --json -"
grep -qF "## x42 crowd playback" only.md || fail "tables on stderr with --json -"
if grep -qF "## Rate–distortion" only.md; then fail "--only x42 printed the rate-distortion table"; fi

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
expect 2 "'0' is not a scale" --scales 0.5,0 "$demo"
expect 2 "--repetitions" --repetitions 0 "$demo"
expect 2 "--min-time" --min-time -1 "$demo"
expect 2 "--characters" --characters 0 "$demo"
expect 2 "unknown option '--frobnicate'" --frobnicate "$demo"
expect 2 "--target-error" --target-error 0 "$demo"
expect 2 "--cold-mib" --cold-mib 0 "$demo"
expect 2 "--game-rate" --game-rate nan "$demo"
expect 2 "--crowd-frames" --crowd-frames 0 "$demo"
expect 2 "--seed" --seed -1 "$demo"
expect 2 "--jobs" --jobs 0 "$demo"
expect 2 "--json needs a value" "$demo" --json
expect 1 "--crowd-clip: missing.glb: no such file" --crowd-clip missing.glb "$demo"
expect 1 "missing.glb: no such file or folder" missing.glb
printf 'HIERARCHY\nROOT hips\n{\n  OFFSET 0 0\n' >broken.bvh
echo keep >kept.json
expect 1 "broken.bvh" --json kept.json broken.bvh
[ "$(cat kept.json)" = keep ] || fail "a failed run changed the existing JSON file"
expect 1 "no animation is named 'NoSuchAnimation'" --quick "$demo#NoSuchAnimation"
ls -A | grep -q '\.tmp' && fail "temporary files left behind"
echo "bench CLI tests passed"
