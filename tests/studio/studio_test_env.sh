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
