package schemasvc

import (
	"fmt"
	"slices"
	"strings"

	"arcalis/tb/schemacase"
	"arcalis/tb/schemarx"
)

// ModelWidth is the Width of the model the server builds: make
// schema-model's default.
const ModelWidth = 16

// Lookup is the schemarx case of the service named (one of Names, as
// `arcalis vectors gen --service` and the IDL name it) at ModelWidth: its
// IDL, its tables (Case.Table) and its model (Case.Build, Case.OutDir).
func Lookup(name string) (schemarx.Case, error) {
	if !slices.Contains(Names(), name) {
		return schemarx.Case{}, fmt.Errorf("no service %q in idl/: want one of %s", name, strings.Join(Names(), ", "))
	}
	return schemarx.ParseCase(fmt.Sprintf("%s:%d", name, ModelWidth))
}

// PairCase is the model the server opens for the service named: Lookup's
// case in schema_pair, its three units in one model (make schema-pair-model).
func PairCase(name string) (schemacase.Case, error) {
	c, err := Lookup(name)
	c.Module = schemacase.Pair
	return c, err
}
