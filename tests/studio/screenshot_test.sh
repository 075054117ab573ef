#!/usr/bin/env bash
# keystream-studio screenshot mode, end to end under Xvfb with Mesa's
# software OpenGL: the demo clip, a selected bone at another frame, a smaller
# window, a shared BVH clip and a glTF with 65,000-character names each
# render the whole UI (the right size, not
# blank, the six panels' title bars visible); bad files fail with exit 1, a
# message naming the file and no PNG; bad options fail with exit 2.
# The 3D viewport, from the view rectangles the studio prints:
#   a) side by side, --color material, a tight tolerance: a character in
#      both views, and the two views nearly the same picture;
#   b) a loose tolerance (--tolerance 100): the two views differ;
#   c) --color error, against the fit's own tolerance (the default): green
#      and little red in the compressed view at the default settings, and
#      at the loose tolerance too (the fit keeps what it promises); the loose
#      fit read against 0.1 mm (--colors-against): no green; --color changes
#      the compressed view only;
#   d) --view overlay: one view, wider than a side-by-side one, a character;
#   e) the shared BVH clip: a skeleton in both views, green in the
#      compressed one at the default settings;
#   f) bad --view, --color, --colors-against, tolerance and threshold values,
#      an unknown bone and mixed modes exit 2 naming the option;
#   h) Fox.glb at material colours wears its base colour texture.
#   screenshot_test.sh STUDIO PNG_CHECK ASSETS_DIR CLIPS_DIR WORK_DIR
# Needs xvfb-run (Debian package xvfb) and python3. WORK_DIR keeps every
# screenshot and the studio's output of each run (NAME.png, NAME.out,
# NAME.err).
#
# What the studio must do in --screenshot mode, besides writing the PNG:
# print to stdout one line per viewport view, in framebuffer (= PNG) pixels
# from the top-left corner:
#   view original X Y W H        side by side: the original pose, left
#   view compressed X Y W H      and the compressed one, right; same W and H
#   view overlay X Y W H         overlay mode: this line only
# Each view shows a flat clear colour (BG) with a ground grid of solid,
# unblended lines of one colour (GRID); everything else is character.

# ---------------------------------------------------------------------------
# PLACEHOLDERS, to be filled in by whoever knows the renderer: the viewport's
# clear colour and its grid line colour as they land in the PNG, R,G,B
# 0..255. While either is TODO the viewport checks stop at the first view
# with a failure listing that view's most common colours (both are there).
BG=41,43,48    # viewport clear colour (kClearColor in app/studio/viewport/viewport_panel.cpp)
GRID=69,71,79  # ground grid line colour (kGridColor)
# ---------------------------------------------------------------------------
# Numbers of the viewport checks, to tune on the first real renders. Fractions
# are of a view's pixels (0..1); means are ks_png_check --diff's mean
# absolute difference per channel (0..255).
PANELS=6                     # title bars: Settings, Stats, Curves, Bones, Viewport, Timeline
FRAME=20                     # the frame the viewport cases show
COLOR_TOLERANCE=8            # per channel, 0..255: how near BG or GRID a pixel is background
CHARACTER_MIN=0.02           # a view shows a character: at least this much is neither BG nor GRID ...
CHARACTER_MAX=0.6            # ... and at most this much (more: BG or GRID is wrong, or the camera is inside)
SKELETON_MIN=0.005           # the same for the BVH clip's skeleton, thin lines
TIGHT=(--tolerance 0.01)     # the tolerance of a near-lossless fit
LOOSE=(--tolerance 100)      # the tolerance of a visibly wrong one
LABEL_ROWS=26                # rows at the top and bottom of a view that hold its labels
SAME_POSE_MAX_MEAN=0.5       # a) original and compressed views at the tight tolerance
DIFFERENT_POSE_MIN_MEAN=1.5  # b) the same at the loose tolerance
SAME_VIEW_MAX_MEAN=0.5       # c) the original view with --color error and with --color material
RECOLORED_MIN_MEAN=1.0       # c) the compressed view with --color error and with --color material
# Green means "within the tolerance", red "past it" (kErrorRampStops in
# app/studio/viewport/viewport_scene.h), but the demo character's skin is reddish
# too. Fully lit, skin (0.80,0.52,
# 0.38 linear) has red above green and blue by 40 (sRGB output) to 71 levels
# (linear output), the ramp's red (0.90,0.15,0.10) by 135 to 192, and still
# by about 100 at half the light; the red margin sits between them.
RED_MARGIN=90                # --count-dominant red --margin, levels 0..255
GREEN_MARGIN=40              # --count-dominant green --margin; no material is green
LOOSE_GREEN_MAX=0.002        # c) loose fit against 0.1 mm: green in the compressed view, at most
GREEN_MIN=0.01               # c) within its tolerance: green in the compressed view, at least
RED_MAX=0.002                # c) red in the compressed view, at most
SKELETON_GREEN_MIN=0.003     # e) the BVH clip's green skeleton in the compressed view, at least
SKELETON_RED_MAX=0.0005      # e) red in it, at most
TEXTURE_RED_MARGIN=60        # h) orange fur: red above green and blue by this much, levels 0..255
TEXTURE_RED_MIN=0.02         # h) ... in at least this fraction of a view (0.063 measured; 0 untextured)
# ---------------------------------------------------------------------------

