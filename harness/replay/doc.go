// Package replay serves recorded HTTP interactions — go-vcr v4 cassettes —
// to adapters as if they came from the provider, so that streaming,
// cancellation and retries behave as they do on the wire.
//
// A Player is an http.RoundTripper over one cassette. It differs from
// go-vcr's own replaying recorder where LLM streams need it to (see
// LIBRARY-NOTES.md):
//
//   - Matching ignores what varies between runs and means nothing: the
//     host, the User-Agent and SDK headers, every auth header, the values
//     of query parameters not on QueryParams (the recorder stores them as
//     REDACTED) and of credential fields in the body (api_key,
//     access_token, password, …, also REDACTED in the cassette), JSON key
//     order and whitespace, and the ULIDs of canonical tool and request
//     ids (tu_…, req_…), which are numbered in order of first appearance
//     instead. It compares the method, the URL path, the query parameter
//     names and allowlisted values, the JSON body and the headers that
//     change behaviour (anthropic-version, anthropic-beta).
//   - Identical requests are served in recorded order, each once, as in
//     go-vcr: a retry replays the next recorded attempt.
//   - A text/event-stream body is split into its events and handed out one
//     event per Read, optionally paced, and every Read selects on the
//     request's context, so a cancelled call stops mid-stream exactly as
//     it would on a socket.
//   - A request nothing matches fails with a *MismatchError whose message
//     holds a (-want +got) line diff against the nearest recorded request.
//
// Certification matches otherwise (WithSemantic, MatchSemantic): a
// request is paired with the recordings of its endpoint in order, its
// body compared under its wire format's equivalence (package equiv), and
// a request that differs is still served the recorded answer while
// Player.Differences keeps where it differs, field by field
// (docs/request-matching.md).
//
// Player.Unused lists the interactions never served, so a harness can
// notice a cassette that has drifted from its scenario.
package replay
