package schemagold_test

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"arcalis/golden/schemagold"

	"github.com/apache/thrift/lib/go/thrift"
)

// TestSchemagoldApacheRoundTrip encodes random arguments of every method of
// every service with Apache's generated writers, half of the messages with
// unknown, type-mismatched and repeated fields inserted at every level,
// decodes them with Apache's generated readers and with Deserialize, and
// checks that the image read back holds exactly Apache's arguments.
func TestSchemagoldApacheRoundTrip(t *testing.T) {
	img, done := bigImage()
	defer done()
	for _, svc := range services {
		tab := svc.table(t)
		for mi, m := range tab.Methods {
			t.Run(svc.name+"/"+m.Name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(mi), uint64(len(svc.name))))
				injected, deepest, longest := 0, 0, 0
				for i := range 150 {
					args := svc.args[m.Name]()
					randArgs(rng, tab, mi, args, full)
					typ := thrift.TMessageType(thrift.CALL)
					if i%5 == 0 {
						typ = thrift.ONEWAY
					}
					var wrap func(thrift.TProtocol) thrift.TProtocol
					var inj *injector
					if i%2 == 1 {
						wrap = func(p thrift.TProtocol) thrift.TProtocol {
							inj = newInjector(rng, tab)(p).(*injector)
							return inj
						}
					}
					msg := encode(t, m.Name, typ, int32(rng.Uint32()), args, wrap)
					if inj != nil {
						injected += inj.count
					}
					d, err := apacheDecode(svc, msg)
					if err != nil {
						t.Fatalf("message %d: Apache cannot read it: %v", i, err)
					}
					if inj == nil && !looseEqual(reflect.ValueOf(args), reflect.ValueOf(d.args)) {
						t.Fatalf("message %d: Apache reads back other arguments than it wrote", i)
					}
					deepest, longest = max(deepest, d.maxDepth), max(longest, len(msg))
					if d.maxDepth > schemagold.MaxDepth {
						t.Fatalf("message %d: %d levels; the generator keeps to %d", i, d.maxDepth, schemagold.MaxDepth)
					}
					r := schemagold.Deserialize(tab, msg, img)
					func() {
						defer func() {
							if t.Failed() {
								t.Logf("message %d (%d bytes): % x", i, len(msg), msg[:min(len(msg), 512)])
							}
						}()
						checkAgree(t, tab, d, r, img)
					}()
				}
				if injected < 100 || deepest < schemagold.MaxDepth {
					t.Errorf("only %d fields injected, %d levels at most", injected, deepest)
				}
				t.Logf("%d fields injected, %d levels at most, longest message %d bytes", injected, deepest, longest)
			})
		}
	}
}

// looseEqual is reflect.DeepEqual but for what Apache's writer does not
// keep: a nil slice or map is written as an empty one, a nil struct
// pointer as an empty struct.
func looseEqual(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.Type().Elem().Kind() != reflect.Struct {
				return a.IsNil() == b.IsNil()
			}
			za, zb := reflect.New(a.Type().Elem()), reflect.New(a.Type().Elem())
			if !a.IsNil() {
				za = a
			}
			if !b.IsNil() {
				zb = b
			}
			return looseEqual(za.Elem(), zb.Elem())
		}
		return looseEqual(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if _, ok := thriftID(a.Type().Field(i)); ok && !looseEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !looseEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		iter := a.MapRange()
		for iter.Next() {
			v := b.MapIndex(iter.Key())
			if !v.IsValid() || !looseEqual(iter.Value(), v) {
				return false
			}
		}
		return true
	case reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	}
	return a.Interface() == b.Interface()
}
