package containersvc

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// LicenseProduct is the product every mock licence names.
const LicenseProduct = "pfc-mock-container"

// LicenseFileName is the name WriteLicense gives the licence file.
const LicenseFileName = "pfc-mock.lic"

// licenseKey signs mock licences. It is not a secret: the licence only
// exists so that tests can exercise the "no valid licence" behaviour; it
// guards against a truncated or hand-edited file, not against forgery.
var licenseKey = []byte("pfc-go mock container licence v1")

// License is the mock's licence file: a JSON object in a *.lic file in
// sdk_license/. It is valid when Product is LicenseProduct, Signature is
// the hex HMAC-SHA256 (under the mock's fixed key) of the other fields, and
// Expires (if set) has not passed on the service's clock.
type License struct {
	Product   string    `json:"product"`
	Licensee  string    `json:"licensee"`
	Expires   time.Time `json:"expires,omitzero"`
	Signature string    `json:"signature"`
}

func (l License) signed() string {
	mac := hmac.New(sha256.New, licenseKey)
	exp := ""
	if !l.Expires.IsZero() {
		exp = l.Expires.UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(mac, "%s\n%s\n%s", l.Product, l.Licensee, exp)
	return hex.EncodeToString(mac.Sum(nil))
}

// NewLicense returns a signed licence for licensee; a zero expires never
// expires.
func NewLicense(licensee string, expires time.Time) License {
	l := License{Product: LicenseProduct, Licensee: licensee}
	if !expires.IsZero() {
		l.Expires = expires.UTC().Truncate(time.Second)
	}
	l.Signature = l.signed()
	return l
}

// WriteLicense writes l as dir/LicenseFileName (0644).
func WriteLicense(dir string, l License) error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, LicenseFileName), append(b, '\n'), 0o644)
}

// errNoLicense says that sdk_license holds no *.lic file.
var errNoLicense = errors.New("no licence file (*.lic) in sdk_license")

// checkLicense reports nil when dir holds at least one valid licence at
// now, else why not (the reason of the last file examined, or
// errNoLicense). Files are examined in name order.
func checkLicense(dir string, now time.Time) error {
	names, err := filepath.Glob(filepath.Join(dir, "*.lic"))
	if err != nil {
		return err
	}
	sort.Strings(names)
	if len(names) == 0 {
		return errNoLicense
	}
	var last error
	for _, p := range names {
		if last = checkLicenseFile(p, now); last == nil {
			return nil
		}
	}
	return last
}

func checkLicenseFile(path string, now time.Time) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("licence %s: %w", filepath.Base(path), err)
	}
	var l License
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("licence %s: not a licence file: %w", filepath.Base(path), err)
	}
	switch {
	case l.Product != LicenseProduct:
		return fmt.Errorf("licence %s: product %q is not %s", filepath.Base(path), l.Product, LicenseProduct)
	case !hmac.Equal([]byte(strings.ToLower(l.Signature)), []byte(l.signed())):
		return fmt.Errorf("licence %s: signature does not verify", filepath.Base(path))
	case !l.Expires.IsZero() && !now.Before(l.Expires):
		return fmt.Errorf("licence %s: expired at %s", filepath.Base(path), l.Expires.Format(time.RFC3339))
	}
	return nil
}
