package schemarx

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"
)

// envDrive makes TestDriveModel's child run the model: the parent process
// opens no model, so that it never holds one beside TestRecvSchemaOne's.
const envDrive = "SCHEMARX_DRIVE"

// driveCheck runs m through Drive on d and compares the header line, the
// area and what ReadBack finds with schemagold.Deserialize. It returns the
// result code, or ok false for a message whose header fails (nothing to
// drive).
func driveCheck(t *testing.T, d DUT, table *schema.Table, m Message, stall *rand.Rand) (schemagold.Code, bool) {
	t.Helper()
	ref := make([]byte, m.Cap)
	want := schemagold.Deserialize(table, m.Msg, ref)
	start, ok := argsStart(m.Msg)
	if want.Method == 0 || !ok {
		return 0, false
	}
	img := bytes.Repeat([]byte{garbage}, m.Cap)
	got, err := Drive(d, img, Request{Msg: m.Msg, Start: start, Method: int(want.Method) - 1, SeqID: want.SeqID,
		MsgType: want.MsgType, Stall: stall, StallPercent: 20})
	if err != nil {
		t.Fatalf("message %d (%s): %v", m.N, m.Source, err)
	}
	if dd := resultDiff(got.Result, want); dd != "" {
		t.Fatalf("message %d (%s): header line differs: %s", m.N, m.Source, dd)
	}
	if !bytes.Equal(img[:schemagold.HeaderSize], ref[:schemagold.HeaderSize]) {
		t.Fatalf("message %d: image header line % x, want % x", m.N, img[:schemagold.HeaderSize], ref[:schemagold.HeaderSize])
	}
	if want.Code != schemagold.CodeOK {
		return want.Code, true
	}
	if got.Head != int(want.Offset) {
		t.Errorf("message %d: took the message up to %d, want %d", m.N, got.Head, want.Offset)
	}
	end := int(want.AreaEnd)
	if i := firstDiff(img[schemagold.AreaStart:end], ref[schemagold.AreaStart:end]); i >= 0 {
		t.Fatalf("message %d (%s): image byte %#x is %#02x, want %#02x", m.N, m.Source, schemagold.AreaStart+i, img[schemagold.AreaStart+i], ref[schemagold.AreaStart+i])
	}
	gm, gerr := schemagold.ReadBack(table, img)
	rm, rerr := schemagold.ReadBack(table, ref)
	if gerr != nil || rerr != nil || !reflect.DeepEqual(gm, rm) {
		t.Fatalf("message %d: read back %v (%v), want %v (%v)", m.N, gm, gerr, rm, rerr)
	}
	if got.Cycles <= 0 || got.Stored <= 0 {
		t.Errorf("message %d: %d cycles, %d bytes stored; want both above 0", m.N, got.Cycles, got.Stored)
	}
	return want.Code, true
}

// driveSample is every step-th message of msgs.
func driveSample(msgs []Message, step int) []Message {
	var out []Message
	for i := 0; i < len(msgs); i += step {
		out = append(out, msgs[i])
	}
	return out
}

// TestDriveFake drives messages through the correct stand-in of
// fake_test.go, with and without stalls.
func TestDriveFake(t *testing.T) {
	c, _, table, msgs := loadCase(t, "PostStorageService:16")
	f := newFake(table, c.Width)
	codes := map[schemagold.Code]int{}
	rng := rand.New(rand.NewPCG(1, 2))
	for i, m := range driveSample(msgs, 7) {
		f.msg = m.Msg
		var stall *rand.Rand
		if i%2 == 1 {
			stall = rng
		}
		if code, ok := driveCheck(t, f, table, m, stall); ok {
			codes[code]++
		}
	}
	if codes[schemagold.CodeOK] == 0 || len(codes) < 3 {
		t.Errorf("codes driven %v: want OK and at least two others", codes)
	}
}

// TestDriveErrors gives Drive stand-ins that hang or take more than the
// window shows: each is an error that says where in the message it was.
func TestDriveErrors(t *testing.T) {
	c, _, table, msgs := loadCase(t, "UniqueIdService:8")
	m := msgs[0]
	m.Cap = 65536 // room for its args
	start, ok := argsStart(m.Msg)
	ref := schemagold.Deserialize(table, m.Msg, make([]byte, m.Cap))
	if !ok || ref.Code != schemagold.CodeOK {
		t.Fatalf("message 0 (%s): %v; want an OK message", m.Source, ref.Code)
	}
	for _, tc := range []struct {
		name string
		set  func(f *fake)
		want string
	}{
		{"hang", func(f *fake) { f.hang = true }, "hang: done_o not set after 123 cycles (at message byte "},
		{"take", func(f *fake) { f.overTake = true }, "with avail_i"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(table, c.Width)
			tc.set(f)
			f.msg = m.Msg
			_, err := Drive(f, make([]byte, m.Cap), Request{Msg: m.Msg, Start: start, Method: int(ref.Method) - 1, Budget: 123})
			if err == nil || !IsMismatch(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Drive: %v; want a mismatch saying %q", err, tc.want)
			}
		})
	}
	for _, r := range []Request{
		{Msg: m.Msg, Start: len(m.Msg) + 1},
		{Msg: m.Msg, Start: start, Method: -1},
	} {
		if _, err := Drive(newFake(table, c.Width), make([]byte, m.Cap), r); err == nil {
			t.Errorf("Drive start %d method %d: no error", r.Start, r.Method)
		}
	}
	if _, err := Drive(newFake(table, c.Width), make([]byte, 100), Request{Msg: m.Msg, Start: start}); err == nil {
		t.Error("Drive with a 100-byte image: no error")
	}
}

// TestDriveModel drives a sample of PostStorageService's messages through
// the Verilated module (built with make schema-model), in a child process.
func TestDriveModel(t *testing.T) {
	if os.Getenv(envDrive) == "" {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestDriveModel$", "-test.v", "-test.count=1", "-test.timeout=0")
		cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
			return strings.HasPrefix(kv, envCase+"=") || strings.HasPrefix(kv, envMsg+"=")
		}), envDrive+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestDriveModel")) {
			t.Fatalf("the child failed (%v):\n%s", err, out)
		}
		if testing.Verbose() {
			t.Logf("child:\n%s", out)
		}
		return
	}
	c, root, table, msgs := loadCase(t, "PostStorageService:16")
	lib, err := c.Build(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	model, err := OpenModel(lib, c.Width)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	if err := model.Reset(); err != nil {
		t.Fatal(err)
	}
	codes := map[schemagold.Code]int{}
	rng := rand.New(rand.NewPCG(3, 4))
	for i, m := range driveSample(msgs, 11) {
		var stall *rand.Rand
		if i%3 == 2 {
			stall = rng
		}
		if code, ok := driveCheck(t, model, table, m, stall); ok {
			codes[code]++
		}
	}
	t.Logf("codes driven: %v", codes)
	if codes[schemagold.CodeOK] == 0 || len(codes) < 3 {
		t.Errorf("codes driven %v: want OK and at least two others", codes)
	}
}
