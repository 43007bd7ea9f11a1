package main

import (
	"io"
	"os"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
)

// The colours of words in results and diagnostics.
var (
	okColor   = color.New(color.FgGreen, color.Bold)
	failColor = color.New(color.FgRed, color.Bold)
)

// colourOn reports whether text written to w may be coloured: only when w
// is a terminal and NO_COLOR is not set (no-color.org: any non-empty value).
// Decided per stream, so escape codes never reach a file or pipe that the
// other stream's terminal would have allowed.
func colourOn(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// paint writes s to w in colour c if colourOn(w), else plain.
func paint(w io.Writer, c *color.Color, s string) {
	cc := *c // the shared colours stay as they are
	if colourOn(w) {
		cc.EnableColor()
	} else {
		cc.DisableColor()
	}
	cc.Fprint(w, s)
}
