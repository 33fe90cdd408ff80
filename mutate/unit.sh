#!/usr/bin/env bash
# The exec hook of `make mutate MUTATE_SET=tooling`: `go test -exec
# mutate/unit.sh` hands it each test binary it built and the binary's
# flags. The binary of the package under mutation (MUTATE_DIR, relative to
# the module root) runs the package's own tests named by MUTATE_RUN, with
# -short, less the tests MUTATE_SKIP names (-test.skip); every other
# package's binary (gremlins' coverage pass builds the whole tree under
# the target) runs no test. With MUTATE_SUITE=1, a mutant the package's
# tests let live is then judged by `conform run` as well (mutate/exec.sh),
# the tooling scenarios of the suite.
#
#   exit 0: the mutant lived; 1: killed; 2: not viable (exec.sh)
set -uo pipefail
bin=$1
shift
dir=$PWD
root=$dir
while [ "$root" != / ] && [ ! -f "$root/go.mod" ]; do root=$(dirname "$root"); done
rel=${dir#"$root"}
rel=${rel#/}
if [ "$rel" != "${MUTATE_DIR:?}" ]; then
  exec "$bin" "$@" -test.run='^$'
fi
coverage=""
for arg in "$@"; do
  case "$arg" in -test.coverprofile=*) coverage=1 ;; esac
done
"$bin" "$@" -test.short -test.run="${MUTATE_RUN:-.}" ${MUTATE_SKIP:+-test.skip="$MUTATE_SKIP"} >/dev/null 2>"${TMPDIR:-/tmp}/mutate-unit.$$" || {
  head -c 2000 "${TMPDIR:-/tmp}/mutate-unit.$$" >&2
  rm -f "${TMPDIR:-/tmp}/mutate-unit.$$"
  exit 1
}
rm -f "${TMPDIR:-/tmp}/mutate-unit.$$"
if [ -z "$coverage" ] && [ "${MUTATE_SUITE:-}" = 1 ]; then
  exec bash "$(dirname "$0")/exec.sh" "$@"
fi
exit 0
