package schemahdr

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"
)

// fake stands in for recv_header to check the harness without a model: it
// runs CheckHeader on the message (msg, which the test sets: the module
// sees windows only) and takes it up to the result's offset as the windows
// allow, then ends. Like the module, it shows a take the cycle after it
// decided it, and decides none while a take is shown or after stall_i.
// It checks what the harness feeds it: a window byte, rem_i or big_i
// other than the message's makes its code harnessBug. The other fields
// are bugs to plant, each of which the harness must report.
type fake struct {
	width int
	t     *schema.Table
	msg   []byte

	busy, done bool
	target     int // bytes to take
	got        []byte
	res        schemagold.Result
	take       int // decided last cycle, shown this one

	bug         func(r *schemagold.Result) // changes the result before done_o
	ignoreBig   bool                       // checks the first MaxMessage bytes of a big message
	hang        bool
	overTake    bool // takes a byte more than the window shows
	greedy      bool // on OK, takes the message to its end
	ignoreStall bool
	takeAtDone  bool // shows a take with done_o
	unstable    bool // the result changes the cycle after done_o
}

// harnessBug is the code the fake reports when the harness fed it wrong.
const harnessBug = 0xEE

func newFake(t *schema.Table, width int) *fake { return &fake{width: width, t: t} }

func (f *fake) Width() int { return f.width }
func (f *fake) Reset() error {
	f.busy, f.done, f.take = false, false, 0
	return nil
}
func (f *fake) TraceOn(string) error { return nil }
func (f *fake) TraceOff() error      { return nil }

// Cycle shows the take decided last cycle and the result registers, then
// decides the next take and takes the edge.
func (f *fake) Cycle(in *Inputs) (*Outputs, error) {
	r := f.res
	o := &Outputs{Take: f.take, Done: f.done, Code: uint8(r.Code), Offset: r.Offset, MsgType: r.MsgType, Method: r.Method, SeqID: uint32(r.SeqID)}
	moving := f.take != 0 // the window moves at this edge: what it shows now is stale
	f.take = 0
	switch {
	case in.Start:
		f.busy, f.done, f.got = true, false, f.got[:0]
		big := len(f.msg) > schemagold.MaxMessage
		msg := f.msg
		if f.ignoreBig {
			msg = msg[:min(len(msg), schemagold.MaxMessage)]
		}
		f.res = schemagold.CheckHeader(f.t, msg)
		f.target = int(f.res.Offset)
		if f.greedy && f.res.Code == schemagold.CodeOK {
			f.target = len(f.msg)
		}
		if in.Big != big || !f.fedRight(in) {
			f.res.Code = harnessBug
		}
	case !f.busy:
		if f.unstable && f.done {
			f.res.SeqID++
		}
	case in.Stall && !f.ignoreStall, moving:
	case len(f.got) < f.target:
		f.take = min(in.Avail, f.target-len(f.got))
		if f.overTake {
			f.take = in.Avail + 1
		}
		if !f.fedRight(in) {
			f.res.Code = harnessBug
		}
		f.got = append(f.got, in.Win[:min(f.take, f.width)]...)
	default:
		if f.bug != nil {
			f.bug(&f.res)
		}
		f.busy, f.done = f.hang, !f.hang
		if f.takeAtDone {
			f.take = 1
		}
	}
	return o, nil
}

// fedRight reports whether rem_i and the window are the message's at the
// head, the bytes taken so far.
func (f *fake) fedRight(in *Inputs) bool {
	p, n := len(f.got), len(f.msg)
	rem := uint32(n - p)
	if n > schemagold.MaxMessage {
		rem = RemMax
	}
	return in.Rem == rem && in.Avail <= n-p && bytes.Equal(in.Win[:in.Avail], f.msg[p:p+in.Avail])
}

// fakeCases are the services the harness's own tests use, one per width.
var fakeCases = []string{"MemcachedService:16", "UniqueIdService:32", "UrlShortenService:16", "PostStorageService:8", "UserTimelineService:64"}

// TestHarnessFake runs every service's messages through a correct
// stand-in: the harness must find no difference, and the messages must
// reach every code of the header.
func TestHarnessFake(t *testing.T) {
	for _, sel := range fakeCases {
		c, _, table, msgs := loadCase(t, sel)
		var st stats
		f := newFake(table, c.Width)
		h := NewHarness(f, table, stallSeed)
		for _, m := range msgs {
			f.msg = h.Full(m)
			o := h.Check(m)
			if o.Err != nil {
				t.Fatalf("%s: message %d (%s): %v", c, m.N, m.Source, o.Err)
			}
			st.count(m, o)
		}
		t.Logf("%s: %d messages: %s", c, st.messages, st)
		for _, code := range headerCodes {
			if st.codes[code] == 0 {
				t.Errorf("%s: no message ended %v", c, code)
			}
		}
	}
}

