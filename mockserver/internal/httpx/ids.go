package httpx

import (
	"crypto/rand"
	"encoding/hex"
)

// NewID returns n random bytes (crypto/rand) as 2n lowercase hex digits.
// n <= 0 gives "".
func NewID(n int) string {
	if n <= 0 {
		return ""
	}
	b := make([]byte, n)
	// Since Go 1.24 crypto/rand.Read never returns an error (it aborts the
	// program if the system's generator fails), so there is nothing to
	// handle here, and no path to a panic.
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// NewUUID returns a random (version 4, RFC 9562) UUID in its canonical
// lowercase form, e.g. "0b6f8c2e-5d4a-4f1e-9a3b-7c2d1e0f4a5b".
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // variant 10
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// IsUUID reports whether s is a UUID in canonical form
// (8-4-4-4-12 hex digits, either case); the version is not checked.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
