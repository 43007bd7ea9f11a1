package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"arcalis/vectors"
)

const defaultSet = "../../vectors/default.vec"

// canonicalSet is the 95-byte canonical Set of the default set (record 0).
var canonicalSet = []byte("\x80\x01\x00\x01\x00\x00\x00\x03Set\x00\x00\x00\x01" +
	"\x0a\x00\x01\x01\x02\x03\x04\x05\x06\x07\x08" +
	"\x0b\x00\x02\x00\x00\x00\x08key:0001" +
	"\x0b\x00\x03\x00\x00\x00\x20\xa0\xa1\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xab\xac\xad\xae\xaf" +
	"\xb0\xb1\xb2\xb3\xb4\xb5\xb6\xb7\xb8\xb9\xba\xbb\xbc\xbd\xbe\xbf" +
	"\x08\x00\x04\x11\x22\x33\x44" +
	"\x08\x00\x05\x00\x00\x0e\x10" +
	"\x00")

// runApp runs arcalis with args and returns its standard output and error.
func runApp(t *testing.T, args ...string) (stdout string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = newApp(&out, &errOut).Run(append([]string{"arcalis"}, args...))
	return out.String(), err
}

// writeFiles writes name -> content under dir and returns the paths in order.
func writeFiles(t *testing.T, dir string, files ...string) []string {
	t.Helper()
	var paths []string
	for i := 0; i+1 < len(files); i += 2 {
		p := filepath.Join(dir, files[i])
		if err := os.WriteFile(p, []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func writeVec(t *testing.T, path string, recs ...vectors.Record) string {
	t.Helper()
	if err := vectors.WriteFile(path, recs); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestImport(t *testing.T) {
	dir := t.TempDir()
	in := writeFiles(t, dir, "a.bin", string(canonicalSet), "b.bin", "\x80\x01")
	tests := []struct {
		name string
		args func(out string) []string
	}{
		{"output last", func(out string) []string { return []string{"vectors", "import", "--raw", in[0], in[1], "-o", out} }},
		{"output first", func(out string) []string { return []string{"vectors", "import", "-o", out, "--raw", in[0], in[1]} }},
		{"long flags with =", func(out string) []string {
			return []string{"vectors", "import", in[0], in[1], "--output=" + out, "--raw"}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.vec")
			stdout, err := runApp(t, tc.args(out)...)
			if err != nil {
				t.Fatalf("import: %v", err)
			}
			if want := "imported 2 messages (97 bytes) into " + out; !strings.Contains(stdout, want) {
				t.Errorf("summary %q does not contain %q", stdout, want)
			}
			recs, err := vectors.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 2 || recs[0].Source != in[0] || recs[1].Source != in[1] || !bytes.Equal(recs[0].Msg, canonicalSet) || recs[1].Meta != nil {
				t.Errorf("records: %+v", recs)
			}
		})
	}
}

func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeFiles(t, dir, "good.bin", "x", "empty.bin", "")
	big := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, vectors.MaxMessageSize+1); err != nil { // sparse: cheap
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.vec")
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no format", []string{in[0], "-o", out}, []string{"--raw"}},
		{"no output", []string{"--raw", in[0]}, []string{"missing -o"}},
		{"no files", []string{"--raw", "-o", out}, []string{"no input files"}},
		{"empty file", []string{"--raw", in[0], in[1], "-o", out}, []string{in[1], "empty file", "nothing written"}},
		{"file over the limit", []string{"--raw", in[0], big, "-o", out}, []string{big, "over the message limit of 16384000", "nothing written"}},
		{"missing file", []string{"--raw", in[0], filepath.Join(dir, "nope.bin"), "-o", out}, []string{"nope.bin", "no such file"}},
		{"unknown flag", []string{"--raw", "--pcap", in[0], "-o", out}, []string{"vectors import: flag provided but not defined: -pcap", "arcalis vectors import --help"}},
		{"unknown trailing flag", []string{"--raw", in[0], "--bogus", "-o", out}, []string{"flag provided but not defined: --bogus"}},
		{"flag without value", []string{"--raw", in[0], "-o"}, []string{"flag needs an argument: -o"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runApp(t, append([]string{"vectors", "import"}, tc.args...)...)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if _, serr := os.Stat(out); !os.IsNotExist(serr) {
				t.Errorf("%s was written", out)
			}
		})
	}
}

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	good := writeVec(t, filepath.Join(dir, "good.vec"),
		vectors.Record{Source: "canonical", Msg: canonicalSet},
		vectors.Record{Source: "truncated", Msg: canonicalSet[:50], Meta: map[string]any{"apache": "reject"}})
	bad := writeVec(t, filepath.Join(dir, "bad.vec"),
		vectors.Record{Source: "canonical", Msg: canonicalSet},
		vectors.Record{Source: "truncated", Msg: canonicalSet[:50]},
		vectors.Record{Source: "leftover", Msg: append(bytes.Clone(canonicalSet), 0)},
		vectors.Record{Source: "claims reject", Msg: canonicalSet, Meta: map[string]any{"apache": "reject"}},
		vectors.Record{Source: "odd claim", Msg: canonicalSet, Meta: map[string]any{"apache": "maybe"}},
		vectors.Record{Source: "canonical again", Msg: canonicalSet})
	// Flip a message byte of record 0 of a copy: a CRC mismatch the reader can go past.
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	data[8+8+len(`{"source":"canonical"}`)+20] ^= 1
	crc := writeFiles(t, dir, "crc.vec", string(data))[0]
	cut := writeFiles(t, dir, "cut.vec", string(data[:40]))[0]

	tests := []struct {
		name    string
		files   []string
		wantErr string // "" for success
		want    []string
	}{
		{"default set", []string{defaultSet}, "", []string{"OK", "282 records, 282 ok", "rejected by Apache as expected", "0 failed"}},
		{"good", []string{good}, "", []string{"2 records, 2 ok (1 rejected by Apache as expected), 0 failed"}},
		{"failures", []string{bad}, "4 failures in 1 of 1 files", []string{
			"FAIL", "6 records, 2 ok, 4 failed",
			"record 1 (truncated): not one Thrift message",
			"record 2 (leftover): not one Thrift message: 1 bytes left over",
			"record 3 (claims reject): metadata says Apache rejects it, but it parses",
			`record 4 (odd claim): metadata "apache" is "maybe"`,
		}},
		{"CRC mismatch", []string{crc, good}, "1 failures in 1 of 2 files", []string{
			"2 records, 1 ok (1 rejected by Apache as expected), 1 failed",
			crc + ": record 0 (byte offset 8): CRC mismatch: stored 0x",
			good + ": 2 records, 2 ok",
		}},
		{"truncated file", []string{cut}, "1 failures", []string{cut + ": record 0 (byte offset 8): truncated message: declared 95 bytes at byte offset 38, 2 present"}},
		{"not a vector file", []string{canonicalFile(t, dir)}, "1 failures", []string{"bad magic"}},
		{"missing file", []string{filepath.Join(dir, "nope.vec")}, "1 failures", []string{"no such file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, err := runApp(t, append([]string{"vectors", "verify"}, tc.files...)...)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("verify: %v\n%s", err, stdout)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("verify: got error %v, want one containing %q", err, tc.wantErr)
			}
			checkOutput(t, stdout, tc.want, nil)
		})
	}
	if _, err := runApp(t, "vectors", "verify"); err == nil || !strings.Contains(err.Error(), "no files") {
		t.Errorf("verify without files: %v", err)
	}
}

