#!/usr/bin/env bash
# ks_png_check on tiny PNGs whose pixels are known: each counting check
# (--count like|unlike, --count-dominant) and the two-region --diff that the
# screenshot tests lean on pass where they should, fail (exit 1) where they
# should, and bad arguments exit 2 with a message naming the option.
#   png_check_test.sh PNG_CHECK WORK_DIR
# Needs python3 (its zlib writes the PNGs; PIL is not needed).
set -euo pipefail
png_check=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# scene.png, 40x20: background 40,44,52 and a grid row (y 16) of 90,90,100.
#   Left half (x 0..19, 400 px): a 5x8 block of 180,170,160 (40 px, 0.1) and
#     8 pixels of 45,48,57 (within 5 of the background) on row 2.
#   Right half (x 20..39, 400 px): a 5x8 red block 220,40,30 (40 px, 0.1),
#     4x5 green 40,200,60 (20 px, 0.05), 2x5 blue 30,50,210 (10 px, 0.025)
#     and 10 px of 130,100,95 on row 12 (red by 30, under the default margin).
# twin.png: the same size, its right half a copy of scene's left half.
python3 - "$work" <<'PY'
import struct, sys, zlib

def write_png(path, width, height, pixel):  # pixel(x, y) -> (r, g, b)
    rows = b"".join(b"\0" + bytes(c for x in range(width) for c in pixel(x, y)) for y in range(height))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))

rects = [  # x0, y0, x1, y1 (exclusive), colour; later ones on top
    (0, 16, 40, 17, (90, 90, 100)),
    (4, 4, 9, 12, (180, 170, 160)),
    (12, 2, 20, 3, (45, 48, 57)),
    (24, 4, 29, 12, (220, 40, 30)),
    (30, 4, 34, 9, (40, 200, 60)),
    (34, 4, 36, 9, (30, 50, 210)),
    (30, 12, 40, 13, (130, 100, 95)),
]
def scene(x, y):
    for x0, y0, x1, y1, color in reversed(rects):
        if x0 <= x < x1 and y0 <= y < y1:
            return color
    return (40, 44, 52)
write_png(sys.argv[1] + "/scene.png", 40, 20, scene)
write_png(sys.argv[1] + "/twin.png", 40, 20, lambda x, y: scene(x % 20, y))
PY

scene="$work/scene.png" twin="$work/twin.png"
left=0,0,20,20 right=20,0,20,20
BG=40,44,52 GRID=90,90,100

# expect CODE TEXT ARGS...: ks_png_check ARGS exits CODE and its output
# mentions TEXT.
expect() {
  local code=$1 text=$2; shift 2
  local out rc=0
  out=$("$png_check" "$@" 2>&1) || rc=$?
  [ "$rc" -eq "$code" ] || fail "ks_png_check $* exited $rc, expected $code:
$out"
  grep -qF -- "$text" <<<"$out" || fail "ks_png_check $* did not mention '$text':
$out"
  echo "ok: exit $code: $*"
}

# --count unlike: the 40 block pixels of the left half; the near-background
# pixels join them only under a tolerance tighter than their 5.
expect 0 "fraction 0.1000 (40 of 400 pixels)" "$scene" --region $left --count unlike $BG/$GRID --min-fraction 0.09 --max-fraction 0.11
expect 1 "fraction 0.1000" "$scene" --region $left --count unlike $BG/$GRID --min-fraction 0.11
expect 1 "FAIL --count unlike $BG/$GRID --max-fraction 0.09" "$scene" --region $left --count unlike $BG/$GRID --max-fraction 0.09
expect 0 "fraction 0.1200" "$scene" --region $left --count unlike $BG/$GRID --tolerance 4 --min-fraction 0.119 --max-fraction 0.121
expect 1 "fraction 0.1200" "$scene" --region $left --count unlike $BG/$GRID --tolerance 4 --max-fraction 0.11
# Without the grid colour its row counts too.
expect 1 "fraction 0.1500" "$scene" --region $left --count unlike $BG --max-fraction 0.11
# --count like: background and near-background, not the grid or the block.
expect 0 "fraction 0.8500" "$scene" --region $left --count like $BG --min-fraction 0.849 --max-fraction 0.851
expect 1 "fraction 0.8500" "$scene" --region $left --count like $BG --min-fraction 0.9
expect 1 "fraction 0.0000" "$scene" --region $left --count like 255,255,255 --min-fraction 0.01
# The report lists the most common colours, background first.
expect 0 "most common colours: $BG 0.8300, 180,170,160 0.1000, $GRID 0.0500, 45,48,57 0.0200" "$scene" --region $left --count like $BG --min-fraction 0

