#!/usr/bin/env bash
# bench-compare: runs the bench module's benchmarks ROUNDS times and prints
# benchstat's table (impl=metis|sdk|floor, metis|govcr side by side) and
# benchratio's ratios with each target's verdict.
#
# Stream and replay benchmarks report cpu-ns/op, the process's CPU time
# per op, beside the wall time: on a machine other processes share, the
# wall time includes their turns on the cores; benchratio compares CPU
# time when it is there.
#
# Rounds are interleaved runs of the whole set (each `-test.count 1`), so
# that a change in the machine's load hits every implementation alike;
# ROUNDS=6 gives the same six samples per benchmark as -count 6.
#
#   ROUNDS=6 BENCHTIME=0.5s BENCH=. OUT=../reports/bench-compare.txt ./compare.sh
set -euo pipefail
cd "$(dirname "$0")"
rounds=${ROUNDS:-6}
benchtime=${BENCHTIME:-0.5s}
pattern=${BENCH:-.}
out=${OUT:-../reports/bench-compare.txt}
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/bench.test" .
echo "machine: $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$out"
for i in $(seq "$rounds"); do
  echo "round $i of $rounds: load average $(cut -d' ' -f1-3 /proc/loadavg)"
  "$tmp/bench.test" -test.run '^$' -test.bench "$pattern" -test.benchmem -test.benchtime "$benchtime" -test.count 1 >> "$out"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); raw results in $out"
echo
for group in Stream Replay; do
  go tool benchstat -col /impl -filter ".name:$group .unit:(sec/op OR cpu-sec/op OR allocs/op)" "$out"
  echo
done
go tool benchstat -filter '.name:(Suite OR Memory) .unit:(sec/op OR cpu-sec/op OR sec/run OR B/op OR peak-live-B/op)' "$out"
echo
go run ./cmd/benchratio "$out"
