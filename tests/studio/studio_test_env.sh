# shellcheck shell=bash
# Sourced by the studio's test scripts once they have set $work (a fresh
# folder): fail(), and the environment every run of the studio under Xvfb
# needs.
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
export XDG_CONFIG_HOME="${work:?set work before sourcing studio_test_env.sh}/config"
mkdir -p "$XDG_CONFIG_HOME"

# run_studio SIZE NAME ARGS...: the studio ($studio) with ARGS on a fresh X
# server of SIZE (WxH); its output in $work/NAME.out and NAME.err. Sets rc to
# the studio's own exit status, which a wrapper shell writes to a file:
# xvfb-run's status is not always the studio's, since on a loaded machine it
# can fail to clean up its temporary folder (exit 5) after the studio passed.
# A hung studio is killed after $studio_timeout seconds (default 300; rc
# 124) rather than blocking ctest.
run_studio() {
  local size=$1 name=$2; shift 2
  local status_file="$work/$name.status" xvfb_rc=0
  rm -f "$status_file"
  # shellcheck disable=SC2016 # expanded by the wrapper shell, not here
  timeout "${studio_timeout:-300}" xvfb-run -a -s "-screen 0 ${size}x24" \
    sh -c '"$@"; echo $? >"$0"' "$status_file" "${studio:?set studio before run_studio}" "$@" \
    >"$work/$name.out" 2>"$work/$name.err" || xvfb_rc=$?
  rc=$xvfb_rc
  if [ "$xvfb_rc" -ne 124 ] && [ -s "$status_file" ]; then rc=$(cat "$status_file"); fi
}

# expect_exit NAME CODE: run NAME's studio exited CODE; otherwise fail with
# its stderr.
expect_exit() {
  [ "$rc" -eq "$2" ] || fail "$1: exited $rc, expected $2: $(cat "$work/$1.err")"
}

# check_that WHAT ARGS...: ks_png_check ($png_check) ARGS passes; its report
# goes to the log.
check_that() {
  local what=$1; shift
  local out rc_check=0
  out=$("${png_check:?set png_check before check_that}" "$@" 2>&1) || rc_check=$?
  [ "$rc_check" -eq 0 ] || fail "$what: ks_png_check $* exited $rc_check:
$out"
  echo "ok: $what"
  echo "$out"
}

# view_bodies NAME: sets original and compressed to the bodies of run NAME's
# two views (X,Y,W,H without the $LABEL_ROWS label rows at their top and
# bottom), from the "view" lines the studio printed.
view_bodies() {
  local kind x y w h
  original='' compressed=''
  while read -r _ kind x y w h; do
    local body="$x,$((y + ${LABEL_ROWS:?set LABEL_ROWS before view_bodies})),$w,$((h - 2 * LABEL_ROWS))"
    case $kind in
      original) original=$body ;;
      compressed) compressed=$body ;;
    esac
  done < <(grep '^view ' "$work/$1.out" || true)
  if [ -z "$original" ] || [ -z "$compressed" ]; then
    fail "$1: no original and compressed view lines on stdout: $(cat "$work/$1.out")"
  fi
}
