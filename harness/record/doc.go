// Package record records provider HTTP traffic into go-vcr v4 cassettes
// for the conformance harness, and drives whole recording sessions for
// the `conform record` command.
//
// # A Recorder
//
// NewRecorder returns an http.RoundTripper that sends each request to the
// real server (the live API, an emulator, any base URL) and keeps the
// exchange. Nothing touches the disk until Save, which:
//
//  1. scrubs every interaction (Scrub): request headers not on
//     RequestHeaders are dropped — Authorization, x-api-key,
//     x-goog-api-key, api-key, OpenAI-Organization, OpenAI-Project,
//     Cookie, User-Agent and SDK telemetry among them — as are response
//     headers not on ResponseHeaders (Set-Cookie, Date, rate-limit
//     counters); request ids are masked (req_masked_1, …); the URL loses
//     its user info, and of the query parameters not on
//     replay.QueryParams (alt, api-version, beta) those carrying
//     credentials (key, api_key, access_token, …) are removed and the
//     others keep their names with the value REDACTED, in the URL and the
//     form alike. Every body is then scrubbed by its container
//     (internal/secrets.Scrubber: JSON, SSE and NDJSON with JSON and URLs
//     inside strings and base64-encoded JSON; form-encoded bodies;
//     multipart parts by their own types; AWS event-stream payloads,
//     frames re-checksummed; URLs anywhere): the value of every field,
//     parameter or part that holds a credential (api_key, access_token,
//     refresh_token, client_secret, password, authorization, … as
//     internal/secrets.IsSecretField says; in forms, URLs and multipart
//     also key, code, token, sig, … as IsSecretParam says) becomes
//     REDACTED, as does every key shape, a URL's user information and a
//     key-shaped path segment. The scrubbing runs in two passes over the
//     whole recording, so that the value of every credential it drops —
//     credential headers, parameters, fields — and every configured key
//     becomes REDACTED wherever else it appears (a response echoing it,
//     another interaction). It needs no configured key, so recordings of
//     keyless servers get all of it. Everything else in a body is kept
//     byte for byte: it is the wire format under test, and tool ids in it
//     must round-trip. Durations become zero.
//  2. writes the cassette to a temporary file in the cassette's directory,
//     behind a provenance header (see below);
//  3. scans the written bytes for the configured API keys and for every
//     credential shape internal/secrets knows, in the raw bytes and in
//     every decoded view (internal/secrets.Scan: escapes undone, percent
//     decoded, !!binary and base64 JSON decoded), and fails loudly,
//     deleting the file, if any remains;
//  4. renames the file over the cassette — unless the cassette already
//     holds the same recording (recorded_at and the per-run canonical ids
//     tu_<ULID>, req_<ULID> aside), which is then left as it is, so that
//     re-recording an unchanged scenario changes no file.
//
// Discard (or Save failing, or the recording's context ending first)
// leaves no file behind, and an existing cassette byte-identical: a
// cassette is never half written. Save is Stage (steps 1–3) then Commit
// (step 4).
//
// Run records each scenario run all-or-nothing: it stages the cassettes of
// every provider the run talked to and commits them together only when
// the run passed and all of them staged; the commit moves each old
// cassette aside, renames the new one in, undoes everything if any rename
// fails, and syncs the directories. Temporary files (".<name>.tmp-…") a
// killed run left behind are removed when the next Run starts; a cassette
// moved aside by a killed commit is restored.
//
// The scrubbing matches what harness/replay ignores when it matches a
// request (the host, keys, SDK headers, the values of query parameters
// off the allowlist and of credential fields in the body; it compares the
// method, path, query, canonical JSON body and anthropic-version and
// anthropic-beta), so a scrubbed cassette replays.
//
// # Provenance
//
// go-vcr's cassette has no free-form field, and a sidecar file could be
// lost or go stale apart from its cassette, so provenance is a block of
// YAML comments at the top of the cassette itself, written in the same
// atomic rename. go-vcr and YAML readers ignore it; ReadProvenance parses
// it:
//
//	# metis cassette provenance
//	# scenario: tools/single-round-trip
//	# provider: anthropic
//	# model: anthropic:claude-sonnet-4-6
//	# source: emulator
//	# recorded_at: 2026-05-01T12:00:00Z
//	# metis_version: v0.1.0-dev
//	---
//	version: 2
//	interactions: ...
//
// model is the run's matrix model (a swap scenario's other providers'
// cassettes name it too); source is live or emulator; an endpoint line
// names a base URL the traffic was sent to instead of the provider's.
//
// # Sessions
//
// Run records a selection of scenarios through the real adapters and the
// harness runner, whose Transport hook gets a Recorder per provider, and
// then replays what it wrote through the harness's checks and reports
// drift from the goldens. With Config.Emulator it starts an in-process
// emulator per run, answering each call with its step's reply script; a
// Config.BaseURL that is a `conform emulate` server (Config.Source, else
// DetectEmulator) is recorded the same way: source emulator, with the
// fake key. Otherwise keys come from the registry's api_key_env
// variables. Requests keep their provider URLs in the cassette whatever
// server answered them.
package record
