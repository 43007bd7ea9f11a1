package schemagold_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"arcalis/golden/schemagold"
	"arcalis/internal/memcached"
	"arcalis/internal/post_storage"
	"arcalis/internal/unique_id"
	"arcalis/internal/url_shorten"
	"arcalis/internal/user_timeline"
	"arcalis/thriftidl"
	"arcalis/thriftidl/schema"
	"arcalis/vectors"

	"github.com/apache/thrift/lib/go/thrift"
)

// service is one service of idl/ with Apache's generated args structs.
type service struct {
	name string
	file string
	args map[string]func() thrift.TStruct // method name -> a new Apache args struct
}

var services = []*service{
	{"MemcachedService", "memcached.thrift", map[string]func() thrift.TStruct{
		"Set": func() thrift.TStruct { return memcached.NewMemcachedServiceSetArgs() },
		"Get": func() thrift.TStruct { return memcached.NewMemcachedServiceGetArgs() },
	}},
	{"UniqueIdService", "unique_id.thrift", map[string]func() thrift.TStruct{
		"ComposeUniqueId": func() thrift.TStruct { return unique_id.NewUniqueIdServiceComposeUniqueIdArgs() },
	}},
	{"UrlShortenService", "url_shorten.thrift", map[string]func() thrift.TStruct{
		"ComposeUrls":     func() thrift.TStruct { return url_shorten.NewUrlShortenServiceComposeUrlsArgs() },
		"GetExtendedUrls": func() thrift.TStruct { return url_shorten.NewUrlShortenServiceGetExtendedUrlsArgs() },
	}},
	{"PostStorageService", "post_storage.thrift", map[string]func() thrift.TStruct{
		"StorePost": func() thrift.TStruct { return post_storage.NewPostStorageServiceStorePostArgs() },
		"ReadPost":  func() thrift.TStruct { return post_storage.NewPostStorageServiceReadPostArgs() },
		"ReadPosts": func() thrift.TStruct { return post_storage.NewPostStorageServiceReadPostsArgs() },
	}},
	{"UserTimelineService", "user_timeline.thrift", map[string]func() thrift.TStruct{
		"WriteUserTimeline": func() thrift.TStruct { return user_timeline.NewUserTimelineServiceWriteUserTimelineArgs() },
		"ReadUserTimeline":  func() thrift.TStruct { return user_timeline.NewUserTimelineServiceReadUserTimelineArgs() },
	}},
}

func serviceNamed(name string) *service {
	for _, s := range services {
		if s.name == name {
			return s
		}
	}
	panic("no service " + name)
}

var tables sync.Map // service name -> *schema.Table

// table builds (once) the tables of s from its IDL in idl/.
func (s *service) table(t testing.TB) *schema.Table {
	t.Helper()
	if tab, ok := tables.Load(s.name); ok {
		return tab.(*schema.Table)
	}
	prog, err := thriftidl.Load(filepath.Join("..", "..", "idl", s.file))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := schema.Build(prog, s.name)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Methods) != len(s.args) {
		t.Fatalf("%s: the tables have %d methods, the test knows %d", s.name, len(tab.Methods), len(s.args))
	}
	tables.Store(s.name, tab)
	return tab
}

// methodIndex returns the index of method name in tab, or -1.
func methodIndex(tab *schema.Table, name string) int {
	for i, m := range tab.Methods {
		if m.Name == name {
			return i
		}
	}
	return -1
}

// imgPool holds images of the largest capacity.
var imgPool = sync.Pool{New: func() any { b := make([]byte, schemagold.MaxCapacity); return &b }}

// bigImage returns an image of capacity MaxCapacity and the function that
// gives it back.
func bigImage() ([]byte, func()) {
	p := imgPool.Get().(*[]byte)
	return *p, func() { imgPool.Put(p) }
}

// spy passes every call to Apache's binary protocol and records the deepest
// nesting and the largest container count the generated code and
// thrift.Skip read.
type spy struct {
	thrift.TProtocol
	depth, maxDepth, maxCount int
}

