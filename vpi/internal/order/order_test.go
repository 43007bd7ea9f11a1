package order

import (
	"sync/atomic"
	"testing"
)

// TestStoreRelease: the value lands, and a reader on another goroutine that
// sees it sees the writes before it.
func TestStoreRelease(t *testing.T) {
	var flag uint64
	data := make([]uint64, 64)
	done := make(chan bool)
	go func() {
		for atomic.LoadUint64(&flag) == 0 {
		}
		ok := true
		for i, v := range data {
			ok = ok && v == uint64(i)+1
		}
		done <- ok
	}()
	for i := range data {
		data[i] = uint64(i) + 1
	}
	StoreRelease(&flag, 9)
	if !<-done {
		t.Error("the reader saw the flag before the data")
	}
	if flag != 9 {
		t.Errorf("flag = %d, want 9", flag)
	}
}
