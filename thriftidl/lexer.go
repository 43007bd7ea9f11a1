package thriftidl

import (
	"fmt"
	"strings"
)

// Pos is a place in an IDL file: line and column count from 1, the column
// in bytes.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Error is an error at a place in an IDL file. Its text is
// "file:line:col: message".
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

func errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

type tokKind int

const (
	tEOF    tokKind = iota
	tIdent          // names and keywords; may contain dots ("common.Post")
	tInt            // decimal or 0x hex, with an optional sign
	tDouble         // a number with a fraction or an exponent
	tString         // "..." or '...'; text holds the unquoted value
	tPunct          // one of { } ( ) [ ] < > , ; : = * &
)

type token struct {
	kind tokKind
	text string
	pos  Pos
}

// describe is how an error message names what it found.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return fmt.Sprintf("string %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// lexer turns a file into tokens, skipping white space and the three kinds
// of comment (//, #, /* */).
type lexer struct {
	file      string
	src       string
	off       int
	line, col int
}

func newLexer(file string, src []byte) *lexer {
	return &lexer{file: file, src: string(src), line: 1, col: 1}
}

func (l *lexer) pos() Pos { return Pos{l.file, l.line, l.col} }

func (l *lexer) advance(n int) {
	for i := 0; i < n; i++ {
		if l.src[l.off] == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
		l.off++
	}
}

func isLetter(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isHex(c byte) bool    { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// skip passes over white space and comments.
func (l *lexer) skip() error {
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			l.advance(1)
		case c == '#' || strings.HasPrefix(l.src[l.off:], "//"):
			for l.off < len(l.src) && l.src[l.off] != '\n' {
				l.advance(1)
			}
		case strings.HasPrefix(l.src[l.off:], "/*"):
			start := l.pos()
			end := strings.Index(l.src[l.off+2:], "*/")
			if end < 0 {
				return errorf(start, "unterminated comment: /* has no */ before the end of the file")
			}
			l.advance(end + 4)
		default:
			return nil
		}
	}
	return nil
}

func (l *lexer) next() (token, error) {
	if err := l.skip(); err != nil {
		return token{}, err
	}
	pos := l.pos()
	if l.off >= len(l.src) {
		return token{kind: tEOF, pos: pos}, nil
	}
	c := l.src[l.off]
	start := l.off
	switch {
	case isLetter(c):
		n := 1
		for l.off+n < len(l.src) && (isLetter(l.src[l.off+n]) || isDigit(l.src[l.off+n]) || l.src[l.off+n] == '.') {
			n++
		}
		l.advance(n)
		return token{tIdent, l.src[start:l.off], pos}, nil
	case isDigit(c) || (c == '+' || c == '-') && l.off+1 < len(l.src) && (isDigit(l.src[l.off+1]) || l.src[l.off+1] == '.'):
		return l.number(pos)
	case c == '"' || c == '\'':
		return l.str(pos, c)
	case strings.IndexByte("{}()[]<>,;:=*&", c) >= 0:
		l.advance(1)
		return token{tPunct, string(c), pos}, nil
	}
	return token{}, errorf(pos, "unexpected character %q", c)
}

func (l *lexer) number(pos Pos) (token, error) {
	start := l.off
	n := 0
	if c := l.src[l.off]; c == '+' || c == '-' {
		n++
	}
	if strings.HasPrefix(l.src[l.off+n:], "0x") || strings.HasPrefix(l.src[l.off+n:], "0X") {
		n += 2
		d := n
		for l.off+n < len(l.src) && isHex(l.src[l.off+n]) {
			n++
		}
		if n == d {
			l.advance(n)
			return token{}, errorf(pos, "hexadecimal number %q has no digits", l.src[start:l.off])
		}
		l.advance(n)
		return token{tInt, l.src[start:l.off], pos}, nil
	}
	kind := tInt
	for l.off+n < len(l.src) && isDigit(l.src[l.off+n]) {
		n++
	}
	if l.off+n < len(l.src) && l.src[l.off+n] == '.' {
		kind = tDouble
		n++
		for l.off+n < len(l.src) && isDigit(l.src[l.off+n]) {
			n++
		}
	}
	if l.off+n < len(l.src) && (l.src[l.off+n] == 'e' || l.src[l.off+n] == 'E') {
		kind = tDouble
		n++
		if l.off+n < len(l.src) && (l.src[l.off+n] == '+' || l.src[l.off+n] == '-') {
			n++
		}
		for l.off+n < len(l.src) && isDigit(l.src[l.off+n]) {
			n++
		}
	}
	l.advance(n)
	return token{kind, l.src[start:l.off], pos}, nil
}

// str reads a literal quoted with q; the escapes \\ \" \' \n \r \t are
// understood, as Apache's compiler does.
func (l *lexer) str(pos Pos, q byte) (token, error) {
	l.advance(1)
	var b strings.Builder
	for {
		if l.off >= len(l.src) {
			return token{}, errorf(pos, "unterminated string literal")
		}
		c := l.src[l.off]
		switch {
		case c == q:
			l.advance(1)
			return token{tString, b.String(), pos}, nil
		case c == '\n':
			return token{}, errorf(pos, "unterminated string literal (a newline before the closing %c)", q)
		case c == '\\' && l.off+1 < len(l.src):
			e := l.src[l.off+1]
			r, ok := map[byte]byte{'\\': '\\', '"': '"', '\'': '\'', 'n': '\n', 'r': '\r', 't': '\t'}[e]
			if !ok {
				return token{}, errorf(l.pos(), "unknown escape \\%c in string literal", e)
			}
			b.WriteByte(r)
			l.advance(2)
		default:
			b.WriteByte(c)
			l.advance(1)
		}
	}
}
