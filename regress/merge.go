package regress

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Merge reads the --json outputs of a sharded run's shards and returns the
// results of the whole run in input order, with no shard stamped on them.
// The files must come from one run (the same "config") and together hold
// every vector exactly once; the error otherwise names the file and line.
func Merge(files []string) ([]Result, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no result files")
	}
	var results []Result
	where := map[int]string{} // index -> file:line that gave it
	total, config := -1, ""
	for _, f := range files {
		rs, err := ReadResults(f)
		if err != nil {
			return nil, err
		}
		for i, r := range rs {
			at := fmt.Sprintf("%s:%d", f, i+1)
			switch {
			case total < 0:
				total, config = r.Total, r.Config
			case r.Config != config:
				return nil, fmt.Errorf("%s: config %q, but %s has %q: the results come from different runs", at, r.Config, firstLine(where), config)
			case r.Total != total:
				return nil, fmt.Errorf("%s: total %d, but %s has %d", at, r.Total, firstLine(where), total)
			}
			if r.Index < 0 || r.Index >= r.Total {
				return nil, fmt.Errorf("%s: index %d outside the run's %d vectors", at, r.Index, r.Total)
			}
			if prev, dup := where[r.Index]; dup {
				return nil, fmt.Errorf("%s: vector %d again (first in %s)", at, r.Index, prev)
			}
			where[r.Index] = at
			if r.Shard != "" {
				if r.line, err = withoutKey(r.line, "shard"); err != nil {
					return nil, fmt.Errorf("%s: %w", at, err)
				}
				r.Shard = ""
			}
			results = append(results, r)
		}
	}
	if len(results) < total {
		var missing []string
		for i := 0; i < total && len(missing) < 10; i++ {
			if _, ok := where[i]; !ok {
				missing = append(missing, fmt.Sprint(i))
			}
		}
		return nil, fmt.Errorf("%d of the run's %d vectors are missing (indices %s...): is a shard's file missing or cut short?",
			total-len(results), total, strings.Join(missing, ", "))
	}
	sort.Slice(results, func(i, j int) bool { return results[i].Index < results[j].Index })
	return results, nil
}

func firstLine(where map[int]string) string {
	best := ""
	for _, at := range where {
		if best == "" || at < best {
			best = at
		}
	}
	return best
}

// ReadResults reads one file of `arcalis run --json` lines.
func ReadResults(path string) ([]Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Result
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		r, err := readLine([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: not a line of `arcalis run --json`: %v", path, n, err)
		}
		if r.Config == "" || r.Total <= 0 {
			return nil, fmt.Errorf("%s:%d: no \"config\" or \"total\" field: written by an older arcalis run?", path, n)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no results", path)
	}
	return out, nil
}

// readLine reads a line of `arcalis run --json`: the Memcached engine's,
// which has Result's fields and no others, or another engine's (run
// --service), which has a "service" and fields of its own and is kept as
// it is.
func readLine(line []byte) (Result, error) {
	var r Result
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	err := dec.Decode(&r)
	if err == nil {
		return r, nil
	}
	var other struct {
		Service string `json:"service"`
	}
	if json.Unmarshal(line, &other) != nil || other.Service == "" {
		return r, err
	}
	if r, err = ParseResult(line); err != nil {
		return r, err
	}
	r.line = line
	return r, nil
}

// withoutKey is the JSON object line without its top-level key, the
// others as they were, in their order; nil stays nil.
func withoutKey(line []byte, key string) ([]byte, error) {
	if line == nil {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	out := []byte{'{'}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if t == key {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(t)
		out = append(append(append(out, k...), ':'), v...)
	}
	return append(out, '}'), nil
}
