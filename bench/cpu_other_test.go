//go:build !unix

package bench

// processCPU is not measured on this system: no cpu-ns/op is reported.
func processCPU() int64 { return 0 }

// childCPU is not measured on this system.
func childCPU() int64 { return 0 }
