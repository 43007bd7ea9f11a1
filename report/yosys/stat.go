package yosys

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// ModuleStat is one module's own cells as `stat -tech xilinx` counts them
// (submodule instances appear as cells of the submodule's type).
type ModuleStat struct {
	Name  string
	Cells map[string]int
	// LCs is Yosys's estimate of the logic cells the module's LUTs need once
	// pairs of small LUTs share a LUT6 ("Estimated number of LCs"); -1 if the
	// report has none.
	LCs int
}

// Stat is a parsed `stat` report: the modules in the order printed.
type Stat struct {
	Modules []ModuleStat
	byName  map[string]int
}

// Module returns the named module's statistics.
func (s *Stat) Module(name string) (ModuleStat, bool) {
	i, ok := s.byName[name]
	if !ok {
		return ModuleStat{}, false
	}
	return s.Modules[i], true
}

// ReadStatFile parses a file written by `tee -o FILE stat [-tech xilinx]`.
func ReadStatFile(path string) (*Stat, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseStat(f, path)
}

// ParseStat reads Yosys 0.23's text `stat` output. name is used in errors,
// which give the line. The "design hierarchy" summary is skipped: totals are
// recomputed per instance from the modules.
func ParseStat(r io.Reader, name string) (*Stat, error) {
	s := &Stat{byName: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur *ModuleStat
	inCells, inHierarchy := false, false
	line := 0
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	flush := func() {
		if cur != nil {
			s.byName[cur.Name] = len(s.Modules)
			s.Modules = append(s.Modules, *cur)
			cur = nil
		}
	}
	for sc.Scan() {
		line++
		text := sc.Text()
		trimmed := strings.TrimSpace(text)
		switch {
		case strings.HasPrefix(trimmed, "===") && strings.HasSuffix(trimmed, "===") && len(trimmed) > 6:
			flush()
			mod := strings.TrimSpace(trimmed[3 : len(trimmed)-3])
			inCells = false
			inHierarchy = mod == "design hierarchy"
			if inHierarchy {
				continue
			}
			if mod == "" {
				return nil, bad("module header without a name")
			}
			if _, dup := s.byName[mod]; dup {
				return nil, bad("module %s reported twice", mod)
			}
			cur = &ModuleStat{Name: mod, Cells: map[string]int{}, LCs: -1}
		case inHierarchy || trimmed == "":
			continue
		case cur == nil:
			// Before the first module: the pass's banner ("3. Printing statistics.").
			continue
		case strings.HasPrefix(trimmed, "Number of cells:"):
			if _, err := statNumber(trimmed); err != nil {
				return nil, bad("%v", err)
			}
			inCells = true
		case strings.HasPrefix(trimmed, "Number of "), strings.HasPrefix(trimmed, "Chip area"):
			inCells = false
			if _, err := statNumber(trimmed); err != nil {
				return nil, bad("%v", err)
			}
		case strings.HasPrefix(trimmed, "Estimated number of LCs:"):
			inCells = false
			n, err := statNumber(trimmed)
			if err != nil {
				return nil, bad("%v", err)
			}
			cur.LCs = n
		case inCells:
			f := strings.Fields(trimmed)
			if len(f) != 2 {
				return nil, bad("cell count line %q: want TYPE COUNT", trimmed)
			}
			n, err := strconv.Atoi(f[1])
			if err != nil || n < 0 {
				return nil, bad("cell count %q of %s is not a count", f[1], f[0])
			}
			cur.Cells[f[0]] += n
		default:
			return nil, bad("unexpected line %q in module %s", trimmed, cur.Name)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	flush()
	if len(s.Modules) == 0 {
		return nil, fmt.Errorf("%s: no module statistics (=== NAME === sections) found", name)
	}
	return s, nil
}

// statNumber is the integer after the colon of "Label:   123".
func statNumber(s string) (int, error) {
	_, v, ok := strings.Cut(s, ":")
	if !ok {
		return 0, fmt.Errorf("%q has no value", s)
	}
	v = strings.TrimSpace(v)
	n, err := strconv.Atoi(v)
	if err != nil {
		if f, ferr := strconv.ParseFloat(v, 64); ferr == nil {
			return int(f), nil // chip area
		}
		return 0, fmt.Errorf("%q: value %q is not a number", s, v)
	}
	return n, nil
}

// Instance is one node of the synthesized hierarchy.
type Instance struct {
	Name     string // instance name; the top's is the module name
	Path     string // dot-separated from the top, e.g. arcalis_top.u_rx_engine
	Module   string // Yosys's module name ($paramod\load_queue\Depth=... for parameterized ones)
	Children []*Instance
}

// BaseModule is the module's source name without Yosys's parameter suffix.
func (i *Instance) BaseModule() string { return BaseName(i.Module) }

// BaseName strips Yosys's "$paramod\NAME\P=V" decoration, and the
// "$paramod$HASH\NAME" it uses when the parameters would make a long name.
func BaseName(module string) string {
	if rest, ok := strings.CutPrefix(module, "$paramod\\"); ok {
		name, _, _ := strings.Cut(rest, "\\")
		return name
	}
	if rest, ok := strings.CutPrefix(module, "$paramod$"); ok {
		_, name, _ := strings.Cut(rest, "\\")
		return name
	}
	return module
}

// ReadHierarchy builds the instance tree under top from a JSON netlist that
// holds (at least) every hierarchical cell, e.g. `json -o FILE */c:u_*`, and
// checks it against stat: every submodule a module's statistics count must
// be one of the instances found, so no block is silently dropped.
func ReadHierarchy(path, top string, stat *Stat) (*Instance, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Modules map[string]struct {
			Cells map[string]struct {
				Type string `json:"type"`
			} `json:"cells"`
		} `json:"modules"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := stat.Module(top); !ok {
		return nil, fmt.Errorf("top module %s is not in the statistics", top)
	}
	var build func(name, path, module string, depth int) (*Instance, error)
	build = func(name, path, module string, depth int) (*Instance, error) {
		if depth > 64 {
			return nil, fmt.Errorf("%s: hierarchy deeper than 64 at %s", path, module)
		}
		inst := &Instance{Name: name, Path: path, Module: module}
		ms, _ := stat.Module(module)
		found := map[string]int{}
		cells := doc.Modules[module].Cells
		names := slices.Sorted(maps.Keys(cells))
		for _, n := range names {
			typ := cells[n].Type
			if _, isModule := stat.Module(typ); !isModule {
				continue
			}
			found[typ]++
			child, err := build(n, path+"."+n, typ, depth+1)
			if err != nil {
				return nil, err
			}
			inst.Children = append(inst.Children, child)
		}
		for typ, n := range ms.Cells {
			if _, isModule := stat.Module(typ); isModule && found[typ] != n {
				return nil, fmt.Errorf("module %s instantiates %s %d times but the hierarchy file lists %d such instances (instances must be named u_<module>)", module, typ, n, found[typ])
			}
		}
		return inst, nil
	}
	return build(top, top, top, 0)
}
