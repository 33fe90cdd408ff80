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
#
# conform run goes with --fail-fast (a mutant is killed at its first failed
# run) and -p MUTATE_PARALLEL (default 4: runs mostly wait). MUTATE_CONFORM_ARGS restricts it:
# conform run's filters, in one or more passes separated by a lone `;`
# (`--model anthropic --model bedrock ; swap/`); the mutant is killed when
# any pass fails; the passes run at once, and the coverage pass runs them all. Empty: the whole
# suite, once. A restriction is sound only when the runs it leaves out
# cannot reach the mutated package (docs/development/mutation.md).
set -uo pipefail
set -f # the passes hold id globs for conform, not for the shell

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

# conform_passes BINARY: conform run once per pass of MUTATE_CONFORM_ARGS,
# the passes at once (each one's output in $tmp/out.N); fails as soon as a
# pass fails, stopping the others.
conform_passes() {
  local bin=$1 pass=() w n=0 pids=() failed=0
  for w in ${MUTATE_CONFORM_ARGS:-} ";"; do
    if [ "$w" != ";" ]; then pass+=("$w"); continue; fi
    if [ ${#pass[@]} -gt 0 ] || [ -z "${MUTATE_CONFORM_ARGS:-}" ]; then
      n=$((n + 1))
      timeout "$deadline" "$bin" run --fail-fast -p "${MUTATE_PARALLEL:-4}" --report-dir "$tmp/reports.$n" \
        "${pass[@]}" >"$tmp/out.$n" 2>&1 &
      pids+=($!)
    fi
    pass=()
  done
  while [ ${#pids[@]} -gt 0 ]; do
    wait -n "${pids[@]}" || { failed=1; break; }
    local left=()
    for w in "${pids[@]}"; do kill -0 "$w" 2>/dev/null && left+=("$w"); done
    pids=("${left[@]}")
  done
  if [ $failed = 1 ]; then kill "${pids[@]}" 2>/dev/null; wait; fi
  for ((w = 1; w <= n; w++)); do cat "$tmp/out.$w"; done >"$tmp/out"
  return $failed
}

if [ -n "$profile" ]; then
  # The main package must be instrumented too, or the binary writes no
  # counters; -pkg keeps only this package's lines.
  go build -cover -covermode=set -coverpkg="$pkg,$(go list -m)/cmd/conform" \
    -o "$tmp/conform" ./cmd/conform || exit 2
  mkdir "$tmp/cov"
  GOCOVERDIR="$tmp/cov" conform_passes "$tmp/conform" || {
    echo "conform run fails on the unmutated module; fix that first:" >&2
    tail -20 "$tmp/out" >&2
    exit 1
  }
  go tool covdata textfmt -pkg="$pkg" -i="$tmp/cov" -o="$profile" || exit 2
  exit 0
fi

timeout "$deadline" go build -o "$tmp/conform" ./cmd/conform 2>"$tmp/build" || { cat "$tmp/build" >&2; exit 2; }
conform_passes "$tmp/conform" && exit 0
grep -E '^(FAIL|--- FAIL)|failed' "$tmp/out" | head -5 >&2
exit 1
