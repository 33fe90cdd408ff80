// Package protocol is metis's stdio adapter protocol, version
// metis.adapter/v2: how metis and an adapter written in any language talk
// over the adapter process's stdin and stdout, one JSON object per line.
//
// metis sends init (the adapter's configuration, and the newest version
// metis speaks), capabilities, estimate, complete and stream requests,
// probe, and cancel; the adapter answers with ready (naming the version
// it speaks), capabilities, estimate, response or the events of a stream
// (event lines, then end), probe, or error. A stream runs in lockstep:
// after each event the adapter waits for metis's next or cancel, so that
// a cancellation lands on the same event as it does in process. The
// adapter reports every HTTP attempt (attempt) and its lifecycle events
// (lifecycle), and asks metis to wait between retries (sleep, answered by
// slept or cancel), so that tests never wait; it logs with log lines,
// never on stderr. Requests carry canonical tool ids with the provider's
// ids for them (tool_ids) and metis's clock (now); the adapter reports
// the provider's ids, which metis maps, or canonical ids it mints with
// their provider ids in tool_ids. A tool input with line breaks travels
// compacted, its text in raw_inputs.
//
// Minor version 1 of V2 (Minor) adds token lines: an adapter whose
// ready declares minor 1 is told in init's config when the run has a
// token source (tokens), asks for an OAuth access token with a token
// line for its call, and metis answers with a token (expires_at on its
// clock) or an error. An adapter that declares no minor version is never
// sent any of it.
//
// Version 1 (V1) is still spoken, to an adapter whose ready names it:
// tool ids cross in the provider's form, and there are no tool_ids,
// raw_inputs, now, probe or lifecycle lines.
//
// The published JSON Schemas are in v2/ and v1/ (Schemas):
// to-adapter.schema.json for metis's lines, from-adapter.schema.json for
// the adapter's, and canonical.schema.json for the canonical types both
// carry. Message is any line in Go; LineReader and Writer frame them;
// ValidateFromAdapterVersion and ValidateToAdapterVersion check them.
// Serve is the adapter side for an adapter written in Go
// (cmd/adapter-stdio serves metis's own), and package execadapter the
// metis side. docs/certify.md ("The stdio protocol") is the reference
// for implementers.
package protocol
