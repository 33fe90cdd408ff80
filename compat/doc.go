// Package compat checks the emulator against the providers' official Go
// SDKs — github.com/anthropics/anthropic-sdk-go, github.com/openai/openai-go
// and google.golang.org/genai — which must accept every content kind and
// every error the emulator produces, decoded to what the emulator was
// scripted with. It is a module of its own so that the SDKs never become
// dependencies of metis; run it with (cd compat && go test ./...).
package compat
