// Package protocol is metis's stdio adapter protocol, version
// metis.adapter/v1: how metis and an adapter written in any language talk
// over the adapter process's stdin and stdout, one JSON object per line.
//
// metis sends init (the adapter's configuration), capabilities, estimate,
// complete and stream requests, and cancel; the adapter answers with
// ready, capabilities, estimate, response or the events of a stream
// (event lines, then end), or error. A stream runs in lockstep: after
// each event the adapter waits for metis's next or cancel, so that a
// cancellation lands on the same event as it does in process. The
// adapter reports every HTTP attempt (attempt) and asks metis to wait
// between retries (sleep, answered by slept or cancel), so that tests
// never wait; it logs with log lines, never on stderr. Tool ids cross as
// the provider's own: metis maps them to and from canonical ids.
//
// The published JSON Schemas are in v1/ (Schemas): to-adapter.schema.json
// for metis's lines, from-adapter.schema.json for the adapter's, and
// canonical.schema.json for the canonical types both carry. Message is
// any line in Go; LineReader and Writer frame them; ValidateFromAdapter
// and ValidateToAdapter check them. Serve is the adapter side for an
// adapter written in Go (cmd/adapter-stdio serves metis's own), and
// package execadapter the metis side. The README's "The stdio protocol"
// section is the reference for implementers.
package protocol
