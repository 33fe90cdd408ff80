//go:build !matrix

package execadapter_test

// fullMatrix: without the matrix tag the shim certification samples the
// scenarios (TestBuiltinAdaptersCertifyThroughTheShim).
const fullMatrix = false