func (s *spy) enter(n int) {
	s.depth++
	s.maxDepth = max(s.maxDepth, s.depth)
	s.maxCount = max(s.maxCount, n)
}

func (s *spy) ReadStructBegin(ctx context.Context) (string, error) {
	name, err := s.TProtocol.ReadStructBegin(ctx)
	if err == nil {
		s.enter(0)
	}
	return name, err
}

func (s *spy) ReadStructEnd(ctx context.Context) error {
	s.depth--
	return s.TProtocol.ReadStructEnd(ctx)
}

func (s *spy) ReadListBegin(ctx context.Context) (thrift.TType, int, error) {
	e, n, err := s.TProtocol.ReadListBegin(ctx)
	if err == nil {
		s.enter(n)
	}
	return e, n, err
}

func (s *spy) ReadListEnd(ctx context.Context) error {
	s.depth--
	return s.TProtocol.ReadListEnd(ctx)
}

func (s *spy) ReadSetBegin(ctx context.Context) (thrift.TType, int, error) {
	e, n, err := s.TProtocol.ReadSetBegin(ctx)
	if err == nil {
		s.enter(n)
	}
	return e, n, err
}

func (s *spy) ReadSetEnd(ctx context.Context) error {
	s.depth--
	return s.TProtocol.ReadSetEnd(ctx)
}

func (s *spy) ReadMapBegin(ctx context.Context) (thrift.TType, thrift.TType, int, error) {
	k, v, n, err := s.TProtocol.ReadMapBegin(ctx)
	if err == nil {
		s.enter(n)
	}
	return k, v, n, err
}

func (s *spy) ReadMapEnd(ctx context.Context) error {
	s.depth--
	return s.TProtocol.ReadMapEnd(ctx)
}

// Skip skips through the spy, so that it sees the levels skipped too.
func (s *spy) Skip(ctx context.Context, t thrift.TType) error {
	return thrift.SkipDefaultDepth(ctx, s, t)
}

// decoded is what Apache's generated code makes of a message.
type decoded struct {
	name     string
	typ      thrift.TMessageType
	seq      int32
	args     thrift.TStruct
	consumed int
	maxDepth int // deepest level, the args struct being 1
	maxCount int // largest list, set or map count
}

var errUnknownMethod = errors.New("the service has no method of that name (Apache's processor answers with an exception)")

// apacheDecode reads msg as an Apache server of svc does: ReadMessageBegin
// with strict read off, then the generated Read of the named method's args.
// MaxMessageSize is the message's length: a count or length above it can
// never be read whole, so no message Apache would accept is refused, and
// Apache does not preallocate for counts the message cannot hold.
func apacheDecode(svc *service, msg []byte) (decoded, error) {
	ctx := context.Background()
	var d decoded
	buf := thrift.NewTMemoryBuffer()
	buf.Write(msg)
	cfg := &thrift.TConfiguration{TBinaryStrictRead: thrift.BoolPtr(false), MaxMessageSize: int32(max(len(msg), 1))}
	s := &spy{TProtocol: thrift.NewTBinaryProtocolConf(buf, cfg)}
	var err error
	if d.name, d.typ, d.seq, err = s.ReadMessageBegin(ctx); err != nil {
		return d, err
	}
	mk, ok := svc.args[d.name]
	if !ok {
		return d, errUnknownMethod
	}
	d.args = mk()
	if err := d.args.Read(ctx, s); err != nil {
		return d, err
	}
	if err := s.ReadMessageEnd(ctx); err != nil {
		return d, err
	}
	d.consumed = len(msg) - buf.Len()
	d.maxDepth, d.maxCount = s.maxDepth, s.maxCount
	return d, nil
}

// thriftID is the field id of a Go field of Apache's generated struct, from
// its `thrift:"name,id"` tag, and false for a field without one.
func thriftID(f reflect.StructField) (int16, bool) {
	tag, ok := f.Tag.Lookup("thrift")
	if !ok {
		return 0, false
	}
	parts := strings.Split(tag, ",")
	id, err := strconv.Atoi(parts[1])
	return int16(id), err == nil
}