// TestMessages checks the generators: the list is the same on every call,
// numbered in order, and for each method reaches OK, the TRUNCATED of each
// step (at 0, 4, 8 and 8 + name length, the last with the method known)
// and UNKNOWN_METHOD at 4 and at 8.
func TestMessages(t *testing.T) {
	for _, sel := range fakeCases {
		c, root, table, msgs := loadCase(t, sel)
		recs, err := c.Records(root)
		if err != nil {
			t.Fatal(err)
		}
		if again := Messages(c.Vectors, table, recs); !reflect.DeepEqual(again, msgs) {
			t.Errorf("%s: two calls of Messages differ", c)
		}
		type key struct {
			code   schemagold.Code
			off    uint32
			method uint8
		}
		seen := map[key]bool{}
		h := NewHarness(newFake(table, c.Width), table, stallSeed)
		for i, m := range msgs {
			if m.N != i {
				t.Fatalf("%s: message %d is numbered %d", c, i, m.N)
			}
			r := schemagold.CheckHeader(table, h.Full(m))
			seen[key{r.Code, r.Offset, r.Method}] = true
		}
		for i, mt := range table.Methods {
			l, method := uint32(len(mt.Name)), uint8(i+1)
			for _, k := range []key{{schemagold.CodeOK, 12 + l, method}, {schemagold.CodeTruncated, 8 + l, method},
				{schemagold.CodeTruncated, 0, 0}, {schemagold.CodeTruncated, 4, 0}, {schemagold.CodeTruncated, 8, 0},
				{schemagold.CodeUnknownMethod, 4, 0}, {schemagold.CodeUnknownMethod, 8, 0}} {
				if !seen[k] {
					t.Errorf("%s: no message ends %v at %d with method %d (%s)", c, k.code, k.off, k.method, mt.Name)
				}
			}
		}
	}
}

// TestHarnessCatches gives the harness stand-ins with one bug each: it
// must report each, saying what differs.
func TestHarnessCatches(t *testing.T) {
	c, _, table, msgs := loadCase(t, "PostStorageService:8")
	for _, tc := range []struct {
		name string
		set  func(f *fake)
		want string
	}{
		{"code", func(f *fake) {
			f.bug = func(r *schemagold.Result) {
				if r.Code == schemagold.CodeBadLength {
					r.Code = schemagold.CodeUnknownMethod
				}
			}
		}, "code_o UNKNOWN_METHOD, want BAD_LENGTH"},
		{"offset", func(f *fake) { f.bug = func(r *schemagold.Result) { r.Offset++ } }, "offset_o"},
		{"message type of BAD_MSG_TYPE", func(f *fake) {
			f.bug = func(r *schemagold.Result) {
				if r.Code == schemagold.CodeBadMsgType {
					r.MsgType = 0
				}
			}
		}, "msg_type_o 0, want"},
		{"method of a seqid cut", func(f *fake) {
			f.bug = func(r *schemagold.Result) {
				if r.Code == schemagold.CodeTruncated {
					r.Method = 0
				}
			}
		}, "method_o 0, want"},
		{"seqid on a fault", func(f *fake) {
			f.bug = func(r *schemagold.Result) {
				if r.Code != schemagold.CodeOK {
					r.SeqID = 1
				}
			}
		}, "seqid_o 1, want 0"},
		{"big_i ignored", func(f *fake) { f.ignoreBig = true }, "want MSG_TOO_LARGE"},
		{"hang", func(f *fake) { f.hang = true }, "hang"},
		{"take past the window", func(f *fake) { f.overTake = true }, "with avail_i"},
		{"take past the header", func(f *fake) { f.greedy = true }, "want exactly the header's"},
		{"take after a stall", func(f *fake) { f.ignoreStall = true }, "stall_i was 1 last cycle"},
		{"take with done_o", func(f *fake) { f.takeAtDone = true }, "done_o is 1 but take_o"},
		{"result changes", func(f *fake) { f.unstable = true }, "the result changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(table, c.Width)
			tc.set(f)
			h := NewHarness(f, table, stallSeed)
			for _, m := range msgs {
				f.msg = h.Full(m)
				o := h.Check(m)
				if o.Err == nil {
					continue
				}
				if !IsMismatch(o.Err) || !strings.Contains(o.Err.Error(), tc.want) || !strings.Contains(o.Err.Error(), "cycle ") {
					t.Fatalf("message %d (%s): %v; want a mismatch naming the cycle and saying %q", m.N, m.Source, o.Err, tc.want)
				}
				t.Logf("message %d (%s): %v", m.N, m.Source, o.Err)
				return
			}
			t.Errorf("no message showed the bug")
		})
	}
}
