package golden

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/bench/workload"
	"arcalis/internal/memcached"
)

// BenchmarkDecode decodes the Set requests of each workload mix with the
// reference (Deserialize into an App.Recv image) and with Apache Thrift's
// generated Go code (binary protocol over a transport that reads the same
// bytes in place); ns/op is per request. `make bench` runs it and reports
// the ratio.
func BenchmarkDecode(b *testing.B) {
	for _, mix := range workload.Mixes {
		reqs, err := mix.Generate(2000, 3)
		if err != nil {
			b.Fatal(err)
		}
		sets := workload.Sets(reqs)
		total := 0
		for _, r := range sets {
			total += len(r.Msg)
		}
		avg := int64(total / len(sets))

		b.Run(mix.Name+"/golden", func(b *testing.B) {
			img := make([]byte, 1030*64) // the harness's default App.Recv
			b.ReportAllocs()
			b.SetBytes(avg)
			i := 0
			for b.Loop() {
				if r := Deserialize(sets[i].Msg, img); r.Code != CodeOK {
					b.Fatalf("request %d: %v", i, r.Code)
				}
				if i++; i == len(sets) {
					i = 0
				}
			}
		})
		b.Run(mix.Name+"/apache", func(b *testing.B) {
			ctx := context.Background()
			tr := &sliceTransport{}
			p := thrift.NewTBinaryProtocolConf(tr, &thrift.TConfiguration{})
			var args memcached.MemcachedServiceSetArgs
			b.ReportAllocs()
			b.SetBytes(avg)
			i := 0
			for b.Loop() {
				tr.Reset(sets[i].Msg)
				name, _, _, err := p.ReadMessageBegin(ctx)
				if err != nil || name != "Set" {
					b.Fatalf("request %d: %q, %v", i, name, err)
				}
				args = memcached.MemcachedServiceSetArgs{}
				if err := args.Read(ctx, p); err != nil {
					b.Fatalf("request %d: %v", i, err)
				}
				if err := p.ReadMessageEnd(ctx); err != nil {
					b.Fatalf("request %d: %v", i, err)
				}
				if i++; i == len(sets) {
					i = 0
				}
			}
		})
	}
}

// sliceTransport is a read-only thrift.TTransport over a byte slice, so that
// Apache's decoder reads the message where it lies, as Deserialize does.
type sliceTransport struct{ bytes.Reader }

func (*sliceTransport) Open() error                 { return nil }
func (*sliceTransport) IsOpen() bool                { return true }
func (*sliceTransport) Close() error                { return nil }
func (*sliceTransport) Flush(context.Context) error { return nil }
func (*sliceTransport) Write(p []byte) (int, error) {
	return 0, thrift.NewTTransportException(thrift.UNKNOWN_TRANSPORT_EXCEPTION, "read only")
}
func (t *sliceTransport) RemainingBytes() (num_bytes uint64) { return uint64(t.Len()) }
