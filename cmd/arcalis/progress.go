package main

import (
	"fmt"
	"io"
	"time"
)

// ticker prints a progress line to w at most every two seconds.
type ticker struct {
	w           io.Writer
	what        string
	start, last time.Time
}

func newTicker(w io.Writer, what string) *ticker {
	now := time.Now()
	return &ticker{w: w, what: what, start: now, last: now}
}

func (t *ticker) maybe(format string, args ...any) {
	if now := time.Now(); now.Sub(t.last) >= 2*time.Second {
		t.last = now
		fmt.Fprintf(t.w, "... %s: %s (%s)\n", t.what, fmt.Sprintf(format, args...), now.Sub(t.start).Round(time.Second))
	}
}
