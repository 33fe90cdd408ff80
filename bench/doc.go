// Package bench measures metis side by side with the official provider
// SDKs and with go-vcr, in one `go test -bench` run, on the same bytes.
//
// It is its own module so that the SDKs it compares against
// (github.com/anthropics/anthropic-sdk-go, github.com/openai/openai-go/v3,
// google.golang.org/genai) never become dependencies of metis. Every
// benchmark is a set of sub-benchmarks named impl=metis, impl=sdk (or
// impl=govcr) and impl=floor, so that benchstat's -col /impl puts them in
// adjacent columns and cmd/benchratio turns them into ratios and target
// verdicts:
//
//   - BenchmarkStream decodes recorded streams (testdata/recordings) and
//     large ones synthesized from the same recordings' event shapes:
//     metis through the public adapters.Adapter.Stream up to
//     message.complete, each SDK through its stream decoder and its
//     accumulator, and the floor, a minimal hand-written framer that
//     extracts the same text, reasoning and tool arguments and nothing else.
//     The floor checks no JSON syntax, which the contract demands of a
//     decoder; impl=checkedfloor is the floor after a syntax check of each
//     event (driver.ValidJSON), the contract's minimum.
//     TestImplsAgree checks that all of them assemble the same content, so
//     that no column skips work another does.
//   - BenchmarkReplay serves suite cassettes through harness/replay and
//     through go-vcr v4: serve (the player already loaded) and load+serve
//     (read the cassette file, then serve every interaction).
//   - BenchmarkSuite runs the whole conformance suite in process, as
//     `conform run` does, and reports the time per run.
//   - BenchmarkMemory streams a 50 MB synthetic body through each decoder
//     and reports the bytes allocated per operation and the peak live
//     heap; TestMemoryBounded fails if that peak is more than the
//     assembled message needs.
//
// The stream, replay and suite benchmarks report cpu-ns/op, the process's
// CPU time per op, beside the wall time: on a shared machine the wall
// time includes other processes' turns on the cores.
//
// `make bench-compare` at the repository root runs it all and prints the
// tables; docs/development/performance.md has the numbers.
package bench
