//go:build unix

package bench

import "syscall"

// processCPU is the CPU time the process has used so far, user and
// system, over all its threads (the benchmark's and the garbage
// collector's), in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// childCPU is the CPU time the process's waited-for children have used
// so far, user and system, in nanoseconds.
func childCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