func canonicalFile(t *testing.T, dir string) string {
	t.Helper()
	return writeFiles(t, dir, "set.bin", string(canonicalSet))[0]
}

func TestShow(t *testing.T) {
	dir := t.TempDir()
	vec := writeVec(t, filepath.Join(dir, "s.vec"),
		vectors.Record{Source: "canonical", Msg: canonicalSet, Meta: map[string]any{"flow": "a->b"}},
		vectors.Record{Source: "truncated", Msg: canonicalSet[:47]},
		vectors.Record{Source: "tail", Msg: append(bytes.Clone(canonicalSet), 0xde, 0xad)},
		vectors.Record{Source: "nested", Msg: []byte("\x80\x01\x00\x01\x00\x00\x00\x03Set\x00\x00\x00\x09" +
			"\x0f\x00\x06\x08\x00\x00\x00\x0a" + strings.Repeat("\x00\x00\x00\x07", 10) + // list<i32> of 10
			"\x0d\x00\x07\x0b\x03\x00\x00\x00\x01\x00\x00\x00\x01k\x05" + // map<binary,byte>
			"\x0c\x00\x08\x02\x00\x01\x01\x00" + // struct {1: true}
			"\x10\x00\x09" + strings.Repeat("\x11", 16) + // UUID
			"\x00")},
	)
	tests := []struct {
		name    string
		args    []string
		wantErr string
		want    []string
		notWant []string
	}{
		{"record 0", []string{vec, "--record", "0"}, "", []string{
			"record 0", "source:  canonical", "flow:    a->b", "size:    95 bytes",
			`message: method "Set", type CALL, seqid 1`,
			"@15 field 1 I64: 72623859790382856 (0x0102030405060708)",
			"@26 field 2 BINARY: 8 bytes 6b65793a30303031",
			"@41 field 3 BINARY: 32 bytes a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf\n",
			"@80 field 4 I32: 287454020 (0x11223344)", "@87 field 5 I32: 3600", "@94 STOP",
		}, []string{"record 1"}},
		{"flag first", []string{"-r", "1", vec}, "", []string{
			"record 1", "source:  truncated", "@41 field 3 BINARY\n", "parse error at byte 47: ",
			"first 47 of 47 bytes:", "0000  80 01 00 01 00 00 00 03  53 65 74 00 00 00 01 0a  |........Set.....|",
		}, []string{"record 0"}},
		{"bytes after STOP", []string{vec, "-r", "2"}, "", []string{"2 bytes after the message (from byte 95): dead"}, nil},
		{"nested", []string{vec, "-r", "3"}, "", []string{
			"field 6 LIST<I32>: 10 elements", "[7]: 7 (0x00000007)", "... 2 more",
			"field 7 MAP<BINARY, BYTE>: 1 entries", "[0] key: 1 bytes 6b", "[0] value: 5",
			"field 8 STRUCT\n", "field 1 BOOL: true", "field 9 UUID: 11111111111111111111111111111111",
		}, []string{"[8]", "parse error"}},
		{"all", []string{vec}, "", []string{"record 0", "record 1", "record 2", "record 3"}, nil},
		{"default set", []string{defaultSet, "-r", "281"}, "", []string{"record 281", "source:  set/random/29"}, nil},
		{"no such record", []string{vec, "--record", "4"}, "has 4 records, no record 4", nil, nil},
		{"negative record", []string{vec, "--record", "-2"}, "want a record index >= 0", nil, nil},
		{"bad record value", []string{vec, "--record", "x"}, `invalid value "x"`, nil, nil},
		{"no file", nil, "want exactly one FILE, got 0", nil, nil},
		{"two files", []string{vec, vec}, "want exactly one FILE, got 2", nil, nil},
		{"not a vector file", []string{canonicalFile(t, dir)}, "bad magic", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, err := runApp(t, append([]string{"vectors", "show"}, tc.args...)...)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("show: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("show: got error %v, want one containing %q", err, tc.wantErr)
			}
			checkOutput(t, stdout, tc.want, tc.notWant)
		})
	}
}

