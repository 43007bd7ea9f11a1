package schemagold_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"arcalis/golden/schemagold"
	"arcalis/internal/memcached"
	"arcalis/internal/post_storage"
	"arcalis/internal/unique_id"
	"arcalis/internal/url_shorten"
	"arcalis/internal/user_timeline"
	"arcalis/thriftidl/schema"
	"arcalis/vectors"

	"github.com/apache/thrift/lib/go/thrift"
)

// results are Apache's generated result structs, by service and method.
var results = map[string]map[string]func() thrift.TStruct{
	"MemcachedService": {
		"Set": func() thrift.TStruct { return memcached.NewMemcachedServiceSetResult() },
		"Get": func() thrift.TStruct { return memcached.NewMemcachedServiceGetResult() },
	},
	"UniqueIdService": {
		"ComposeUniqueId": func() thrift.TStruct { return unique_id.NewUniqueIdServiceComposeUniqueIdResult() },
	},
	"UrlShortenService": {
		"ComposeUrls":     func() thrift.TStruct { return url_shorten.NewUrlShortenServiceComposeUrlsResult() },
		"GetExtendedUrls": func() thrift.TStruct { return url_shorten.NewUrlShortenServiceGetExtendedUrlsResult() },
	},
	"PostStorageService": {
		"StorePost": func() thrift.TStruct { return post_storage.NewPostStorageServiceStorePostResult() },
		"ReadPost":  func() thrift.TStruct { return post_storage.NewPostStorageServiceReadPostResult() },
		"ReadPosts": func() thrift.TStruct { return post_storage.NewPostStorageServiceReadPostsResult() },
	},
	"UserTimelineService": {
		"WriteUserTimeline": func() thrift.TStruct { return user_timeline.NewUserTimelineServiceWriteUserTimelineResult() },
		"ReadUserTimeline":  func() thrift.TStruct { return user_timeline.NewUserTimelineServiceReadUserTimelineResult() },
	},
}

// randResult sets, in Apache's result struct res of method mi, field k of
// the result struct (success or an exception) to a random value; k equal
// to the field count leaves it empty (a void method's success).
func randResult(rng *rand.Rand, tab *schema.Table, mi, k int, res thrift.TStruct, lim sizes) {
	fields := tab.StructFields(tab.Methods[mi].Result)
	if k == len(fields) {
		return
	}
	a := reflect.ValueOf(res).Elem()
	for i := range a.NumField() {
		if id, ok := thriftID(a.Type().Field(i)); ok && id == fields[k].ID {
			fv := a.Field(i)
			fv.Set(randValue(rng, tab, fields[k].Type, fv.Type(), lim))
			return
		}
	}
	panic(fmt.Sprintf("result of %s has no field %d", tab.Methods[mi].Name, fields[k].ID))
}

// apacheStruct is Apache's struct a (a struct value) as the values
// BuildResp takes: a nil pointer, slice or map is absent (what Apache
// writes for an absent optional field; for others, Serialize's zero
// value); a scalar or string field that is not optional and holds its zero
// value is left out when drop says so (Serialize writes it as Apache does).
func apacheStruct(tab *schema.Table, st int, a reflect.Value, drop func() bool) *schemagold.Struct {
	out := &schemagold.Struct{Name: tab.Structs[st].Name}
	byID := map[int16]int{}
	for i := range a.NumField() {
		if id, ok := thriftID(a.Type().Field(i)); ok {
			byID[id] = i
		}
	}
	for _, f := range tab.StructFields(st) {
		av := a.Field(byID[f.ID])
		switch av.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			if av.IsNil() {
				continue
			}
		default:
			if f.Req != 2 && av.IsZero() && drop() {
				continue
			}
		}
		out.Fields = append(out.Fields, schemagold.FieldValue{ID: f.ID, Name: f.Name, Value: apacheValue(tab, f.Type, av, drop)})
	}
	return out
}

