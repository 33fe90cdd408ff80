#!/usr/bin/env bash
# The exec hook of `make mutate`: `go test -exec mutate/exec.sh` hands it the
# test binary it just built and that binary's flags; the hook ignores the
# binary and runs `conform run` instead, built from the (mutated) copy of the
# module it is called in, so `conform run` alone is the test a mutant must
# survive. go test runs it in the package's directory.
#
#   exit 0: conform run passed (the mutant lived)
#   exit 1: conform run failed (the mutant was killed)
#   exit 2: conform did not build (the mutant is not viable)
#
# When go test asks for a coverage profile (-test.coverprofile=FILE, gremlins'
# first pass), the hook builds conform with coverage of this one package,
# runs it, and writes what conform run covered to FILE: gremlins then tests
# only the mutants conform run reaches, and reports the rest NOT COVERED.
set -uo pipefail

profile=""
deadline=600
for arg in "$@"; do
  case "$arg" in
    -test.coverprofile=*) profile="${arg#-test.coverprofile=}" ;;
    -test.timeout=*)
      # A Go duration (1m58.8s): gremlins kills go test at its deadline but
      # not this hook's children, so the hook bounds itself by the same one.
      if [[ ${arg#-test.timeout=} =~ ^(([0-9]+)h)?(([0-9]+)m)?([0-9]+)(\.[0-9]+)?s$ ]]; then
        deadline=$(( ${BASH_REMATCH[2]:-0}*3600 + ${BASH_REMATCH[4]:-0}*60 + ${BASH_REMATCH[5]} ))
      fi ;;
  esac
done

# The go commands below must not inherit -exec (go run knows it) or -vet;
# -trimpath keeps the build cache shared between gremlins' copies of the module.
export GOFLAGS="-buildvcs=false -trimpath"
pkg=$(go list -f '{{.ImportPath}}' .) || exit 2
root=$(go list -m -f '{{.Dir}}') || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# gremlins' copy of the module keeps the checkout's .git (a worktree's is a
# pointer to the real one): conform's version probe runs git status, which
# would lock and refresh the real checkout's index. No git for the copy.
export GIT_DIR="$tmp/no-git" GIT_CEILING_DIRECTORIES="$root"
cd "$root" || exit 2

if [ -n "$profile" ]; then
  # The main package must be instrumented too, or the binary writes no
  # counters; -pkg keeps only this package's lines.
  go build -cover -covermode=set -coverpkg="$pkg,$(go list -m)/cmd/conform" \
    -o "$tmp/conform" ./cmd/conform || exit 2
  mkdir "$tmp/cov"
  GOCOVERDIR="$tmp/cov" "$tmp/conform" run --report-dir "$tmp/reports" >"$tmp/out" 2>&1 || {
    echo "conform run fails on the unmutated module; fix that first:" >&2
    tail -20 "$tmp/out" >&2
    exit 1
  }
  go tool covdata textfmt -pkg="$pkg" -i="$tmp/cov" -o="$profile" || exit 2
  exit 0
fi

timeout "$deadline" go build -o "$tmp/conform" ./cmd/conform 2>"$tmp/build" || { cat "$tmp/build" >&2; exit 2; }
timeout "$deadline" "$tmp/conform" run --report-dir "$tmp/reports" >"$tmp/out" 2>&1 && exit 0
grep -E '^(FAIL|--- FAIL)|failed' "$tmp/out" | head -5 >&2
exit 1
