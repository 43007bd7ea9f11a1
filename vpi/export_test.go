package vpi

import "testing"

var requesterLib builtLib

// BuildRequester builds vpi/testdata/requester.sv, the line memory's test
// design, for the external tests (linemem_equiv_test.go) and returns the
// library path.
func BuildRequester(t testing.TB) string {
	t.Helper()
	return buildDesign(t, &requesterLib, "requester", "requester", []string{"vpi/testdata/requester.sv"}, "")
}
