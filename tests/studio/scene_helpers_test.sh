#!/usr/bin/env bash
# Only bones are bones (issue 42), as a person sees it in the studio under
# Xvfb: a skinned character exported beside a camera that flies 40 m away
# (Camera01), its look-at node (Camera01.Target) and a light 90 m up (Sky01,
# KHR_lights_punctual), made here as glTF.
#   a) the Bones panel lists the rig's two bones and nothing else;
#   b) the character fills its view: a camera taken for a bone would frame
#      the scene 90 m across and leave the character a few pixels;
#   c) the same character without the camera and the light is framed alike:
#      the two views differ by little.
#   scene_helpers_test.sh STUDIO PNG_CHECK WORK_DIR
# Needs xvfb-run (Debian package xvfb) and python3.

set -euo pipefail
studio=$1 png_check=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"

BG=41,43,48          # viewport clear colour (kClearColor in app/studio/viewport/viewport_panel.cpp)
GRID=69,71,79        # ground grid line colour (kGridColor)
COLOR_TOLERANCE=8    # per channel: how near BG or GRID a pixel is background
FILLS_MIN=0.08       # b) the character covers at least this much of its view
LABEL_ROWS=26        # rows at the top and bottom of a view that hold its labels
SAME_VIEW_MAX_MEAN=2 # c) mean absolute difference per channel, 0..255

# write_rig PATH WITH_HELPERS: a box 0.4 x 1.6 x 0.3 m skinned to "Hips"
# and "Chest" (the chest bends over 1 s), with or without the camera, its
# target and the light.
write_rig() {
  python3 - "$1" "$2" <<'PY'
import base64, json, math, struct, sys
path, helpers = sys.argv[1], sys.argv[2] == "1"
w, h, d = 0.2, 1.6, 0.15
corners = [(x, y, z) for y in (0.0, h) for z in (-d, d) for x in (-w, w)]
positions = [c for p in corners for c in p]
joints = [0 if p[1] == 0.0 else 1 for p in corners]
faces = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
         (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
indices = [i for f in faces for i in f]
times = [0.0, 0.5, 1.0]
bend = [(0, 0, math.sin(a / 2), math.cos(a / 2)) for a in (0.0, 0.4, 0.0)]
fly = [(0, 1, 40), (15, 1, 40), (30, 1, 40)]
blob = b""
views, accessors = [], []
def add(data, fmt, count, kind, ctype=5126, target=None):
    global blob
    while len(blob) % 4:
        blob += b"\0"
    raw = struct.pack("<" + fmt * (len(data)), *data)
    view = {"buffer": 0, "byteOffset": len(blob), "byteLength": len(raw)}
    if target: view["target"] = target
    views.append(view)
    blob += raw
    acc = {"bufferView": len(views) - 1, "componentType": ctype, "count": count, "type": kind}
    if kind == "VEC3" and ctype == 5126 and target == 34962:
        acc["min"] = [min(data[i::3]) for i in range(3)]
        acc["max"] = [max(data[i::3]) for i in range(3)]
    if kind == "SCALAR" and ctype == 5126:
        acc["min"], acc["max"] = [min(data)], [max(data)]
    accessors.append(acc)
    return len(accessors) - 1
pos = add(positions, "f", 8, "VEC3", target=34962)
jnt = add([v for j in joints for v in (j, 0, 0, 0)], "H", 8, "VEC4", 5123, 34962)
wgt = add([v for _ in joints for v in (1.0, 0.0, 0.0, 0.0)], "f", 8, "VEC4", target=34962)
idx = add(indices, "H", len(indices), "SCALAR", 5123, 34963)
ibm = add([1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1,  1,0,0,0, 0,1,0,0, 0,0,1,0, 0,-0.8,0,1], "f", 2, "MAT4")
t_in = add(times, "f", 3, "SCALAR")
r_out = add([c for q in bend for c in q], "f", 3, "VEC4")
nodes = [{"name": "Hips", "children": [1]}, {"name": "Chest", "translation": [0, 0.8, 0]},
         {"name": "Body", "mesh": 0, "skin": 0}]
samplers = [{"input": t_in, "output": r_out, "interpolation": "LINEAR"}]
channels = [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]
scene_nodes = [0, 2]
doc = {"asset": {"version": "2.0"}, "scene": 0}
if helpers:
    f_out = add([c for p in fly for c in p], "f", 3, "VEC3")
    nodes += [{"name": "Camera01", "camera": 0, "translation": [0, 1, 40]},
              {"name": "Camera01.Target", "translation": [0, 1, 0]},
              {"name": "Sky01", "translation": [0, 90, 0], "extensions": {"KHR_lights_punctual": {"light": 0}}}]
    scene_nodes += [3, 4, 5]
    samplers.append({"input": t_in, "output": f_out, "interpolation": "LINEAR"})
    channels.append({"sampler": 1, "target": {"node": 3, "path": "translation"}})
    doc["cameras"] = [{"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.1}}]
    doc["extensionsUsed"] = ["KHR_lights_punctual"]
    doc["extensions"] = {"KHR_lights_punctual": {"lights": [{"type": "directional"}]}}
doc.update({"scenes": [{"nodes": scene_nodes}], "nodes": nodes,
            "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "JOINTS_0": jnt, "WEIGHTS_0": wgt},
                                        "indices": idx}]}],
            "skins": [{"joints": [0, 1], "inverseBindMatrices": ibm}],
            "animations": [{"name": "bend", "samplers": samplers, "channels": channels}],
            "buffers": [{"byteLength": len(blob),
                         "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
            "bufferViews": views, "accessors": accessors})
open(path, "w").write(json.dumps(doc))
PY
}

write_rig "$work/shot.gltf" 1
write_rig "$work/plain.gltf" 0

# run NAME FILE: the studio's screenshot of FILE at frame 10, coloured by
# material (the same colours on both files); exits 0.
run() {
  run_studio 1600x1000 "$1" "$2" --screenshot "$work/$1.png" --frame 10 --color material
  expect_exit "$1" 0
}
run shot "$work/shot.gltf"
run plain "$work/plain.gltf"

# a) the Bones panel: two rows.
line=$(grep '^bones ' "$work/shot.out" || fail "shot: no 'bones' line in: $(cat "$work/shot.out")")
[[ $line =~ ^bones\ 2\ rows ]] || fail "shot: expected the rig's 2 bones, got: $line"
echo "ok: a) $line"

# The compressed view's body, from the "view" lines the studio printed.
view_of() {
  local kind x y w h
  while read -r _ kind x y w h; do
    [ "$kind" = compressed ] && echo "$x,$((y + LABEL_ROWS)),$w,$((h - 2 * LABEL_ROWS))"
  done < <(grep '^view ' "$work/$1.out" || true)
}
shot_view=$(view_of shot)
plain_view=$(view_of plain)
[ -n "$shot_view" ] && [ -n "$plain_view" ] || fail "no compressed view line: $(cat "$work/shot.out")"

# b) the character fills its view.
check_that "b) the character fills its view" "$work/shot.png" --region "$shot_view" \
  --count unlike "$BG/$GRID" --tolerance "$COLOR_TOLERANCE" --min-fraction "$FILLS_MIN"

# c) framed as the character alone is.
check_that "c) framed as without the camera and the light" "$work/shot.png" --region "$shot_view" \
  --diff "$work/plain.png" --other-region "$plain_view" --max-mean "$SAME_VIEW_MAX_MEAN"
echo "all scene helper checks passed"
