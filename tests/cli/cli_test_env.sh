# shellcheck shell=bash
# Sourced by the command-line test scripts once they have set $work (a
# fresh folder): fail, run and shows.
fail() { echo "FAIL: $*" >&2; exit 1; }
# run CODE CMD...: CMD exits with CODE; stdout in $work/out, stderr in $work/err.
run() {
  local code=$1; shift
  local rc=0
  "$@" >"${work:?set work before run}/out" 2>"$work/err" || rc=$?
  [ "$rc" -eq "$code" ] || fail "'$*' exited $rc, expected $code: $(cat "$work/out" "$work/err")"
}
# shows TEXT: the last run's stdout or stderr holds TEXT. (Not `cat | grep -q`:
# grep may exit before cat is done, and pipefail takes cat's SIGPIPE for a miss.)
shows() {
  grep -qF -- "$1" "$work/out" "$work/err" || fail "the output does not show '$1': $(cat "$work/out" "$work/err")"
}
