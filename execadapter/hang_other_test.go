//go:build !unix

package execadapter_test

import "os"

// hangSignal: no signal makes a child on this system dump its stacks.
var hangSignal os.Signal
