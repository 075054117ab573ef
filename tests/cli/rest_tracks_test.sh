#!/usr/bin/env bash
# Rest tracks through the command line (format version 11): compress
# --rest-tracks skip codes the bone tracks that hold the skeleton's rest
# value as rest tracks (info lists them, verify passes, the stream is smaller
# without its metadata); keep, the default, codes none; measure takes the
# option too; a bad value exits 2 naming --rest-tracks.
#   rest_tracks_test.sh KEYSTREAM CLIPS_DIR WORK_DIR
set -euo pipefail
ks=$1 clips=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/cli_test_env.sh
source "$(dirname "$0")/cli_test_env.sh"

# glTF's interpolation test: nodes whose channels animate one property each,
# the others at the node's own (rest) value.
cp "$clips/interpolation_test.gltf" "$clips/interpolation_test.bin" "$work/"
cd "$work"
clip=interpolation_test.gltf
animation="Step Rotation"

# --- skip: rest tracks in the stream, listed by info, verified.
run 0 "$ks" compress "$clip" --animation "$animation" --rest-tracks skip -o skip.ks
run 0 "$ks" info skip.ks
shows "version 11, flags"
grep -E '^track codings .* rest [0-9]+;' out >/dev/null || fail "info lists no rest tracks: $(cat out)"
run 0 "$ks" info skip.ks --json
python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
assert d['track_codings'].get('rest', 0) > 0, d['track_codings']" out || fail "info --json counts no rest tracks"
run 0 "$ks" info skip.ks --tracks
grep -E '^track +[0-9]+ .* rest ' out >/dev/null || fail "info --tracks shows no rest track: $(cat out)"
run 0 "$ks" verify "$clip" skip.ks --animation "$animation"
shows "every bone within its tolerance at every frame"

# --- keep (the default, and named): no rest tracks; the same poses.
run 0 "$ks" compress "$clip" --animation "$animation" -o keep.ks
run 0 "$ks" compress "$clip" --animation "$animation" --rest-tracks keep -o keep_named.ks
cmp -s keep.ks keep_named.ks || fail "--rest-tracks keep is not the default"
run 0 "$ks" info keep.ks
if grep -qE '^track codings .* rest ' out; then fail "the default stream has rest tracks: $(cat out)"; fi
run 0 "$ks" verify "$clip" keep.ks --animation "$animation"
# The rest values move from the tables to the metadata: what an engine
# loads without the metadata is smaller.
python3 - skip.ks keep.ks <<'PY' || fail "the skip stream is not smaller without its metadata"
import struct, sys
def engine_bytes(path):
    data = open(path, "rb").read()
    return data, struct.unpack_from("<I", data, 40)[0]  # header_offset::kMetadataOffset
skip, skip_engine = engine_bytes(sys.argv[1])
keep, keep_engine = engine_bytes(sys.argv[2])
assert skip_engine < keep_engine, (skip_engine, keep_engine)
assert len(skip) <= len(keep) + 1, (len(skip), len(keep))
PY

# --- measure takes the option; a bad value is refused naming it.
run 0 "$ks" measure "$clip" --animation "$animation" --rest-tracks skip
run 2 "$ks" compress "$clip" --animation "$animation" --rest-tracks bogus -o bogus.ks
shows "--rest-tracks"
shows "bogus"
[ ! -e bogus.ks ] || fail "a refused compress wrote bogus.ks"
run 2 "$ks" measure "$clip" --animation "$animation" --rest-tracks
shows "--rest-tracks"
echo "rest tracks: ok"
