#!/usr/bin/env bash
# --bone-tolerances FILE on inputs that cannot hurt (issue 39): a file naming
# a million unknown bones is read and refused in linear time (the test's
# TIMEOUT is the guard: quadratic matching took minutes) with one short
# message that counts them; a bone named twice a million lines apart is
# found; each cap (file size, line length, line count) is refused naming the
# file and the limit; a 50 MB name never reaches stderr whole.
#   tolerance_file_test.sh KEYSTREAM ASSETS_DIR WORK_DIR
set -euo pipefail
ks=$1 assets=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
trap 'rm -rf "$work"' EXIT  # the inputs are tens of megabytes
fail() { echo "FAIL: $*" >&2; exit 1; }
demo="$assets/demo_walk.glb"
# refused TEXT MAX_BYTES CMD...: CMD exits 2, its stderr is one line of at most
# MAX_BYTES mentioning TEXT.
refused() {
  local text=$1 max=$2; shift 2
  local rc=0 what="keystream $2"  # not the whole command: it may hold a 100 kB argument
  "$@" >"$work/out" 2>"$work/err" || rc=$?
  [ "$rc" -eq 2 ] || fail "'$what' exited $rc, expected 2: $(head -c 2000 "$work/err")"
  local bytes lines
  bytes=$(wc -c <"$work/err") lines=$(wc -l <"$work/err")
  [ "$bytes" -le "$max" ] || fail "'$what': $bytes bytes on stderr (at most $max): $(head -c 2000 "$work/err")"
  [ "$lines" -eq 1 ] || fail "'$what': $lines lines on stderr: $(head -c 2000 "$work/err")"
  grep -qF -- "$text" "$work/err" || fail "'$what' did not mention '$text': $(cat "$work/err")"
}

# --- A million lines naming unknown bones (the line cap, short names): one
# message, a count and the first three names with their lines.
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write(''.join('u%d=0.5\n' % i for i in range(1000000)))" "$work/unknown.txt"
refused "1000000 bone tolerances name bones $demo does not have: \"u0\" (--bone-tolerances $work/unknown.txt:1), \"u1\" (--bone-tolerances $work/unknown.txt:2), \"u2\" (--bone-tolerances $work/unknown.txt:3) and 999997 more" \
  1000 "$ks" measure "$demo" --bone-tolerances "$work/unknown.txt"
refused "1000000 bone tolerances name bones" 1000 "$ks" compress "$demo" -o "$work/x.ks" --bone-tolerances "$work/unknown.txt"
[ -e "$work/x.ks" ] && fail "a refused compress wrote its output"
# 200,000 unknown names among known ones, as a rig's file for another rig would be.
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write('head=0.2\n# another rig\n')
    f.write(''.join('other_%d=1@2\n' % i for i in range(200000)))
    f.write('left_hand=0.05\n')" "$work/other_rig.txt"
refused "200000 bone tolerances name bones $demo does not have: \"other_0\" (--bone-tolerances $work/other_rig.txt:3)" \
  1000 "$ks" measure "$demo" --bone-tolerances "$work/other_rig.txt"
refused "and 199997 more" 1000 "$ks" measure "$demo" --bone-tolerances "$work/other_rig.txt"
# One bone named twice, a million lines apart.
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write('head=0.2\n')
    f.write(''.join('u%d=0.5\n' % i for i in range(999998)))
    f.write('head=0.3\n')" "$work/twice.txt"
refused "--bone-tolerances $work/twice.txt:1000000: bone \"head\" already has a tolerance (from --bone-tolerances $work/twice.txt:1)" \
  1000 "$ks" measure "$demo" --bone-tolerances "$work/twice.txt"

# --- The caps, each naming the file and the limit.
printf 'head=0.2\n' >"$work/large.txt"
truncate -s $((16 * 1024 * 1024 + 1)) "$work/large.txt"
refused "--bone-tolerances: '$work/large.txt': the file is 16777217 bytes; a tolerance file may hold at most 16777216 bytes (16 MiB)" \
  1000 "$ks" measure "$demo" --bone-tolerances "$work/large.txt"
python3 -c "
import sys
open(sys.argv[1], 'w').write('\n' * 1000001)" "$work/lines.txt"
refused "--bone-tolerances: '$work/lines.txt': more than 1000000 lines; a tolerance file may hold at most 1000000" \
  1000 "$ks" measure "$demo" --bone-tolerances "$work/lines.txt"
python3 -c "
import sys
open(sys.argv[1], 'w').write('head=0.2\n' + 'N' * 5000 + '=0.1\n')" "$work/long_line.txt"
refused "--bone-tolerances $work/long_line.txt:2: the line is 5004 bytes; a line may hold at most 4096 ('NNNN" \
  1000 "$ks" measure "$demo" --bone-tolerances "$work/long_line.txt"
refused "... (5004 bytes)')" 1000 "$ks" measure "$demo" --bone-tolerances "$work/long_line.txt"
# A line at the cap is read: its bone is unknown, quoted short with its length.
python3 -c "
import sys
open(sys.argv[1], 'w').write('N' * 4094 + '=1\n')" "$work/at_cap.txt"
refused "has no bone named \"NNNN" 1000 "$ks" measure "$demo" --bone-tolerances "$work/at_cap.txt"
refused "... (4094 bytes)\"" 1000 "$ks" measure "$demo" --bone-tolerances "$work/at_cap.txt"

# --- A 50 MB bone name: refused by the size cap, in a short message.
python3 -c "
import sys
open(sys.argv[1], 'w').write('N' * 52428800 + '=0.1\n')" "$work/huge_name.txt"
refused "the file is 52428805 bytes" 1000 "$ks" measure "$demo" --bone-tolerances "$work/huge_name.txt"
refused "the file is 52428805 bytes" 1000 "$ks" compress "$demo" --bone-tolerances "$work/huge_name.txt"
# As long a name as a command line can carry: quoted short, with its length.
name=$(printf 'N%.0s' $(seq 1 100000))
refused "--bone-tolerance: $demo has no bone named \"NNNN" 1000 "$ks" measure "$demo" --bone-tolerance "$name=0.1"
refused "... (100000 bytes)\"" 1000 "$ks" measure "$demo" --bone-tolerance "$name=0.1"
refused "... (100006 bytes)' is not NAME=MM" 1000 "$ks" measure "$demo" --bone-tolerance "$name 0.1 x"

echo "tolerance files: a million lines refused in one short message; every cap names its limit"