// compareStruct compares Apache's decoded struct a (a struct value) with
// the struct ReadBack read, field by field, as struct st of tab.
func compareStruct(tab *schema.Table, st int, a reflect.Value, ours *schemagold.Struct, path string) error {
	if ours == nil {
		return fmt.Errorf("%s: Apache has a struct, the image none", path)
	}
	if ours.Name != tab.Structs[st].Name {
		return fmt.Errorf("%s: image struct %s, want %s", path, ours.Name, tab.Structs[st].Name)
	}
	byID := map[int16]int{}
	for i := range a.NumField() {
		if id, ok := thriftID(a.Type().Field(i)); ok {
			byID[id] = i
		}
	}
	if len(byID) != tab.Structs[st].Count {
		return fmt.Errorf("%s: Apache's %s has %d fields, the tables %d", path, a.Type(), len(byID), tab.Structs[st].Count)
	}
	got := map[int16]any{}
	for k, f := range ours.Fields {
		if k > 0 && ours.Fields[k-1].ID >= f.ID {
			return fmt.Errorf("%s: ReadBack's fields are not in ascending id order", path)
		}
		got[f.ID] = f.Value
	}
	for _, f := range tab.StructFields(st) {
		i, ok := byID[f.ID]
		if !ok {
			return fmt.Errorf("%s: Apache's %s has no field %d", path, a.Type(), f.ID)
		}
		ov, present := got[f.ID]
		if err := compareField(tab, f.Type, a.Field(i), ov, present, path+"."+f.Name); err != nil {
			return err
		}
		delete(got, f.ID)
	}
	if len(got) > 0 {
		return fmt.Errorf("%s: ReadBack has fields the struct does not: %v", path, got)
	}
	return nil
}

// compareField compares a field of Apache's struct with the image's value
// (present false: absent from the image).
func compareField(tab *schema.Table, ti int, av reflect.Value, ov any, present bool, path string) error {
	nilable := false
	switch av.Kind() {
	case reflect.Pointer, reflect.Map:
		nilable = true
	case reflect.Slice:
		nilable = true
	}
	if nilable && av.IsNil() {
		if present && !(av.Kind() == reflect.Slice && av.Type().Elem().Kind() == reflect.Uint8 && ov == "") {
			return fmt.Errorf("%s: Apache has none, the image %#v", path, ov)
		}
		return nil
	}
	if !present {
		if nilable || !av.IsZero() {
			return fmt.Errorf("%s: Apache has %#v, the image none", path, av.Interface())
		}
		return nil
	}
	return compareValue(tab, ti, av, ov, path)
}

