//go:build matrix

package execadapter_test

// fullMatrix: go test -tags matrix certifies every built-in adapter on
// every scenario through the shim (TestBuiltinAdaptersCertifyThroughTheShim).
const fullMatrix = true
