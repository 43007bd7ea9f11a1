package vpi

// load opens a library built by vpi/build.mk; see loader.h.

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "loader.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"
)

var (
	libsMu sync.Mutex
	libs   = map[string]*C.vm_lib{} // by absolute path; never unloaded
)

// load returns the entry points of the library at path, opening it on
// first use.
func load(path string) (*C.vm_lib, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("vpi: model library %s: %w", path, err)
	}
	if _, err := os.Stat(abs); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("vpi: model library %s not found: run `make verilate` to build it", abs)
		}
		return nil, fmt.Errorf("vpi: model library: %w", err)
	}
	libsMu.Lock()
	defer libsMu.Unlock()
	if l, ok := libs[abs]; ok {
		return l, nil
	}
	cpath := C.CString(abs)
	defer C.free(unsafe.Pointer(cpath))
	var l *C.vm_lib
	if msg := C.vm_load(cpath, &l); msg != nil {
		return nil, fmt.Errorf("vpi: model library %s: %s", abs, C.GoString(msg))
	}
	libs[abs] = l
	return l, nil
}
