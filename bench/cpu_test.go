package bench

import "testing"

// cpuClock measures a benchmark's CPU time per op (cpu-ns/op) beside
// go test's wall time. On a shared machine, wall time includes the time
// other processes hold the cores; the process's CPU time does not, so
// ratios between implementations measured at different moments stay
// meaningful. cmd/benchratio states the targets in it when present.
type cpuClock int64

// startCPU starts the clock; call it where the timed loop starts.
func startCPU() cpuClock { return cpuClock(processCPU()) }

// report adds cpu-ns/op for the b.N ops since the clock started.
func (c cpuClock) report(b *testing.B) {
	if c == 0 || b.N == 0 {
		return
	}
	b.ReportMetric(float64(processCPU()-int64(c))/float64(b.N), "cpu-ns/op")
}
