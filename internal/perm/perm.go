// Package perm enumerates permutations: the field orders that the tests of
// the reference and of the RTL run a message through.
package perm

// All returns every order of 0..n-1, n! of them, in lexicographic order.
func All(n int) [][]int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return orders(s)
}

// orders returns every order of s: each element first, then every order
// of the others.
func orders(s []int) [][]int {
	if len(s) <= 1 {
		return [][]int{append([]int(nil), s...)}
	}
	var out [][]int
	for i := range s {
		rest := append(append([]int(nil), s[:i]...), s[i+1:]...)
		for _, p := range orders(rest) {
			out = append(out, append([]int{s[i]}, p...))
		}
	}
	return out
}