// apacheValue is a present value of table type ti.
func apacheValue(tab *schema.Table, ti int, av reflect.Value, drop func() bool) any {
	ty := tab.Types[ti]
	if av.Kind() == reflect.Pointer {
		if ty.Wire == schema.Struct {
			return apacheStruct(tab, ty.Struct, av.Elem(), drop)
		}
		av = av.Elem()
	}
	switch ty.Wire {
	case schema.Bool:
		return av.Bool()
	case schema.Byte:
		return int8(av.Int())
	case schema.I16:
		return int16(av.Int())
	case schema.I32:
		return int32(av.Int())
	case schema.I64:
		return av.Int()
	case schema.Double:
		return av.Float()
	case schema.String:
		if av.Kind() == reflect.String {
			return av.String()
		}
		return string(av.Bytes())
	case schema.List, schema.Set:
		l := make([]any, av.Len())
		for k := range l {
			l[k] = apacheValue(tab, ty.Elem, av.Index(k), drop)
		}
		return l
	case schema.Map:
		var m []schemagold.MapEntry
		iter := av.MapRange()
		for iter.Next() {
			m = append(m, schemagold.MapEntry{Key: apacheValue(tab, ty.Key, iter.Key(), drop), Value: apacheValue(tab, ty.Elem, iter.Value(), drop)})
		}
		return m
	}
	panic("apacheValue: type " + schema.WireName(ty.Wire))
}

// apacheReply is the REPLY Apache's generated server code writes for res.
func apacheReply(t testing.TB, name string, seq int32, res thrift.TStruct) []byte {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	msg, err := vectors.EncodeMessage(vectors.StrictBinary(buf), buf, name, thrift.REPLY, seq, res)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// apacheReadReply reads reply as Apache's generated client does: the
// message header (strict), then the result struct's Read; it fails unless
// the whole reply is read.
func apacheReadReply(svc *service, reply []byte) (string, int32, thrift.TStruct, error) {
	ctx := context.Background()
	buf := thrift.NewTMemoryBuffer()
	buf.Write(reply)
	p := thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{TBinaryStrictRead: thrift.BoolPtr(true), MaxMessageSize: int32(max(len(reply), 1))})
	name, typ, seq, err := p.ReadMessageBegin(ctx)
	if err != nil {
		return "", 0, nil, err
	}
	if typ != thrift.REPLY {
		return "", 0, nil, fmt.Errorf("message type %d, not REPLY", typ)
	}
	mk, ok := results[svc.name][name]
	if !ok {
		return "", 0, nil, fmt.Errorf("no method %q", name)
	}
	res := mk()
	if err := res.Read(ctx, p); err != nil {
		return "", 0, nil, err
	}
	if err := p.ReadMessageEnd(ctx); err != nil {
		return "", 0, nil, err
	}
	if buf.Len() != 0 {
		return "", 0, nil, fmt.Errorf("%d bytes after the result struct", buf.Len())
	}
	return name, seq, res, nil
}

// TestSchemagoldRespApache: for every method of every service with a reply,
// random successes, every declared exception and an empty result (a void
// method's success, or the nil result of Apache's Go server), BuildResp's image serialized is byte for byte the REPLY Apache's
// generated code writes, and Apache's client reads back the same values.
func TestSchemagoldRespApache(t *testing.T) {
	const perCase = 100
	for _, svc := range services {
		tab := svc.table(t)
		rng := rand.New(rand.NewPCG(17, uint64(len(svc.name))))
		for mi, m := range tab.Methods {
			if m.Oneway {
				continue
			}
			fields := tab.StructFields(m.Result)
			cases := len(fields) + 1 // and the empty result: void's success, or a nil one
			counted := 0
			for k := range cases {
				for i := range perCase {
					lim := small
					if i%4 == 0 {
						lim = full
					}
					res := results[svc.name][m.Name]()
					randResult(rng, tab, mi, k, res, lim)
					vals := apacheStruct(tab, m.Result, reflect.ValueOf(res).Elem(), func() bool { return rng.IntN(2) == 0 })
					seq := int32(rng.Uint32())
					checkResp(t, svc, tab, mi, seq, res, vals)
					counted++
				}
			}
			t.Logf("%s.%s: %d results (%d cases)", svc.name, m.Name, counted, cases)
		}
	}
}

