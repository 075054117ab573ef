#!/usr/bin/env bash
# keystream-studio screenshot mode, end to end under Xvfb with Mesa's
# software OpenGL: the demo clip, a selected bone at another frame, a smaller
# window and a shared BVH clip each render the whole UI (the right size, not
# blank, the four panels' title bars visible); bad files fail with exit 1, a
# message naming the file and no PNG; bad options fail with exit 2.
#   screenshot_test.sh STUDIO PNG_CHECK ASSETS_DIR CLIPS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb) and python3. WORK_DIR keeps every
# screenshot and the studio's output of each run (NAME.png, NAME.err).
set -euo pipefail
studio=$1 png_check=$2 assets=$3 clips=$4 work=$5
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v xvfb-run >/dev/null || fail "xvfb-run not found (install the Debian package xvfb)"

# Mesa's software rasteriser: no GPU needed, and the same pixels everywhere.
export LIBGL_ALWAYS_SOFTWARE=1
# In the sanitizer build, LeakSanitizer would report the allocations Mesa's
# driver keeps until exit; the driver is unloaded by then, so its frames show
# as "<unknown module>" and cannot be suppressed by name. Leaks stay checked
# for everything else (the ks_tests cover the studio's model code); ASan and
# UBSan still abort on any error in the studio.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# The studio prefers a layout the user saved over the committed imgui.ini;
# an empty config folder of our own makes it use the committed one.
export XDG_CONFIG_HOME="$work/config"
mkdir -p "$XDG_CONFIG_HOME"

# run_studio NAME ARGS...: runs the studio on a fresh X server, its output in
# $work/NAME.out and NAME.err; sets rc and ran (the command, for messages).
# A hung studio is killed after 300 s (exit 124) rather than blocking ctest.
run_studio() {
  local name=$1; shift
  ran="keystream-studio $*"
  rc=0
  timeout 300 xvfb-run -a -s "-screen 0 1920x1200x24" "$studio" "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
}

# shot NAME ARGS...: screenshot mode succeeds and writes $work/NAME.png.
shot() {
  local name=$1; shift
  local png="$work/$name.png"
  run_studio "$name" "$@" --screenshot "$png"
  [ "$rc" -eq 0 ] || fail "'$ran' exited $rc, expected 0; stderr: $(cat "$work/$name.err")"
  [ -s "$png" ] || fail "'$ran' exited 0 but wrote no $png"
}

# check PNG CHECKS...: ks_png_check passes; its report goes to the test log.
check() {
  local out rc_check=0
  out=$("$png_check" "$@" 2>&1) || rc_check=$?
  [ "$rc_check" -eq 0 ] || fail "ks_png_check $* exited $rc_check:
$out"
  echo "$out"
}

# bad_file NAME FILE: the studio refuses FILE with exit 1 (not a crash), names
# it on stderr and writes no PNG.
bad_file() {
  local name=$1 file=$2
  local png="$work/$name.png"
  run_studio "$name" "$file" --screenshot "$png"
  [ "$rc" -eq 1 ] || fail "'$ran' exited $rc, expected 1; stderr: $(cat "$work/$name.err")"
  grep -qF -- "$(basename "$file")" "$work/$name.err" \
    || fail "'$ran': stderr does not name $(basename "$file"): $(cat "$work/$name.err")"
  [ ! -e "$png" ] || fail "'$ran' failed but wrote $png"
  echo "ok: $name: exit 1, $(head -n 1 "$work/$name.err")"
}

# bad_usage NAME TEXT ARGS...: the studio refuses the command line with exit
# 2 and a message mentioning TEXT, and writes no PNG.
bad_usage() {
  local name=$1 text=$2; shift 2
  local png="$work/$name.png"
  run_studio "$name" "$@" --screenshot "$png"
  [ "$rc" -eq 2 ] || fail "'$ran' exited $rc, expected 2; stderr: $(cat "$work/$name.err")"
  grep -qF -- "$text" "$work/$name.err" || fail "'$ran': stderr does not mention '$text': $(cat "$work/$name.err")"
  [ ! -e "$png" ] || fail "'$ran' failed but wrote $png"
  echo "ok: $name: exit 2, $(head -n 1 "$work/$name.err")"
}

# The committed layout shows Settings, Stats, Curves and Bones: four title bars.
shot demo "$assets/demo_walk.glb"
check "$work/demo.png" --size 1600x1000 --not-blank --has-panels 4

# No FILE opens the demo clip; a selected bone at frame 20 changes the picture.
shot selected --select left_forearm --frame 20
check "$work/selected.png" --size 1600x1000 --not-blank --has-panels 4
check "$work/selected.png" --diff "$work/demo.png" --min-mean 0.01

shot small "$assets/demo_walk.glb" --size 1280x800
check "$work/small.png" --size 1280x800 --not-blank --has-panels 4

if [ -f "$clips/cmu_cgspeed_01_01.bvh" ]; then
  shot cgspeed "$clips/cmu_cgspeed_01_01.bvh"
  check "$work/cgspeed.png" --size 1600x1000 --not-blank --has-panels 4
else
  echo "skipped: $clips/cmu_cgspeed_01_01.bvh is not there"
fi

# Bad files. The random bytes come from a fixed seed so that a failure repeats.
bad_file missing "$work/missing.glb"
head -c 100 "$assets/demo_walk.glb" >"$work/truncated.glb"
bad_file truncated "$work/truncated.glb"
python3 -c 'import random, sys; r = random.Random(20240601); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(4096)))' \
  >"$work/random.bvh"
bad_file random "$work/random.bvh"

# Bad command lines.
bad_usage tiny_size "--size" "$assets/demo_walk.glb" --size 10x10
bad_usage garbage_size "--size" "$assets/demo_walk.glb" --size wide
bad_usage unknown_flag "--frobnicate" "$assets/demo_walk.glb" --frobnicate
bad_usage bad_frame "--frame" "$assets/demo_walk.glb" --frame soon
bad_usage no_such_bone "no_such_bone" "$assets/demo_walk.glb" --select no_such_bone
bad_usage drag_not_seconds "--simulate-drag" "$assets/demo_walk.glb" --simulate-drag soon
bad_usage drag_negative "--simulate-drag" "$assets/demo_walk.glb" --simulate-drag -1

echo "all studio screenshot checks passed"
