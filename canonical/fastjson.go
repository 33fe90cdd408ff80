package canonical

import "github.com/metis-llm/metis/internal/canonjson"

// appendCanonicalText appends the canonical form of the JSON text data
// to dst in one pass, without decoding it into maps: canonjson.Writer,
// the writer the replay harness's match keys share. It reports false,
// with dst unspecified, for anything it leaves to the general path
// (decoding with encoding/json, then writeCanonical): text that is not
// JSON, an object key with an escape or a repeated key, an escaped
// surrogate not in a pair, invalid UTF-8, nesting deeper than fastDepth.
//
// The writer is strict here, where replay's keys take it lenient: this
// form is written to goldens and hashed, so its bytes must be the
// general path's, and a key with escapes would sort by its escaped form,
// not by its value as the general path sorts. Lone surrogates and
// invalid UTF-8 stay declined too, as they always were: no golden holds
// them, and the set of texts taken is the one FuzzCanonicalText has
// held to the general path. Where it reports true its bytes are the
// general path's (FuzzCanonicalText, TestCanonicalText).
func appendCanonicalText(dst, data []byte) ([]byte, bool) {
	w := canonjson.Writer{MaxDepth: fastDepth}
	out, r := w.Append(dst, data)
	return out, r == canonjson.OK
}

// fastDepth is the deepest nesting appendCanonicalText takes; deeper
// documents (and encoding/json's limit on them) are the general path's.
const fastDepth = 1000
