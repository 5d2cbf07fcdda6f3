package redact

import (
	"fmt"
	"io"
	"strings"
)

// FormatCopy prints v, a copy of a value with its secrets already
// replaced, converted to a type local to the caller's Format method (so
// that printing it does not call that method again), as fmt prints it
// for verb. For %#v the local type's name, local ("hosted.ticket"), is
// written as name ("hosted.UploadTicket").
func FormatCopy(f fmt.State, verb rune, name, local string, v any) {
	s := fmt.Sprintf(fmt.FormatString(f, verb), v)
	if verb == 'v' && f.Flag('#') {
		if rest, ok := strings.CutPrefix(s, local); ok {
			s = name + rest
		}
	}
	_, _ = io.WriteString(f, s)
}

// Mask is how a key prints in a Format method: Redacted, or "" when
// there is none (so an unset key still reads as unset).
func Mask(key string) string {
	if key == "" {
		return ""
	}
	return Redacted
}
