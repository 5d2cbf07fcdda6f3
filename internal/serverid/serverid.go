// Package serverid checks the identifiers a service issues before a
// client uses them, returns them or writes them to a file: the hosted
// API's job id (the last path segment of the statusEndpoint of GET /pfc),
// the correction container's image key (the answer of PUT /pfc) and the
// background-removal container's process_id (SubmitImage).
//
// The API documentation gives the job id and the image key no grammar,
// only examples (24 hexadecimal digits; 32 and an extension), so the
// clients hold both to one strict shape: 1 to MaxLength bytes of ASCII
// letters, digits, '-', '_' and '.', not starting with '.' (so never "."
// or ".."). The process_id is documented as a UUID and checked as one
// (package bgcontainer).
//
// Whatever its shape, an id that holds a secret of the client (its API
// key or licence key, in any spelling its redactor knows) is refused
// too: a hostile or broken service could otherwise have the client
// return its own key as a job id, quote it in errors and write it into
// a bulk manifest.
package serverid

import "fmt"

// MaxLength bounds a job id or an image key, in bytes.
const MaxLength = 128

// Check returns "" when id, an identifier a service issued, has the shape
// of the package documentation and holds no secret, else the reason it is
// refused; the reason never quotes id. redact is the client's redactor
// (nil: none).
func Check(id string, redact func(string) string) string {
	switch {
	case id == "":
		return "is missing"
	case HoldsSecret(id, redact):
		return "holds a credential of this client (not quoted); refused"
	case len(id) > MaxLength:
		return fmt.Sprintf("is %d bytes long, more than %d", len(id), MaxLength)
	case !shaped(id):
		return fmt.Sprintf("is not 1 to %d ASCII letters, digits, '-', '_' or '.' (not starting with '.')", MaxLength)
	}
	return ""
}

// HoldsSecret reports whether redact (nil: none) changes s, that is
// whether s holds a spelling of a secret of the client.
func HoldsSecret(s string, redact func(string) string) bool {
	return redact != nil && redact(s) != s
}

// shaped reports a non-empty s of ASCII letters, digits, '-', '_' and '.'
// not starting with '.'.
func shaped(s string) bool {
	if s == "" || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