// Every record of the default set shows without a panic.
func TestShowDefaultSet(t *testing.T) {
	stdout, err := runApp(t, "vectors", "show", defaultSet)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stdout, "\nrecord "); n != 281 {
		t.Errorf("%d records shown after the first, want 281", n)
	}
}

func TestCat(t *testing.T) {
	dir := t.TempDir()
	a := writeVec(t, filepath.Join(dir, "a.vec"), vectors.Record{Source: "a0", Msg: []byte{1}}, vectors.Record{Source: "a1", Msg: []byte{2}})
	b := writeVec(t, filepath.Join(dir, "b.vec"), vectors.Record{Source: "b0", Msg: []byte{3}, Meta: map[string]any{"k": "v"}})
	out := filepath.Join(dir, "c.vec")
	stdout, err := runApp(t, "vectors", "cat", a, b, a, "-o", out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "wrote 5 records from 3 files to "+out) {
		t.Errorf("summary: %q", stdout)
	}
	recs, err := vectors.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, r := range recs {
		if r.Index != i {
			t.Errorf("record %d has index %d", i, r.Index)
		}
		got = append(got, r.Source)
	}
	if strings.Join(got, " ") != "a0 a1 b0 a0 a1" || recs[2].Meta["k"] != "v" {
		t.Errorf("records: %+v", recs)
	}

	// A damaged input: error naming it, nothing written.
	damaged := writeFiles(t, dir, "d.vec", "ARCVEC\x00\x01\x00")[0]
	out2 := filepath.Join(dir, "e.vec")
	if _, err := runApp(t, "vectors", "cat", a, damaged, "-o", out2); err == nil || !strings.Contains(err.Error(), damaged) || !strings.Contains(err.Error(), "truncated record header") {
		t.Errorf("cat with a damaged input: %v", err)
	}
	if _, err := os.Stat(out2); !os.IsNotExist(err) {
		t.Errorf("%s was written", out2)
	}
	for _, args := range [][]string{{a, b}, {"-o", out2}} {
		if _, err := runApp(t, append([]string{"vectors", "cat"}, args...)...); err == nil {
			t.Errorf("cat %v: no error", args)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "missing command"},
		{[]string{"bogus"}, `unknown command "bogus" (see 'arcalis --help')`},
		{[]string{"vectors"}, "missing command"},
		{[]string{"vectors", "zap"}, `unknown command "zap" (see 'arcalis vectors --help')`},
		{[]string{"vectors", "verify", "--strict", "x.vec"}, "vectors verify: flag provided but not defined: -strict"},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := runApp(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if stdout, err := runApp(t, "vectors", "import", "--help"); err != nil || !strings.Contains(stdout, "--raw FILE... -o OUT.vec") {
		t.Errorf("import --help: %v\n%s", err, stdout)
	}
}

// checkOutput reports each of want missing from out and each of dont in it.
func checkOutput(t *testing.T, out string, want, dont []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output does not contain %q:\n%s", w, out)
		}
	}
	for _, w := range dont {
		if strings.Contains(out, w) {
			t.Errorf("output contains %q:\n%s", w, out)
		}
	}
}