set -euo pipefail
studio=$1 png_check=$2 assets=$3 clips=$4 work=$5
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"

# studio_run NAME ARGS...: runs the studio on a fresh 1920x1200 X server, its
# output in $work/NAME.out and NAME.err; sets rc and ran (the command, for
# messages).
studio_run() {
  ran="keystream-studio ${*:2}"
  run_studio 1920x1200 "$@"
}

# shot NAME ARGS...: screenshot mode succeeds and writes $work/NAME.png.
shot() {
  local name=$1; shift
  local png="$work/$name.png"
  studio_run "$name" "$@" --screenshot "$png"
  [ "$rc" -eq 0 ] || fail "'$ran' exited $rc, expected 0; stderr: $(cat "$work/$name.err")"
  [ -s "$png" ] || fail "'$ran' exited 0 but wrote no $png"
}


# check PNG CHECKS...: check_that, named after the PNG.
check() { check_that "$(basename "$1")" "$@"; }

# bad_file NAME FILE: the studio refuses FILE with exit 1 (not a crash), names
# it on stderr and writes no PNG.
bad_file() {
  local name=$1 file=$2
  local png="$work/$name.png"
  studio_run "$name" "$file" --screenshot "$png"
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
  studio_run "$name" "$@" --screenshot "$png"
  [ "$rc" -eq 2 ] || fail "'$ran' exited $rc, expected 2; stderr: $(cat "$work/$name.err")"
  grep -qF -- "$text" "$work/$name.err" || fail "'$ran': stderr does not mention '$text': $(cat "$work/$name.err")"
  [ ! -e "$png" ] || fail "'$ran' failed but wrote $png"
  echo "ok: $name: exit 2, $(head -n 1 "$work/$name.err")"
}

# views NAME KIND...: run NAME printed exactly one line "view KIND X Y W H"
# per KIND, in that order, and no other view line; each view has a positive
# size. Sets view[KIND] to "X,Y,W,H" (for --region) and view_x[KIND],
# view_y, view_w and view_h to its numbers.
declare -A view view_x view_y view_w view_h
views() {
  local name=$1; shift
  local word kind x y w h rest kinds=()
  view=() view_x=() view_y=() view_w=() view_h=()
  while read -r word kind x y w h rest; do
    [[ $kind =~ ^[a-z]+$ && "$x $y $w $h" =~ ^[0-9]+\ [0-9]+\ [0-9]+\ [0-9]+$ && -z $rest && $w -gt 0 && $h -gt 0 ]] \
      || fail "$name: '$word $kind $x $y $w $h $rest' on stdout is not 'view KIND X Y W H' with W, H > 0"
    view[$kind]="$x,$y,$w,$h" view_x[$kind]=$x view_y[$kind]=$y view_w[$kind]=$w view_h[$kind]=$h
    kinds+=("$kind")
  done < <(grep '^view ' "$work/$name.out" || true)
  [ "${kinds[*]-}" = "$*" ] \
    || fail "$name: expected view lines for '$*' on stdout, found '${kinds[*]-}'; stdout: $(cat "$work/$name.out")"
}