// checkResp builds the image of vals, serializes it, and compares it with
// Apache's reply of res, its own encoding of the same result.
func checkResp(t *testing.T, svc *service, tab *schema.Table, mi int, seq int32, res thrift.TStruct, vals *schemagold.Struct) {
	t.Helper()
	m := tab.Methods[mi]
	img, err := schemagold.BuildResp(tab, mi, seq, vals)
	if err != nil {
		t.Fatalf("%s: BuildResp: %v", m.Name, err)
	}
	again, err := schemagold.BuildResp(tab, mi, seq, vals)
	if err != nil || !bytes.Equal(img, again) {
		t.Fatalf("%s: BuildResp is not deterministic (%v)", m.Name, err)
	}
	h, err := schemagold.ParseRespHeader(img)
	if err != nil {
		t.Fatal(err)
	}
	if h.AreaEnd > uint32(len(img)) || len(img) > max(schemagold.MinCapacity, int(h.AreaEnd)+63) {
		t.Fatalf("%s: area end %d, capacity %d", m.Name, h.AreaEnd, len(img))
	}
	want := apacheReply(t, m.Name, seq, res)
	reply, code, off := schemagold.Serialize(tab, img, mi, seq)
	if code != schemagold.CodeRespOK || off != len(want) {
		t.Fatalf("%s: Serialize says %v at %d, want RESP_OK and the reply's length %d", m.Name, code, off, len(want))
	}
	if !bytes.Equal(reply, want) {
		t.Fatalf("%s: reply\n% x\nApache writes\n% x", m.Name, reply, want)
	}
	// The same image in a larger buffer: only the area is read.
	big := make([]byte, len(img)+4096)
	copy(big, img)
	for i := len(img); i < len(big); i++ {
		big[i] = 0xA5
	}
	if r2, c2, _ := schemagold.Serialize(tab, big, mi, seq); c2 != schemagold.CodeRespOK || !bytes.Equal(r2, want) {
		t.Fatalf("%s: in a larger buffer Serialize says %v", m.Name, c2)
	}
	name, gotSeq, back, err := apacheReadReply(svc, reply)
	if err != nil || name != m.Name || gotSeq != seq {
		t.Fatalf("%s: Apache reads %q seqid %d: %v", m.Name, name, gotSeq, err)
	}
	if err := compareStruct(tab, m.Result, reflect.ValueOf(back).Elem(), asRead(tab, m.Result, vals), m.Name+"_result"); err != nil {
		t.Fatal(err)
	}
}

// asRead is what a reader of the reply gets for the values v of struct st:
// every absent field that is not optional (nor a union's) is written, and
// read back, as its zero value, an absent struct as an empty one.
func asRead(tab *schema.Table, st int, v *schemagold.Struct) *schemagold.Struct {
	out := &schemagold.Struct{Name: tab.Structs[st].Name}
	for _, f := range tab.StructFields(st) {
		var val any
		found := false
		for _, fv := range v.Fields {
			if fv.ID == f.ID {
				val, found = readValue(tab, f.Type, fv.Value), true
			}
		}
		if !found {
			if f.Req == 2 || tab.Structs[st].Kind == schema.KindUnion {
				continue
			}
			val = zeroValue(tab, f.Type)
		}
		out.Fields = append(out.Fields, schemagold.FieldValue{ID: f.ID, Name: f.Name, Value: val})
	}
	return out
}

func readValue(tab *schema.Table, ti int, v any) any {
	ty := tab.Types[ti]
	switch x := v.(type) {
	case *schemagold.Struct:
		return asRead(tab, ty.Struct, x)
	case []any:
		l := make([]any, len(x))
		for k := range x {
			l[k] = readValue(tab, ty.Elem, x[k])
		}
		return l
	case []schemagold.MapEntry:
		m := make([]schemagold.MapEntry, len(x))
		for k, e := range x {
			m[k] = schemagold.MapEntry{Key: readValue(tab, ty.Key, e.Key), Value: readValue(tab, ty.Elem, e.Value)}
		}
		return m
	}
	return v
}

// zeroValue is the Go zero value of type ti as a reader gets it.
func zeroValue(tab *schema.Table, ti int) any {
	ty := tab.Types[ti]
	switch ty.Wire {
	case schema.Bool:
		return false
	case schema.Byte:
		return int8(0)
	case schema.I16:
		return int16(0)
	case schema.I32:
		return int32(0)
	case schema.I64:
		return int64(0)
	case schema.Double:
		return float64(0)
	case schema.String:
		return ""
	case schema.Struct:
		return &schemagold.Struct{Name: tab.Structs[ty.Struct].Name}
	case schema.Map:
		return []schemagold.MapEntry{}
	}
	return []any{}
}

