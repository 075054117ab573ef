#!/usr/bin/env bash
# A file that does not load ends every unattended run of the studio (issue
# 39: --simulate-play printed the error, then spun at 100 % CPU forever). On
# a missing file, a folder, a malformed glTF and an empty .ks, each of
# --simulate-play, --simulate-drag, --screenshot and a File menu action
# (--print-command) exits 1 within $studio_timeout seconds, with an error on
# stderr naming the file; --screenshot writes no PNG.
#   load_failure_test.sh STUDIO WORK_DIR
# Needs xvfb-run (Debian package xvfb).

set -euo pipefail
studio=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/studio_test_env.sh
source "$(dirname "$0")/studio_test_env.sh"
# Each run ends before a window opens, in about a second even under ASan;
# a run still going after this has hung.
studio_timeout=20

mkdir "$work/clips"
printf '{"asset": {"version": "2.0"}, "nodes": [' >"$work/malformed.gltf"
: >"$work/empty.ks"

for file in missing.glb clips malformed.gltf empty.ks; do
  for mode in play drag screenshot command; do
    name="${file%.*}_$mode"
    case $mode in
      play) args=(--simulate-play 5) ;;
      drag) args=(--simulate-drag 5) ;;
      screenshot) args=(--screenshot "$work/$name.png") ;;
      command) args=(--print-command) ;;
    esac
    run_studio 1600x1000 "$name" "$work/$file" "${args[@]}"
    [ "$rc" -ne 124 ] || fail "$name: still running after $studio_timeout s: $(cat "$work/$name.err")"
    expect_exit "$name" 1
    grep -qF -- "$file" "$work/$name.err" || fail "$name: stderr does not name $file: $(cat "$work/$name.err")"
    [ ! -e "$work/$name.png" ] || fail "$name: failed but wrote $name.png"
    echo "ok: $name: exit 1, $(head -n 1 "$work/$name.err")"
  done
done
echo "PASS"
