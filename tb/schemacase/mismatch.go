package schemacase

import (
	"errors"
	"fmt"
)

// Mismatch is a unit's difference from its reference or a protocol
// violation, as opposed to the simulator's own error.
type Mismatch struct{ What string }

func (m *Mismatch) Error() string { return m.What }

// Mismatchf is a *Mismatch with a formatted message.
func Mismatchf(format string, args ...any) error {
	return &Mismatch{What: fmt.Sprintf(format, args...)}
}

// IsMismatch reports whether err is the unit's fault rather than the
// simulator's.
func IsMismatch(err error) bool {
	var m *Mismatch
	return errors.As(err, &m)
}