# --count-dominant: only the right half has red, green and blue pixels.
expect 0 "fraction 0.1000 (40 of 400 pixels) red" "$scene" --region $right --count-dominant red --min-fraction 0.09 --max-fraction 0.11
expect 1 "FAIL --count-dominant red --min-fraction 0.11" "$scene" --region $right --count-dominant red --min-fraction 0.11
expect 1 "FAIL --count-dominant red --max-fraction 0.09" "$scene" --region $right --count-dominant red --max-fraction 0.09
expect 0 "fraction 0.0000" "$scene" --region $left --count-dominant red --max-fraction 0
expect 1 "fraction 0.0000" "$scene" --region $left --count-dominant red --min-fraction 0.01
# A margin of 30 takes in the pixels red by only 30.
expect 0 "fraction 0.1250" "$scene" --region $right --count-dominant red --margin 30 --min-fraction 0.12 --max-fraction 0.13
expect 1 "fraction 0.1250" "$scene" --region $right --count-dominant red --margin 30 --max-fraction 0.11
expect 0 "green 0.0500, blue 0.0250" "$scene" --region $right --count-dominant red --min-fraction 0.09
expect 0 "fraction 0.0500" "$scene" --region $right --count-dominant green --min-fraction 0.04 --max-fraction 0.06
expect 1 "fraction 0.0500" "$scene" --region $right --count-dominant green --min-fraction 0.06
expect 0 "fraction 0.0250" "$scene" --region $right --count-dominant blue --min-fraction 0.02 --max-fraction 0.03
expect 1 "fraction 0.0250" "$scene" --region $right --count-dominant blue --max-fraction 0.02

# Counting and other checks together; a count in a region outside the image.
expect 0 "PASS --size 40x20" "$scene" --size 40x20 --count unlike $BG/$GRID --min-fraction 0.1
expect 1 "does not fit" "$scene" --region 30,0,20,20 --count unlike $BG --min-fraction 0

# --diff of two regions of one image: twin's halves match, scene's do not.
expect 0 "mean |difference| 0.000" "$twin" --region $left --diff "$twin" --other-region $right --max-mean 0
expect 1 "FAIL --diff --max-mean 0" "$scene" --region $left --diff "$scene" --other-region $right --max-mean 0
expect 0 "PASS --diff --min-mean 1" "$scene" --region $left --diff "$scene" --other-region $right --min-mean 1

# Bad command lines: exit 2, naming what is wrong.
expect 2 "--count: 'sideways' is not like or unlike" "$scene" --count sideways $BG --min-fraction 0
for colors in 256,0,0 -1,0,0 1,2 1,2,3,4 1,2,3/ /1,2,3 1,,3 red ""; do
  expect 2 "--count: '$colors' is not R,G,B" "$scene" --count like "$colors" --min-fraction 0
done
expect 2 "--count like needs R,G,B" "$scene" --count like
expect 2 "--count needs --min-fraction or --max-fraction" "$scene" --count unlike $BG
expect 2 "--count-dominant: 'purple' is not red, green or blue" "$scene" --count-dominant purple --min-fraction 0
expect 2 "--count-dominant needs --min-fraction or --max-fraction" "$scene" --count-dominant red
expect 2 "one --count or --count-dominant per call" "$scene" --count like $BG --count-dominant red --min-fraction 0
expect 2 "one --count or --count-dominant per call" "$scene" --count like $BG --count unlike $BG --min-fraction 0
for fraction in 1.5 -0.1 nan inf half ""; do
  expect 2 "--min-fraction: '$fraction' is not a fraction" "$scene" --count like $BG --min-fraction "$fraction"
  expect 2 "--max-fraction: '$fraction' is not a fraction" "$scene" --count-dominant red --max-fraction "$fraction"
done
expect 2 "--min-fraction is above --max-fraction" "$scene" --count like $BG --min-fraction 0.5 --max-fraction 0.4
expect 2 "--min-fraction and --max-fraction need --count" "$scene" --size 40x20 --min-fraction 0.5
for tolerance in 256 -1 8.5; do
  expect 2 "--tolerance: '$tolerance' is not a whole number from 0 to 255" "$scene" --count like $BG --tolerance "$tolerance" --min-fraction 0
done
expect 2 "--tolerance needs --count" "$scene" --count-dominant red --tolerance 4 --min-fraction 0
for margin in 0 256 wide; do
  expect 2 "--margin: '$margin' is not a whole number from 1 to 255" "$scene" --count-dominant red --margin "$margin" --min-fraction 0
done
expect 2 "--margin needs --count-dominant" "$scene" --count like $BG --margin 30 --min-fraction 0
expect 3 "cannot read" "$work/missing.png" --count like $BG --min-fraction 0

echo "all ks_png_check self-tests passed"
