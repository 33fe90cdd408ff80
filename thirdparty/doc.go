// Package thirdparty is the proof that metis's certification works for
// adapters metis did not write: it certifies two independently written Go
// LLM libraries, charm.land/fantasy (fantasyshim) and
// github.com/tmc/langchaingo (langchaingoshim), each behind the thinnest
// shim that turns canonical requests into the library's calls and the
// library's answers back into canonical responses and events. It is a
// module of its own, like compat/ and bench/, so that the libraries never
// become dependencies of metis; run it with make thirdparty. Each
// library's remaining failures are listed, with their evidence, in its
// known_test.go and in README.md.
package thirdparty
