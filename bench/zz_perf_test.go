package main

import (
	"os"
	"strconv"
	"testing"
	"time"

	"arcalis/tb"
)

func TestZZPerf(t *testing.T) {
	passes, _ := strconv.Atoi(os.Getenv("ZZ_PASSES"))
	if passes == 0 {
		t.Skip()
	}
	lib := os.Getenv("ZZ_LIB")
	if lib == "" {
		lib = "../build/model/libvmodel.so"
	}
	a, err := tb.Open(lib, tb.MemConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.Configure(tb.WindowBase, tb.WindowSize)
	w, err := defaultVectors("../vectors/default.vec")
	if os.Getenv("ZZ_LARGE") != "" {
		w, err = largeValues(48)
	}
	if err != nil {
		t.Fatal(err)
	}
	k0 := a.SimCalls()
	a.TimeSim(true)
	tp, _, err := runGo(a, w, false, passes)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("calls/cycle %.3f", float64(a.SimCalls()-k0)/float64(tp.Cycles))
	t.Logf("%d cycles %.1f ns/cycle %v; inside %.1f ns/cycle", tp.Cycles, tp.NsPerCycle(), time.Duration(tp.Seconds*1e9), float64(a.SimTime().Nanoseconds())/float64(tp.Cycles))
}
