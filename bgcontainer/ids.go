package bgcontainer

import (
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// Wire names of the arguments checked before a request is sent.
const (
	paramProcessID           = "process_id"
	paramLicenseKey          = "license_key"
	paramMode                = "mode"
	paramPreprocessingConfig = "preprocessing_config"
)

// ValidateProcessID checks that id is a UUID in its canonical form
// (8-4-4-4-12 hexadecimal digits, any case), as the container issues them.
// Every call taking a process id runs it before sending anything; it
// returns a *pfc.ValidationError naming process_id (errors.Is
// ErrInvalidProcessID and pfc.ErrInvalidParameter).
func ValidateProcessID(id string) (err error) {
	return validateProcessID(id, nil)
}

// validateProcessID is ValidateProcessID quoting a bad id redacted by
// redact (nil: not redacted) before it is cut.
func validateProcessID(id string, redact func(string) string) error {
	if isUUID(id) {
		return nil
	}
	var fe fieldErrors
	if id == "" {
		fe.add(paramProcessID, "is required")
	} else {
		fe.add(paramProcessID, "must be a UUID (8-4-4-4-12 hexadecimal digits), got %q", apierr.Excerpt(redact, id, apierr.MaxQuotedID))
	}
	return fe.err()
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
			continue
		}
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// validateLicenseKey checks a licence key without ever quoting it.
func validateLicenseKey(key string) error {
	var fe fieldErrors
	switch {
	case strings.TrimSpace(key) == "":
		fe.add(paramLicenseKey, "is required")
	case strings.ContainsFunc(key, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		fe.add(paramLicenseKey, "contains control characters")
	}
	return fe.err()
}
