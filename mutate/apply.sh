#!/usr/bin/env bash
# mutate/apply.sh DIR RUN SKIP [FILE:LINE:COL:TYPE ...]: judge gremlins
# mutants by hand, without touching the tree. Each mutant (as gremlins'
# JSON and log name it: a file of DIR, the 1-based line and byte column of
# the operator, the mutator) is applied to a copy of its file and DIR's
# tests matching RUN, less those matching SKIP ("" for none), run with
# -short and the copy as a go -overlay. One line a mutant is printed:
#
#   FILE:LINE:COL TYPE KILLED|LIVED|NOT VIABLE|NOT APPLIED [the first failure]
#
# It judges what gremlins reports NOT COVERED (its coverage map misses a
# switch's case expressions) and checks that a new test kills a mutant
# that lived. With no mutant arguments, it reads them from stdin, one a
# line. Run it from the module root.
set -uo pipefail
dir=${1:?usage: apply.sh DIR RUN SKIP [FILE:LINE:COL:TYPE ...]}
run=${2:?}
skip=${3-}
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C # columns are byte offsets

# mutant FILE LINE COL TYPE writes the mutated copy to $tmp/mutant.go.
mutant() {
  awk -v l="$2" -v c="$3" -v t="$4" '
    function op(n) { return substr($0, c, n) }
    function swap(n, to) { $0 = substr($0, 1, c - 1) to substr($0, c + n); hit = 1 }
    NR == l {
      two = op(2); one = op(1)
      if (t == "CONDITIONALS_NEGATION") {
        if (two == "==") swap(2, "!="); else if (two == "!=") swap(2, "==")
        else if (two == "<=") swap(2, ">"); else if (two == ">=") swap(2, "<")
        else if (one == "<") swap(1, ">="); else if (one == ">") swap(1, "<=")
      } else if (t == "CONDITIONALS_BOUNDARY") {
        if (two == "<=") swap(2, "<"); else if (two == ">=") swap(2, ">")
        else if (one == "<") swap(1, "<="); else if (one == ">") swap(1, ">=")
      } else if (t == "ARITHMETIC_BASE") {
        if (one == "+") swap(1, "-"); else if (one == "-") swap(1, "+")
        else if (one == "*") swap(1, "/"); else if (one == "/") swap(1, "*")
        else if (one == "%") swap(1, "*")
      } else if (t == "INCREMENT_DECREMENT") {
        if (two == "++") swap(2, "--"); else if (two == "--") swap(2, "++")
      } else if (t == "INVERT_NEGATIVES") {
        if (one == "-") swap(1, "+")
      }
    }
    { print }
    END { exit !hit }' "$dir/$1" >"$tmp/mutant.go"
}

judge() {
  IFS=: read -r f line col typ <<<"$1"
  if ! mutant "$f" "$line" "$col" "$typ"; then
    echo "$f:$line:$col $typ NOT APPLIED (no such operator there)"
    return
  fi
  jq -n --arg s "$PWD/$dir/$f" --arg m "$tmp/mutant.go" '{Replace: {($s): $m}}' >"$tmp/overlay.json"
  if ! GOFLAGS=-buildvcs=false go build -overlay "$tmp/overlay.json" -o /dev/null "./$dir" 2>/dev/null; then
    echo "$f:$line:$col $typ NOT VIABLE"
    return
  fi
  if GOFLAGS=-buildvcs=false go test -count=1 -short -overlay "$tmp/overlay.json" -run "$run" ${skip:+-skip "$skip"} "./$dir" >"$tmp/out" 2>&1; then
    echo "$f:$line:$col $typ LIVED"
  else
    echo "$f:$line:$col $typ KILLED $(grep -m1 -- '--- FAIL' "$tmp/out" | sed 's/^ *//')"
  fi
}

if [ $# -gt 0 ]; then
  for m in "$@"; do judge "$m"; done
else
  while read -r m; do [ -n "$m" ] && judge "$m"; done
fi
