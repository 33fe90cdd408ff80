package langchaingoshim_test

import "github.com/metis-llm/metis/thirdparty/internal/shim"

// known are langchaingo's expected failures per provider: run → reason
// and evidence (README.md has them in full).
var known = map[string]shim.Known{}
