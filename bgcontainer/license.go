package bgcontainer

import (
	"io"
	"strings"
	"time"
)

// LicenseState is the licence "status" of the container.
type LicenseState string

// The licence states the container reports.
const (
	Licensed   LicenseState = "Licensed"
	Unlicensed LicenseState = "Unlicensed"
)

// LicenseStatus is the answer of Authorize and Status. The container's
// JSON keys are status, message, "licensed org" and "expiration date"
// (with spaces) and, from Status only, model_version.
type LicenseStatus struct {
	// Status is Licensed or Unlicensed.
	Status LicenseState
	// Message is the container's licensing message.
	Message string
	// Organization is the licensed organisation ("licensed org").
	Organization string
	// Expiration is "expiration date" parsed: Authorize sends a month
	// (YYYY-MM), read as the first instant of that month in UTC; Status
	// sends an ISO 8601 timestamp (a time without zone is read as UTC).
	// The time is in UTC.
	// Zero when absent, empty or in a form this SDK does not know.
	Expiration time.Time
	// ExpirationRaw is "expiration date" exactly as sent.
	ExpirationRaw string
	// ExpirationIsMonth is true when the expiration was a bare month
	// (YYYY-MM): the licence presumably runs to that month's end.
	ExpirationIsMonth bool
	// ModelVersion is the model version (Status only).
	ModelVersion string
}

// IsLicensed reports whether Status is Licensed (any case).
func (s *LicenseStatus) IsLicensed() bool {
	return s != nil && strings.EqualFold(string(s.Status), string(Licensed))
}

// decodeLicenseStatus reads the answer of /Authorize or /Status.
func decodeLicenseStatus(ep endpoint, r io.Reader, redact func(string) string) (*LicenseStatus, error) {
	o, err := readObject(ep, r, redact)
	if err != nil {
		return nil, err
	}
	var s LicenseStatus
	var status string
	for _, f := range []struct {
		name string
		dst  *string
	}{
		{"status", &status}, {"message", &s.Message}, {"licensed org", &s.Organization},
		{"expiration date", &s.ExpirationRaw}, {"model_version", &s.ModelVersion},
	} {
		if *f.dst, err = o.str(f.name); err != nil {
			return nil, err
		}
	}
	s.Status = LicenseState(status)
	s.Expiration, s.ExpirationIsMonth = parseExpiration(s.ExpirationRaw)
	return &s, nil
}

// expirationLayouts are the ISO 8601 forms accepted, tried in order;
// fractional seconds are accepted after the seconds of any of them.
var expirationLayouts = []struct {
	layout string
	month  bool
}{
	{time.RFC3339, false},
	{"2006-01-02T15:04:05Z0700", false},
	{"2006-01-02T15:04:05", false},
	{"2006-01-02 15:04:05Z07:00", false},
	{"2006-01-02 15:04:05", false},
	{"2006-01-02T15:04Z07:00", false},
	{"2006-01-02T15:04", false},
	{"2006-01-02", false},
	{"2006-01", true},
}

// parseExpiration reads an "expiration date"; zones absent mean UTC.
func parseExpiration(raw string) (time.Time, bool) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return time.Time{}, false
	}
	for _, l := range expirationLayouts {
		if t, err := time.ParseInLocation(l.layout, s, time.UTC); err == nil {
			return t.UTC(), l.month
		}
	}
	return time.Time{}, false
}
