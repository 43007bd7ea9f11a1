package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// goBench is one benchmark's medians over its -count runs.
type goBench struct {
	Name        string
	NsPerOp     float64
	MBPerSec    float64
	BytesPerOp  float64
	AllocsPerOp float64
	Runs        int
}

// runGoBench runs `go test -bench` on pkg and returns each benchmark's
// medians, by name without the -GOMAXPROCS suffix.
func runGoBench(goCmd, pkg, pattern string, count int, benchtime string) (map[string]goBench, error) {
	args := []string{"test", "-run", "^$", "-bench", pattern, "-benchmem", "-count", strconv.Itoa(count)}
	if benchtime != "" {
		args = append(args, "-benchtime", benchtime)
	}
	cmd := exec.Command(goCmd, append(args, pkg)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %w\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	samples := map[string][][4]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndex(name, "-"); i > 0 {
			name = name[:i]
		}
		var v [4]float64 // ns/op, MB/s, B/op, allocs/op
		for i := 2; i+1 < len(f); i += 2 {
			x, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				v[0] = x
			case "MB/s":
				v[1] = x
			case "B/op":
				v[2] = x
			case "allocs/op":
				v[3] = x
			}
		}
		samples[name] = append(samples[name], v)
	}
	res := map[string]goBench{}
	for name, s := range samples {
		b := goBench{Name: name, Runs: len(s)}
		col := func(k int) float64 {
			xs := make([]float64, len(s))
			for i := range s {
				xs[i] = s[i][k]
			}
			sort.Float64s(xs)
			return xs[len(xs)/2]
		}
		b.NsPerOp, b.MBPerSec, b.BytesPerOp, b.AllocsPerOp = col(0), col(1), col(2), col(3)
		res[name] = b
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("go test -bench %s %s: no benchmark results in\n%s", pattern, pkg, out)
	}
	return res, nil
}