# inside NAME KIND WIDTH HEIGHT: view KIND of run NAME lies in its
# WIDTHxHEIGHT screenshot.
inside() {
  local name=$1 kind=$2 width=$3 height=$4
  if [ $((view_x[$kind] + view_w[$kind])) -gt "$width" ] || [ $((view_y[$kind] + view_h[$kind])) -gt "$height" ]; then
    fail "$name: view $kind ${view[$kind]} does not fit in the ${width}x${height} screenshot"
  fi
}

# side_by_side NAME WIDTH HEIGHT: run NAME printed an original and a
# compressed view, the same size, side by side on one row (original left),
# both inside its WIDTHxHEIGHT screenshot.
side_by_side() {
  local name=$1 width=$2 height=$3
  views "$name" original compressed
  inside "$name" original "$width" "$height"
  inside "$name" compressed "$width" "$height"
  local both="original ${view[original]}, compressed ${view[compressed]}"
  [ "${view_w[original]},${view_h[original]}" = "${view_w[compressed]},${view_h[compressed]}" ] \
    || fail "$name: views differ in size: $both"
  [ "${view_y[original]}" -eq "${view_y[compressed]}" ] || fail "$name: views not on one row: $both"
  [ $((view_x[original] + view_w[original])) -le "${view_x[compressed]}" ] \
    || fail "$name: original view is not left of the compressed view: $both"
  echo "ok: $name: side by side, $both"
}

# colors_filled PNG REGION: BG and GRID are set. Until they are, fails with
# the most common colours of REGION, a view of PNG, which include both.
colors_filled() {
  [ "$BG" != TODO ] && [ "$GRID" != TODO ] && return 0
  local out
  out=$("$png_check" "$1" --region "$2" --count like 0,0,0 --min-fraction 0 2>&1 || true)
  fail "BG and GRID at the top of $(basename "$0") are still placeholders; set them to the viewport's clear and grid
colours. In view $2 of $1, $(grep -o 'most common colours:.*' <<<"$out")"
}

# body KIND: view KIND without its top and bottom LABEL_ROWS rows, where the
# studio writes what each view shows (the labels differ between the views).
body() {
  local kind=$1
  echo "${view_x[$kind]},$((view_y[$kind] + LABEL_ROWS)),${view_w[$kind]},$((view_h[$kind] - 2 * LABEL_ROWS))"
}

# character WHAT PNG REGION MIN: REGION shows something besides background
# and grid: at least MIN and at most CHARACTER_MAX of its pixels.
character() {
  local what=$1 png=$2 region=$3 min=$4
  colors_filled "$png" "$region"
  check_that "$what" "$png" --region "$region" --count unlike "$BG/$GRID" --tolerance "$COLOR_TOLERANCE" \
    --min-fraction "$min" --max-fraction "$CHARACTER_MAX"
}

# The committed layout's panels: Settings, Stats, Curves, Bones, Viewport and
# Timeline. The default viewport is side by side.
shot demo "$assets/demo_walk.glb"
check "$work/demo.png" --size 1600x1000 --not-blank --has-panels $PANELS
side_by_side demo 1600 1000

# No FILE opens the demo clip; a selected bone at frame 20 changes the picture.
shot selected --select left_forearm --frame 20
check "$work/selected.png" --size 1600x1000 --not-blank --has-panels $PANELS
check "$work/selected.png" --diff "$work/demo.png" --min-mean 0.01

