// Package thirdparty certifies independently written LLM libraries through
// metis's conformance suite, each behind a thin shim.
package thirdparty
