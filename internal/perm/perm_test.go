package perm

import (
	"fmt"
	"reflect"
	"testing"
)

func TestAllThree(t *testing.T) {
	want := [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	if got := All(3); !reflect.DeepEqual(got, want) {
		t.Fatalf("All(3) = %v, want %v", got, want)
	}
}

// TestAllFive checks that All(5) gives 5! distinct orders, each holding
// every index once.
func TestAllFive(t *testing.T) {
	got := All(5)
	if len(got) != 120 {
		t.Fatalf("All(5) gave %d orders, want 120", len(got))
	}
	seen := map[string]bool{}
	for _, p := range got {
		var has [5]bool
		for _, i := range p {
			if i < 0 || i >= 5 || has[i] {
				t.Fatalf("%v is not an order of 0..4", p)
			}
			has[i] = true
		}
		if k := fmt.Sprint(p); seen[k] {
			t.Fatalf("%v twice", p)
		} else {
			seen[k] = true
		}
	}
}

func TestAllSmall(t *testing.T) {
	if got := All(0); len(got) != 1 || len(got[0]) != 0 {
		t.Fatalf("All(0) = %v, want one empty order", got)
	}
	if got := All(1); !reflect.DeepEqual(got, [][]int{{0}}) {
		t.Fatalf("All(1) = %v", got)
	}
}