shot small "$assets/demo_walk.glb" --size 1280x800
check "$work/small.png" --size 1280x800 --not-blank --has-panels $PANELS
side_by_side small 1280 800

if [ -f "$clips/cmu_cgspeed_01_01.bvh" ]; then
  shot cgspeed "$clips/cmu_cgspeed_01_01.bvh"
  check "$work/cgspeed.png" --size 1600x1000 --not-blank --has-panels $PANELS
else
  echo "skipped: $clips/cmu_cgspeed_01_01.bvh is not there"
fi

# Names from a hostile file: a bone and an animation named with 65,000
# characters (a stream holds up to 65,535) render with every panel showing
# them shortened; the whole of one put more than 65,536 vertices in a
# window's draw list, which Dear ImGui's 16-bit indices cannot hold (abort).
# A 70,000-character animation name, too long for a stream, makes the fit
# fail: its message, quoting the name, is shortened too.
# long_names_gltf FILE BONE_CHARS ANIMATION_CHARS: writes such a glTF.
long_names_gltf() {
  python3 - "$@" <<'PY'
import base64, json, struct, sys
path, bone, animation = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
buf = struct.pack("<2f", 0, 1) + struct.pack("<8f", 0, 0, 0, 1, 0, 0, 0.38268343, 0.9238795)
doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
       "nodes": [{"name": "B" * bone, "children": [1]}, {"name": "tip", "translation": [0, 0.5, 0]}],
       "buffers": [{"byteLength": len(buf),
                    "uri": "data:application/octet-stream;base64," + base64.b64encode(buf).decode()}],
       "bufferViews": [{"buffer": 0, "byteLength": 8}, {"buffer": 0, "byteOffset": 8, "byteLength": 32}],
       "accessors": [{"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
                     {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC4"}],
       "animations": [{"name": "A" * animation, "samplers": [{"input": 0, "output": 1}],
                       "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]}]}
open(path, "w").write(json.dumps(doc))
PY
}
long_names_gltf "$work/long_names.gltf" 65000 65000
shot long_names "$work/long_names.gltf" --select 0
check "$work/long_names.png" --size 1600x1000 --not-blank --has-panels $PANELS
long_names_gltf "$work/animation_name_too_long.gltf" 4 70000
bad_file animation_name_too_long "$work/animation_name_too_long.gltf"

# --- The viewport. ---
# a) Material colours at a tight tolerance (0.01 mm at 3 cm): the
# compressed pose is within a fraction of a pixel of the original, so the
# views nearly match.
shot tight_material "$assets/demo_walk.glb" --frame $FRAME --color material "${TIGHT[@]}"
png="$work/tight_material.png"
side_by_side tight_material 1600 1000
character "a) character in the original view" "$png" "${view[original]}" $CHARACTER_MIN
character "a) character in the compressed view" "$png" "${view[compressed]}" $CHARACTER_MIN
check_that "a) views nearly match at a tight tolerance" "$png" --region "$(body original)" \
  --diff "$png" --other-region "$(body compressed)" --max-mean $SAME_POSE_MAX_MEAN
tight_original=${view[original]} tight_compressed=${view[compressed]} tight_width=${view_w[original]}

# b) A loose tolerance: a visibly different compressed pose, still drawn.
shot loose_material "$assets/demo_walk.glb" --frame $FRAME --color material --view side-by-side "${LOOSE[@]}"
png="$work/loose_material.png"
side_by_side loose_material 1600 1000
character "b) character in the compressed view at a loose tolerance" "$png" "${view[compressed]}" $CHARACTER_MIN
check_that "b) views differ at a loose tolerance" "$png" --region "$(body original)" \
  --diff "$png" --other-region "$(body compressed)" --min-mean $DIFFERENT_POSE_MIN_MEAN

# c) Error colours (the default --color), against each bone's own tolerance
# from the fit (the default): at the default settings the fit holds 0.1 mm at
# 3 cm, so the compressed character is green with little red.
shot default_error "$assets/demo_walk.glb" --frame $FRAME
png="$work/default_error.png"
side_by_side default_error 1600 1000
check_that "c) green in the compressed view at the default settings" "$png" \
  --region "${view[compressed]}" --count-dominant green --margin $GREEN_MARGIN --min-fraction $GREEN_MIN
check_that "c) little red in the compressed view at the default settings" "$png" \
  --region "${view[compressed]}" --count-dominant red --margin $RED_MARGIN --max-fraction $RED_MAX

# The loose fit keeps its own (loose) promise: green too.
shot loose_error "$assets/demo_walk.glb" --frame $FRAME --color error "${LOOSE[@]}"
png="$work/loose_error.png"
side_by_side loose_error 1600 1000
character "c) character in the compressed view, error colours" "$png" "${view[compressed]}" $CHARACTER_MIN
check_that "c) green in the compressed view of a loose fit against its own tolerance" "$png" \
  --region "${view[compressed]}" --count-dominant green --margin $GREEN_MARGIN --min-fraction $GREEN_MIN
check_that "c) little red in the compressed view of a loose fit against its own tolerance" "$png" \
  --region "${view[compressed]}" --count-dominant red --margin $RED_MARGIN --max-fraction $RED_MAX

# Read against 0.1 mm at 3 cm instead, the loose fit's errors are far past it
# (red, then magenta at twice it): nothing of the compressed character is green.
shot loose_against "$assets/demo_walk.glb" --frame $FRAME "${LOOSE[@]}" --colors-against 0.1@3
png="$work/loose_against.png"
side_by_side loose_against 1600 1000
character "c) character in the compressed view against 0.1 mm" "$png" "${view[compressed]}" $CHARACTER_MIN
check_that "c) no green in the compressed view of a loose fit against 0.1 mm" "$png" \
  --region "${view[compressed]}" --count-dominant green --margin $GREEN_MARGIN --max-fraction $LOOSE_GREEN_MAX

# --color recolours the compressed view and leaves the original alone.
shot tight_error "$assets/demo_walk.glb" --frame $FRAME "${TIGHT[@]}"
png="$work/tight_error.png"
side_by_side tight_error 1600 1000
check_that "c) --color leaves the original view alone" "$png" --region "${view[original]}" \
  --diff "$work/tight_material.png" --other-region "$tight_original" --max-mean $SAME_VIEW_MAX_MEAN
check_that "c) --color material and error colour the compressed view differently" "$png" \
  --region "${view[compressed]}" --diff "$work/tight_material.png" --other-region "$tight_compressed" \
  --min-mean $RECOLORED_MIN_MEAN

# d) Overlay: one view over the whole viewport, the character in it.
shot overlay "$assets/demo_walk.glb" --frame $FRAME --view overlay
views overlay overlay
inside overlay overlay 1600 1000
[ "${view_w[overlay]}" -gt "$tight_width" ] \
  || fail "d) overlay view ${view[overlay]} is not wider than a side-by-side view ($tight_width px)"
echo "ok: d) one overlay view, ${view[overlay]}, wider than a side-by-side view ($tight_width px)"
character "d) character in the overlay view" "$work/overlay.png" "${view[overlay]}" $CHARACTER_MIN

# e) A BVH clip has no mesh: its skeleton shows in both views.
if [ -f "$work/cgspeed.png" ]; then
  side_by_side cgspeed 1600 1000
  character "e) skeleton in the original view of the BVH clip" "$work/cgspeed.png" "${view[original]}" $SKELETON_MIN
  character "e) skeleton in the compressed view of the BVH clip" "$work/cgspeed.png" "${view[compressed]}" $SKELETON_MIN
  check_that "e) the BVH clip's compressed skeleton is green at the default settings" "$work/cgspeed.png" \
    --region "${view[compressed]}" --count-dominant green --margin $GREEN_MARGIN --min-fraction $SKELETON_GREEN_MIN
  check_that "e) little red in the BVH clip's compressed skeleton" "$work/cgspeed.png" \
    --region "${view[compressed]}" --count-dominant red --margin $RED_MARGIN --max-fraction $SKELETON_RED_MAX
fi

# h) A textured character: Fox.glb's base colour texture (orange fur over a
# white base colour factor) shows in both views at material colours; drawn
# without it the fox is grey, with no pixel red above green and blue by 60.
if [ -f "$clips/Fox.glb" ]; then
  shot fox "$clips/Fox.glb" --frame $FRAME --color material
  side_by_side fox 1600 1000
  for side in original compressed; do
    check_that "h) the textured fox is orange in the $side view" "$work/fox.png" \
      --region "${view[$side]}" --count-dominant red --margin $TEXTURE_RED_MARGIN --min-fraction $TEXTURE_RED_MIN
  done
fi

# g) A shader that does not compile: the studio still runs and renders,
# and says which file failed and why; the programs that built still draw.
mkdir -p "$work/broken_shaders"
cp "$assets/../shaders/"*.vert "$assets/../shaders/"*.frag "$work/broken_shaders/"
echo "this is not GLSL;" >>"$work/broken_shaders/skinned.frag"
shot broken_shader "$assets/demo_walk.glb" --shaders "$work/broken_shaders"
grep -q "skinned.frag" "$work/broken_shader.err" \
  || fail "g) a broken skinned.frag is not named on stderr: $(cat "$work/broken_shader.err")"
echo "ok: g) broken shader: $(grep -m 1 "skinned.frag" "$work/broken_shader.err")"
check "$work/broken_shader.png" --size 1600x1000 --not-blank --has-panels $PANELS

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
bad_usage play_not_seconds "--simulate-play" "$assets/demo_walk.glb" --simulate-play soon
# f) The viewport's options.
bad_usage view_sideways "--view" "$assets/demo_walk.glb" --view sideways
bad_usage color_pink "--color" "$assets/demo_walk.glb" --color pink
bad_usage colors_against_zero "--colors-against" "$assets/demo_walk.glb" --colors-against 0
bad_usage colors_against_pink "--colors-against" "$assets/demo_walk.glb" --colors-against 1@pink
# The fit's options: the tolerance, per-bone overrides, local mode's thresholds.
bad_usage tolerance_negative "--tolerance" "$assets/demo_walk.glb" --tolerance -1
bad_usage shell_nan "--shell-distance" "$assets/demo_walk.glb" --shell-distance nan
bad_usage bone_tolerance_garbage "--bone-tolerance" "$assets/demo_walk.glb" --bone-tolerance hips
bad_usage bone_tolerance_zero "--bone-tolerance" "$assets/demo_walk.glb" --bone-tolerance hips=0
bad_usage bone_tolerance_twice "--bone-tolerance" "$assets/demo_walk.glb" --bone-tolerance hips=1 --bone-tolerance hips=2
bad_usage bone_tolerance_unknown "no_such_bone" "$assets/demo_walk.glb" --bone-tolerance no_such_bone=0.1
bad_usage per_kind_without_local "--rotation-error" "$assets/demo_walk.glb" --rotation-error 0.5
bad_usage tolerance_with_local "--tolerance" "$assets/demo_walk.glb" --local --tolerance 0.5
bad_usage rotation_negative "--rotation-error" "$assets/demo_walk.glb" --local --rotation-error -1
bad_usage translation_nan "--translation-error" "$assets/demo_walk.glb" --local --translation-error nan
bad_usage scale_negative "--scale-error" "$assets/demo_walk.glb" --local --scale-error -1

# A per-bone override and local mode both fit and render.
shot bone_override "$assets/demo_walk.glb" --bone-tolerance left_forearm=0.05@2 --select left_forearm
check "$work/bone_override.png" --size 1600x1000 --not-blank --has-panels $PANELS
shot local_mode "$assets/demo_walk.glb" --local --rotation-error 0.2
check "$work/local_mode.png" --size 1600x1000 --not-blank --has-panels $PANELS

echo "all studio screenshot checks passed"
