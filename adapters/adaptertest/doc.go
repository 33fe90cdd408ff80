// Package adaptertest holds helpers for tests of adapters, including
// third-party ones: a fake clock that records retry sleeps, the location
// of the shared recorded fixtures, a stream collector, and CancelAt,
// which cancels a stream mid-way and checks what may follow.
//
// It also reads the vendored real recordings (ReadRecording) and serves
// canned answers from a loopback server (NewServer).
//
// It is an ordinary package (no test-only build tags are needed) that
// imports only canonical and the standard library, so any adapter's tests,
// and those of package adapters itself, may use it. Check streams with
// github.com/metis-llm/metis/harness/streamcheck.
package adaptertest
