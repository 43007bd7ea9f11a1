// Package machine names the machine a report was made on, the same way in
// every generated report.
package machine

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// Describe names the CPU, the cores and the tools: "AMD EPYC, 2 cores
// (GOMAXPROCS 2), linux/amd64; go1.26.8; Verilator 5.006 ...; gcc 12.2.0".
func Describe() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	ver := "verilator: unknown"
	if out, err := exec.Command("verilator", "--version").Output(); err == nil {
		ver = strings.TrimSpace(string(out))
	}
	gcc := ""
	if out, err := exec.Command("gcc", "-dumpfullversion").Output(); err == nil {
		gcc = ", gcc " + strings.TrimSpace(string(out))
	}
	return fmt.Sprintf("%s, %d cores (GOMAXPROCS %d), %s/%s; %s; %s%s",
		cpu, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version(), ver, gcc)
}
