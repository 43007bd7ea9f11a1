package schemarx

import (
	"strings"
	"testing"

	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"
)

// fake stands in for recv_schema to check the harness without a model: it
// runs the reference on the message (msg, which the test sets: the module
// sees windows only), takes the message up to the result's offset as the
// windows allow, then writes the area Width bytes a cycle. Like the
// module, it shows each action the cycle after it decided it, and decides
// none while a take is shown or after stall_i. bug, if set, changes what
// it found before it writes it.
type fake struct {
	width int
	t     *schema.Table
	bug   func(f *fake)
	msg   []byte

	busy, writing, done bool
	method              uint8
	capacity            int
	start, want         int    // pos_i at start_i, and the offset to take the message up to
	got                 []byte // the args bytes taken
	img                 []byte
	res                 schemagold.Result
	wr                  int // next area byte to write
	out                 Outputs
	act                 Outputs // the action decided last cycle
	hang                bool    // never done: a bug
	overTake            bool    // takes a byte more than offered: a bug
	greedy              bool    // takes the message to its end: a bug
}

func newFake(t *schema.Table, width int) *fake {
	return &fake{width: width, t: t, img: make([]byte, MaxCap), out: Outputs{StData: make([]byte, width)}, act: Outputs{StData: make([]byte, width)}}
}

func (f *fake) Width() int { return f.width }
func (f *fake) Reset() error {
	f.busy, f.writing, f.done = false, false, false
	f.act.Take, f.act.StValid = 0, false
	return nil
}
func (f *fake) TraceOn(string) error { return nil }
func (f *fake) TraceOff() error      { return nil }

// Cycle shows the action decided last cycle and the result, then decides
// the next action and takes the edge.
func (f *fake) Cycle(in *Inputs) (*Outputs, error) {
	o, a := &f.out, &f.act
	*o = Outputs{StData: o.StData, Done: f.done, Take: a.Take, StValid: a.StValid, StAddr: a.StAddr, StMask: a.StMask,
		Code: uint8(f.res.Code), Offset: f.res.Offset, AreaEnd: f.res.AreaEnd, Depth: f.res.Depth,
		MissStruct: f.res.Struct, MissID: uint16(f.res.FieldID), ArgsSize: f.res.ArgsSize}
	copy(o.StData, a.StData)
	moving := a.Take != 0 // the window moves at this edge: what it shows now is stale
	a.Take, a.StValid, a.StAddr, a.StMask = 0, false, 0, 0
	switch {
	case in.Start:
		f.busy, f.writing, f.done = true, false, false
		f.method, f.capacity = in.Method, int(in.Cap)
		f.start, f.got = int(in.Pos), f.got[:0]
		f.res = schemagold.Deserialize(f.t, f.msg, f.img[:f.capacity])
		f.want = min(int(f.res.Offset), len(f.msg))
		if f.greedy {
			f.want = len(f.msg)
		}
	case !f.busy || in.Stall:
	case !f.writing:
		if moving {
			break
		}
		a.Take = max(0, min(in.Avail, f.want-f.start-len(f.got)))
		if f.overTake && a.Take < f.width {
			a.Take++
		}
		f.got = append(f.got, in.Win[:min(a.Take, len(in.Win))]...)
		if f.start+len(f.got) >= f.want {
			if f.bug != nil {
				f.bug(f)
			}
			f.writing, f.wr = true, schemagold.AreaStart
			if f.res.Code != schemagold.CodeOK {
				f.wr = int(f.res.AreaEnd)
			}
		}
	case f.wr < int(f.res.AreaEnd):
		a.StValid, a.StAddr = true, uint32(f.wr)
		n := min(f.width, int(f.res.AreaEnd)-f.wr)
		a.StMask = 1<<n - 1
		copy(a.StData, f.img[f.wr:f.wr+n])
		f.wr += f.width
	default:
		f.busy, f.done = f.hang, !f.hang
	}
	return o, nil
}

// TestHarnessFake runs two services' messages through a correct stand-in:
// the harness must find no difference, and the messages must reach every
// code but NONE and the header's.
func TestHarnessFake(t *testing.T) {
	for _, sel := range []string{"PostStorageService:16", "RequiredService:8"} {
		c, _, table, msgs := loadCase(t, sel)
		var st stats
		f := newFake(table, c.Width)
		h := NewHarness(f, table, stallSeed)
		for _, m := range msgs {
			f.msg = m.Msg
			o := h.Check(m)
			if o.Err != nil {
				t.Fatalf("%s: message %d (%s): %v", c, m.N, m.Source, o.Err)
			}
			st.count(o)
		}
		t.Logf("%s: %s", c, st)
		want := []schemagold.Code{schemagold.CodeOK, schemagold.CodeTruncated, schemagold.CodeBadLength, schemagold.CodeBadType,
			schemagold.CodeDepthExceeded, schemagold.CodeTooManyElements, schemagold.CodeAreaOverflow}
		if c.Name == "RequiredService" {
			want = append(want, schemagold.CodeRequiredMissing)
		}
		for _, code := range want {
			if st.codes[code] == 0 {
				t.Errorf("%s: no message ended %v", c, code)
			}
		}
	}
}

// TestHarnessCatches gives the harness stand-ins with one bug each: it
// must report each.
func TestHarnessCatches(t *testing.T) {
	c, _, table, msgs := loadCase(t, "UniqueIdService:8")
	for _, tc := range []struct {
		name string
		set  func(f *fake)
		want string
	}{
		{"image byte", func(f *fake) {
			f.bug = func(f *fake) {
				if f.res.Code == schemagold.CodeOK {
					f.img[schemagold.AreaStart] ^= 1
				}
			}
		}, "image byte 0x40"},
		{"code", func(f *fake) {
			f.bug = func(f *fake) {
				if f.res.Code == schemagold.CodeTruncated {
					f.res.Code = schemagold.CodeBadLength
				}
			}
		}, "Code BAD_LENGTH, want TRUNCATED"},
		{"area end", func(f *fake) { f.bug = func(f *fake) { f.res.AreaEnd += 8 } }, "AreaEnd"},
		{"store past the capacity", func(f *fake) {
			f.bug = func(f *fake) {
				if f.res.Code == schemagold.CodeOK {
					f.res.AreaEnd = uint32(f.capacity + 8)
				}
			}
		}, "writes outside its buffer"},
		{"hang", func(f *fake) { f.hang = true }, "hang"},
		{"take", func(f *fake) { f.overTake = true }, "take_o"},
		{"past the args", func(f *fake) { f.greedy = true }, "took the message up to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(table, c.Width)
			tc.set(f)
			h := NewHarness(f, table, stallSeed)
			for _, m := range msgs {
				if m.Cap > 65536 { // the hang's budget grows with the capacity
					continue
				}
				f.msg = m.Msg
				o := h.Check(m)
				if o.Err == nil {
					continue
				}
				if !IsMismatch(o.Err) || !strings.Contains(o.Err.Error(), tc.want) {
					t.Fatalf("message %d: %v; want a mismatch saying %q", m.N, o.Err, tc.want)
				}
				return
			}
			t.Errorf("no message showed the bug")
		})
	}
}
