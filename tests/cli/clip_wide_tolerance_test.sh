#!/usr/bin/env bash
# The clip-wide entry '*=MM[@CM]' of --bone-tolerance(s): it sets --tolerance
# and --shell-distance (streams byte-identical to those options', since it
# converts its numbers as they do), in its place among the options (the
# last of it and --tolerance wins); a second '*' is refused naming both
# origins, and --local refuses it as it refuses --tolerance.
#   clip_wide_tolerance_test.sh KEYSTREAM ASSETS_DIR WORK_DIR
set -euo pipefail
ks=$1 assets=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
# shellcheck source=SCRIPTDIR/cli_test_env.sh
source "$(dirname "$0")/cli_test_env.sh"
cd "$work"
demo="$assets/demo_walk.glb"
# same A B: the two streams are byte for byte one.
same() { cmp -s "$1" "$2" || fail "$1 and $2 differ"; }

# --- '*' from a file and from the flag, alone and with bones, equals the options.
printf '# the clip\n*=0.5@4\n' >clip.txt
printf 'head=0.2\n*=0.5@4  # the clip\nleft_hand=0.05@2\n' >mixed.txt
run 0 "$ks" compress "$demo" -o options.ks --tolerance 0.5 --shell-distance 4
run 0 "$ks" compress "$demo" -o file.ks --bone-tolerances clip.txt
same options.ks file.ks
run 0 "$ks" compress "$demo" -o flag.ks --bone-tolerance '*=0.5@4'
same options.ks flag.ks
run 0 "$ks" info file.ks
shows "0.5 mm at 4 cm from each bone, 0 bone overrides"
run 0 "$ks" compress "$demo" -o bones_options.ks --tolerance 0.5 --shell-distance 4 \
  --bone-tolerance head=0.2 --bone-tolerance left_hand=0.05@2
run 0 "$ks" compress "$demo" -o bones_file.ks --bone-tolerances mixed.txt
same bones_options.ks bones_file.ks
# 0.01 mm and 10 cm, where dividing by 1000 and 100 (as a bone's entry does) gives other floats.
run 0 "$ks" compress "$demo" -o odd_options.ks --tolerance 0.01 --shell-distance 10
run 0 "$ks" compress "$demo" -o odd_flag.ks --bone-tolerance '*=0.01@10'
same odd_options.ks odd_flag.ks
# Without @CM only the tolerance is set.
run 0 "$ks" compress "$demo" -o tolerance_only.ks --bone-tolerance '*=0.5' --shell-distance 4
same options.ks tolerance_only.ks
run 0 "$ks" verify "$demo" file.ks --bone-tolerances clip.txt
shows "every bone within its tolerance at every frame"

# --- Options apply in order: the last of '*' and --tolerance wins.
run 0 "$ks" compress "$demo" -o later_option.ks --bone-tolerances clip.txt --tolerance 0.3
run 0 "$ks" compress "$demo" -o expected_later_option.ks --tolerance 0.3 --shell-distance 4
same expected_later_option.ks later_option.ks
cmp -s options.ks later_option.ks && fail "0.3 mm and 0.5 mm gave one stream: the comparisons prove nothing"
run 0 "$ks" compress "$demo" -o later_file.ks --tolerance 0.3 --shell-distance 2 --bone-tolerances clip.txt
same options.ks later_file.ks
run 0 "$ks" measure "$demo" --tolerance 0.3 --bone-tolerance '*=0.5'
shows "0.5 mm at 3 cm (object space), 0 bone overrides"

# --- Refusals, exit 2 naming the option.
printf '*=0.5\nhead=0.2\n\n*=0.3@2\n' >twice.txt
run 2 "$ks" compress "$demo" -o x.ks --bone-tolerances twice.txt
shows "--bone-tolerances twice.txt:4: the clip-wide tolerance '*' is already set (from --bone-tolerances twice.txt:1)"
run 2 "$ks" measure "$demo" --bone-tolerance '*=1' --bone-tolerances clip.txt
shows "--bone-tolerances clip.txt:2: the clip-wide tolerance '*' is already set (from --bone-tolerance)"
run 2 "$ks" compress "$demo" -o x.ks --local --bone-tolerance '*=0.5'
shows "--bone-tolerance sets the object-space tolerance, which --local mode does not use"
run 2 "$ks" compress "$demo" -o x.ks --bone-tolerances clip.txt --local
shows "--bone-tolerances sets the object-space tolerance, which --local mode does not use"
run 2 "$ks" measure "$demo" --bone-tolerance '*=0'
shows "the tolerance of \"*\" ('0') is not a positive number of millimetres"
[ -e x.ks ] && fail "a refused compress wrote its output"

echo "clip-wide tolerance: '*' equals --tolerance and --shell-distance, in order; twice and --local refused"