// TestSchemagoldRespLayout: BuildResp's images of two results, byte for byte
// as docs/abi.md section 13 lays them out (hand-written), and their replies as
// hand-written bytes.
func TestSchemagoldRespLayout(t *testing.T) {
	le := binary.LittleEndian
	line := func(img []byte, at int, words ...uint64) {
		for k, w := range words {
			le.PutUint64(img[at+8*k:], w)
		}
	}
	desc := func(off, n uint32) uint64 { return uint64(off) | uint64(n)<<32 }

	// UniqueId ComposeUniqueId throwing ServiceException{errorCode 6, message "boom"}.
	tab := serviceNamed("UniqueIdService").table(t)
	se := &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 2, Value: "boom"}, {ID: 1, Value: int32(6)}}}
	img, err := schemagold.BuildResp(tab, 0, 7, &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 1, Value: se}}})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 128)
	line(want, 0, 64|24<<32, 120, 0, 7) // result at 64, 24 bytes; area end 120; seqid 7; method 1
	want[31] = 1
	line(want, 64, 0b10, 0, desc(88, 24)) // se present: its record at 88
	line(want, 88, 0b11, 6, desc(112, 4)) // errorCode 6, message at 112
	copy(want[112:], "boom")              // padded to 120
	if !bytes.Equal(img, want) {
		t.Fatalf("image\n% x\nwant\n% x", img, want)
	}
	reply, code, off := schemagold.Serialize(tab, img, 0, 7)
	wantReply := []byte{0x80, 1, 0, 2, 0, 0, 0, 15}
	wantReply = append(wantReply, "ComposeUniqueId"...)
	wantReply = append(wantReply, 0, 0, 0, 7, // seqid
		12, 0, 1, // se
		8, 0, 1, 0, 0, 0, 6, // errorCode
		11, 0, 2, 0, 0, 0, 4, 'b', 'o', 'o', 'm', // message
		0, // STOP of se
		0) // STOP of the result
	if code != schemagold.CodeRespOK || off != len(wantReply) || !bytes.Equal(reply, wantReply) {
		t.Fatalf("Serialize: %v at %d\n% x\nwant\n% x", code, off, reply, wantReply)
	}

	// UrlShorten ComposeUrls returning [Url{"a", "bb"}, Url{"ccc", "dddd"}].
	tab = serviceNamed("UrlShortenService").table(t)
	url := func(s, e string) *schemagold.Struct {
		return &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 1, Value: s}, {ID: 2, Value: e}}}
	}
	img, err = schemagold.BuildResp(tab, 0, -1, &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 0, Value: []any{url("a", "bb"), url("ccc", "dddd")}}}})
	if err != nil {
		t.Fatal(err)
	}
	want = make([]byte, 192)
	line(want, 0, 64|24<<32, 168, 0, 0xFFFFFFFF)
	want[31] = 1
	line(want, 64, 0b01, desc(88, 2), 0)             // success: 2 Urls at 88
	line(want, 88, 0b11, desc(136, 1), desc(144, 2)) // Url 0, its strings after the array
	line(want, 112, 0b11, desc(152, 3), desc(160, 4))
	copy(want[136:], "a")
	copy(want[144:], "bb")
	copy(want[152:], "ccc")
	copy(want[160:], "dddd")
	if !bytes.Equal(img, want) {
		t.Fatalf("image\n% x\nwant\n% x", img, want)
	}
	reply, code, off = schemagold.Serialize(tab, img, 0, -1)
	wantReply = []byte{0x80, 1, 0, 2, 0, 0, 0, 11}
	wantReply = append(wantReply, "ComposeUrls"...)
	wantReply = append(wantReply, 0xFF, 0xFF, 0xFF, 0xFF,
		15, 0, 0, 12, 0, 0, 0, 2, // success: list<struct> of 2
		11, 0, 1, 0, 0, 0, 1, 'a', 11, 0, 2, 0, 0, 0, 2, 'b', 'b', 0,
		11, 0, 1, 0, 0, 0, 3, 'c', 'c', 'c', 11, 0, 2, 0, 0, 0, 4, 'd', 'd', 'd', 'd', 0,
		0)
	if code != schemagold.CodeRespOK || off != len(wantReply) || !bytes.Equal(reply, wantReply) {
		t.Fatalf("Serialize: %v at %d\n% x\nwant\n% x", code, off, reply, wantReply)
	}
}
