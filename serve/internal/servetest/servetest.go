// Package servetest holds what the tests of serve and serve/schemasvc
// share; only tests import it.
package servetest

import (
	"bytes"
	"sync"
)

// Log is a server's log in a test: written from many goroutines (the
// accept loop, each connection's, the model's), read at the end.
type Log struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Log) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *Log) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
