#!/usr/bin/env bash
# mutate/viable.sh JSON DIR: mark NOT VIABLE the mutants of gremlins' JSON
# (a target's result over the package in DIR) that do not compile.
#
# A mutant that does not compile fails `go test`'s build with exit status
# 1, which gremlins v0.6.0 counts as KILLED; under mutate/tooling.sh the
# test binary never ran. The one default mutator that can fail to compile
# is ARITHMETIC_BASE making `+` a `-`, between strings. So each KILLED
# ARITHMETIC_BASE mutant at a `+` is applied to a copy of its file, the
# package is built with that copy as an -overlay, and the mutant is
# rewritten NOT VIABLE when the build fails. The tree is never touched.
# Run it from the module root, on the tree the JSON was measured against.
set -euo pipefail
json=${1:?usage: viable.sh JSON DIR}
dir=${2:?usage: viable.sh JSON DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C # columns are byte offsets
: >"$tmp/dead"
jq -r '.files[] | .file_name as $f | .mutations[] | select(.status=="KILLED" and .type=="ARITHMETIC_BASE") | "\($f) \(.line) \(.column)"' "$json" |
  while read -r f line col; do
    src=$PWD/$dir/$f
    awk -v l="$line" -v c="$col" 'NR == l && substr($0, c, 1) == "+" { $0 = substr($0, 1, c - 1) "-" substr($0, c + 1); hit = 1 } { print } END { exit !hit }' \
      "$src" >"$tmp/mutant.go" || continue
    jq -n --arg s "$src" --arg m "$tmp/mutant.go" '{Replace: {($s): $m}}' >"$tmp/overlay.json"
    if ! GOFLAGS=-buildvcs=false go build -overlay "$tmp/overlay.json" -o /dev/null "./$dir" 2>/dev/null; then
      echo "$f $line $col" >>"$tmp/dead"
    fi
  done
n=$(wc -l <"$tmp/dead")
jq --rawfile dead "$tmp/dead" '
  ($dead | split("\n") | map(select(. != ""))) as $d |
  .files |= map(.file_name as $f | .mutations |= map(
    ("\($f) \(.line) \(.column)") as $k |
    if .status == "KILLED" and ($d | any(. == $k)) then .status = "NOT VIABLE" else . end)) |
  .mutants_killed = ([.files[].mutations[] | select(.status == "KILLED")] | length) |
  .mutants_not_viable = ([.files[].mutations[] | select(.status == "NOT VIABLE")] | length)' \
  "$json" >"$tmp/out.json"
mv "$tmp/out.json" "$json"
echo "viable.sh: $n mutant(s) of $json do not compile: NOT VIABLE"
