#!/usr/bin/env bash
# Additive clips through the command line (issue 40): compress
# --additive-base first-frame, bind-pose and FILE#ANIMATION; info and the
# reports name the base; verify checks the composed pose against the base
# the stream records, finds a moved base only when told, and refuses a base
# of another kind; bad bases are refused naming what is wrong.
#   additive_test.sh KEYSTREAM CLIPS_DIR WORK_DIR
set -euo pipefail
ks=$1 clips=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/cli_test_env.sh
source "$(dirname "$0")/cli_test_env.sh"

robot="$work/robot.glb"
cp "$clips/robot.glb" "$robot"
cd "$work"

# --- the clip's own first frame and its bind pose.
for base in first-frame bind-pose; do
  run 0 "$ks" compress robot.glb --animation Robot_Wave --additive-base "$base" -o "wave_$base.ks" --json "$base.json"
  shows "additive to $base"
  python3 -c "import json, sys
c = json.load(open(sys.argv[1]))['clips'][0]
assert c['additive'] == {'base': sys.argv[2], 'base_name': ''}, c.get('additive')
assert c['bones_over'] == 0" "$base.json" "$base" || fail "compress --json does not record the $base base"
  run 0 "$ks" info "wave_$base.ks"
  shows "additive         yes, base $base"
  run 0 "$ks" verify robot.glb "wave_$base.ks"
  run 0 "$ks" measure robot.glb --animation Robot_Wave --additive-base "$base"
  shows "additive         to $base (errors on the pose composed on it)"
done
# inspect shows how far the layer moves the bones.
run 0 "$ks" inspect robot.glb --animation Robot_Wave --additive-base robot.glb#Robot_Idle
shows "additive    to clip robot.glb#Robot_Idle: rotations up to 96.77 deg (bone 'LowerArm.R', frame 16)"
# A layer over a base clip, which varies per frame, keeps none of the
# source's keys; the clip alone keeps its LINEAR channels' (docs/curves.md).
shows "source keys none: every track sampled"
run 0 "$ks" inspect robot.glb --animation Robot_Wave
shows "source keys 129 linear (5805 keys); the other tracks sampled"
# A stream is checked as what it is: not against the clip as it is.
run 0 "$ks" compress robot.glb --animation Robot_Wave -o plain.ks
run 1 "$ks" verify robot.glb plain.ks --additive-base first-frame
shows "the stream is not additive, but an additive base was given"
run 1 "$ks" verify robot.glb wave_first-frame.ks --additive-base bind-pose
shows "the stream is additive to first-frame, but the base given is bind-pose"

# --- another animation as the base, frame by frame; recorded with its name.
run 0 "$ks" compress robot.glb --animation Robot_Wave --additive-base robot.glb#Robot_Idle -o wave_on_idle.ks
shows "additive to robot.glb#Robot_Idle"
run 0 "$ks" info wave_on_idle.ks
shows "additive         yes, base clip 'robot.glb#Robot_Idle'"
run 0 "$ks" verify robot.glb wave_on_idle.ks
# By index, the same base.
run 0 "$ks" compress robot.glb --animation Robot_Wave --additive-base 'robot.glb#2' -o wave_on_2.ks
cmp -s wave_on_idle.ks wave_on_2.ks || fail "robot.glb#2 and robot.glb#Robot_Idle made different streams"
# Moved: verify says where it looked and how to name it; named, it passes.
mkdir -p moved && mv robot.glb moved/robot.glb
run 1 "$ks" verify moved/robot.glb wave_on_idle.ks
shows "which is neither where it was nor beside the stream: name it with --additive-base FILE[#ANIMATION]"
run 0 "$ks" verify moved/robot.glb wave_on_idle.ks --additive-base moved/robot.glb#Robot_Idle
mv moved/robot.glb robot.glb
# From another folder, the base recorded as robot.glb is found beside the stream.
mkdir -p elsewhere && cd elsewhere
run 0 "$ks" verify ../robot.glb ../wave_on_idle.ks
cd "$work"

# --- export writes the layer, and says so.
run 0 "$ks" export wave_first-frame.ks -o wave_layer.glb
shows "the stream is an additive layer (to first-frame): the animation written is the layer itself"

# --- bad bases.
run 2 "$ks" compress robot.glb --additive-base no_such.glb -o bad.ks
shows "--additive-base: the additive base \"no_such.glb\" is neither first-frame, bind-pose nor an existing file"
run 2 "$ks" compress robot.glb --additive-base 'robot.glb#' -o bad.ks
shows "names no animation after '#'"
run 1 "$ks" compress robot.glb --additive-base robot.glb#Robot_Sleep -o bad.ks
shows "additive base robot.glb#Robot_Sleep"
shows "Robot_Idle"
run 1 "$ks" compress robot.glb --additive-base "$clips/cmu_cgspeed_01_01.bvh" -o bad.ks
shows "bones, the clip 44: an additive base must be on the clip's skeleton"
[ ! -e bad.ks ] || fail "a refused base left bad.ks behind"
echo "additive: ok"
