package splitmix

import "testing"

// The first outputs for seed 1234567, from the algorithm's published
// reference implementation (Vigna's splitmix64.c).
func TestKnownSequence(t *testing.T) {
	s := Source(1234567)
	want := []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423}
	for i, w := range want {
		if got := s.Next(); got != w {
			t.Fatalf("output %d = %d, want %d", i, got, w)
		}
	}
}
