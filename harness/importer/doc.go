// Package importer converts HTTP traffic that other tools recorded into
// metis cassettes, so that real provider traffic can be replayed through
// the adapters like a cassette metis recorded itself.
//
// It reads four formats, detected from the content (or named with
// Options.Format):
//
//   - vcrpy and pytest-recording YAML cassettes (FormatVCRPy), the format
//     pydantic-ai, langchain and many Python projects commit: request
//     uri, method, headers and body, response status, headers and
//     body.string; !!binary bodies, gzip and deflate content-encoding, and
//     pydantic-ai's parsed_body variant (a JSON body stored as YAML, which
//     is re-serialized as compact JSON in the YAML's key order); a .gz
//     file is decompressed first; vcrpy's JSON serializer is read too.
//   - go-vcr cassettes (FormatGoVCR): v1/v2 (version: 1) and v3/v4
//     (version: 2) YAML.
//   - HAR 1.2 (FormatHAR), as browser devtools, mitmproxy and Charles
//     export it: base64-encoded content is decoded.
//   - the plain layout of testdata/recordings (FormatRecording): a
//     directory with meta.json, request.json, SOURCE.txt and a response
//     file — response.txt (SSE, verbatim), response.json,
//     response.ndjson (verbatim), or response.chunks.jsonl (one SSE data
//     payload per line, framing stripped by its recorder, which the
//     importer restores as "data: …" events).
//
// Streamed bodies keep their exact bytes and framing: CRLF, padding,
// pings and comments are what the server sent. Every interaction is
// scrubbed as a recording is (record.Scrub: header allowlists, key query
// parameters, masked request ids, every body by its container, the
// values of dropped credentials everywhere), the result is scanned for
// anything shaped like a key in every decoded view, and the cassette is written atomically behind a
// provenance header with source "imported", the origin file, project and
// format, and (by default) match "endpoint" (see replay.MatchEndpoint),
// because another client made the requests. Input that is unknown or
// broken is an *Error naming the file and the place (line, or field
// path); nothing is written then.
package importer