// compareValue compares a present value of type ti.
func compareValue(tab *schema.Table, ti int, av reflect.Value, ov any, path string) error {
	ty := tab.Types[ti]
	if av.Kind() == reflect.Pointer {
		if av.IsNil() {
			return fmt.Errorf("%s: Apache has a nil element, the image %#v", path, ov)
		}
		if ty.Wire == schema.Struct {
			os, _ := ov.(*schemagold.Struct)
			return compareStruct(tab, ty.Struct, av.Elem(), os, path)
		}
		av = av.Elem()
	}
	bad := func() error {
		return fmt.Errorf("%s: Apache %#v, image %#v (%s)", path, av.Interface(), ov, schema.WireName(ty.Wire))
	}
	switch ty.Wire {
	case schema.Bool:
		if v, ok := ov.(bool); !ok || v != av.Bool() {
			return bad()
		}
	case schema.Byte, schema.I16, schema.I32, schema.I64:
		var v int64
		switch x := ov.(type) {
		case int8:
			v = int64(x)
		case int16:
			v = int64(x)
		case int32:
			v = int64(x)
		case int64:
			v = x
		}
		want := map[uint8]string{schema.Byte: "int8", schema.I16: "int16", schema.I32: "int32", schema.I64: "int64"}[ty.Wire]
		if reflect.TypeOf(ov).String() != want || v != av.Int() {
			return bad()
		}
	case schema.Double:
		if v, ok := ov.(float64); !ok || math.Float64bits(v) != math.Float64bits(av.Float()) {
			return bad()
		}
	case schema.String:
		v, ok := ov.(string)
		var a string
		if av.Kind() == reflect.String {
			a = av.String()
		} else {
			a = string(av.Bytes())
		}
		if !ok || v != a {
			return bad()
		}
	case schema.List, schema.Set:
		l, ok := ov.([]any)
		if !ok || len(l) != av.Len() {
			return fmt.Errorf("%s: Apache has %d elements, the image %#v", path, av.Len(), ov)
		}
		for k := range l {
			if err := compareValue(tab, ty.Elem, av.Index(k), l[k], fmt.Sprintf("%s[%d]", path, k)); err != nil {
				return err
			}
		}
	case schema.Map:
		entries, ok := ov.([]schemagold.MapEntry)
		if !ok {
			return bad()
		}
		last := map[any]any{} // the image's entries, the later one winning, as Apache's map
		for _, e := range entries {
			last[canon(e.Key)] = e.Value
		}
		if len(last) != av.Len() {
			return fmt.Errorf("%s: Apache's map has %d keys, the image %d (%d entries)", path, av.Len(), len(last), len(entries))
		}
		iter := av.MapRange()
		for iter.Next() {
			k := canonReflect(iter.Key())
			v, ok := last[k]
			if !ok {
				return fmt.Errorf("%s: Apache's key %#v is not in the image", path, k)
			}
			if err := compareValue(tab, ty.Elem, iter.Value(), v, fmt.Sprintf("%s[%v]", path, k)); err != nil {
				return err
			}
		}
	default:
		return bad()
	}
	return nil
}

// canon is a comparable form of a scalar map key read back.
func canon(v any) any {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case float64:
		return math.Float64bits(x)
	}
	return v
}

// canonReflect is canon of a key of Apache's map.
func canonReflect(v reflect.Value) any {
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Bool:
		return v.Bool()
	case reflect.Float64:
		return math.Float64bits(v.Float())
	}
	panic(fmt.Sprintf("map key of kind %s", v.Kind()))
}

// checkAgree fails unless r is OK and the image read back holds exactly the
// message Apache decoded.
func checkAgree(t testing.TB, tab *schema.Table, d decoded, r schemagold.Result, img []byte) {
	t.Helper()
	mi := methodIndex(tab, d.name)
	want := schemagold.Result{
		ArgsOffset: schemagold.AreaStart, ArgsSize: uint32(schemagold.RecordSize(tab, tab.Methods[mi].Args)),
		AreaEnd: r.AreaEnd, SeqID: d.seq, Code: schemagold.CodeOK, MsgType: uint8(d.typ),
		Method: uint8(mi + 1), Offset: uint32(d.consumed),
	}
	if r != want {
		t.Fatalf("Deserialize says %+v; Apache: %+v", r, want)
	}
	h, err := schemagold.ParseHeader(img)
	if err != nil || h != r {
		t.Fatalf("header line %+v, %v; Deserialize returned %+v", h, err, r)
	}
	m, err := schemagold.ReadBack(tab, img)
	if err != nil {
		t.Fatalf("ReadBack: %v", err)
	}
	if m.Method != d.name || m.Result != r {
		t.Fatalf("ReadBack: method %q, %+v; want %q, %+v", m.Method, m.Result, d.name, r)
	}
	if err := compareStruct(tab, tab.Methods[mi].Args, reflect.ValueOf(d.args).Elem(), m.Args, d.name+"_args"); err != nil {
		t.Fatal(err)
	}
}

// encode writes a CALL of args with Apache's binary protocol, strict write,
// through wrap (nil: none) as the protocol the generated Write writes to.
func encode(t testing.TB, name string, typ thrift.TMessageType, seq int32, args thrift.TStruct, wrap func(thrift.TProtocol) thrift.TProtocol) []byte {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	p := vectors.StrictBinary(buf)
	if wrap != nil {
		p = wrap(p)
	}
	msg, err := vectors.EncodeMessage(p, buf, name, typ, seq, args)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}
