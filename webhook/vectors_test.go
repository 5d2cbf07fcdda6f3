package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vectorCase is one case of ../shared/webhook-vectors.json.
type vectorCase struct {
	Name      string `json:"name"`
	Secret    string `json:"secret"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Body      string `json:"body"`
	Signature string `json:"signature"`
	Now       int64  `json:"now"`
	Valid     bool   `json:"valid"`
	// Tolerance in seconds; absent means 300.
	Tolerance *int64 `json:"tolerance,omitempty"`
}

// vectorsPath finds the shared vectors: the directory holding go.mod is the
// repository root, and the file is ../shared/webhook-vectors.json from it.
func vectorsPath(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "webhook-vectors.json")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test's directory, so ../shared/webhook-vectors.json cannot be located")
		}
		dir = parent
	}
}

func loadVectors(t *testing.T) []vectorCase {
	t.Helper()
	path := vectorsPath(t)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("shared webhook vectors not found at %s; CI provides them", path)
	}
	require.NoError(t, err)
	var file struct {
		About string       `json:"about"`
		Cases []vectorCase `json:"cases"`
	}
	// Unknown fields fail the test: a new field could change a case's meaning.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&file), "decoding %s", path)
	require.NotEmpty(t, file.Cases, "no cases in %s", path)
	return file.Cases
}

// vectorErrors is why each invalid case of the shared file must fail: a
// vector rejected for another reason (a timestamp-format case failing on its
// signature, say) would not test its rule. Cases not listed here must still
// fail with one of the verifier's sentinels.
var vectorErrors = map[string]error{
	"v1a entry alone is not a v1 signature": ErrNoValidSignature,
	"timestamp changed":                     ErrNoValidSignature,
	"body reformatted":                      ErrNoValidSignature,
	"other key":                             ErrNoValidSignature,
	"id changed":                            ErrNoValidSignature,
	"truncated signature":                   ErrNoValidSignature,
	"empty signature value":                 ErrNoValidSignature,
	"base64 padding removed":                ErrNoValidSignature,
	"too old (301 s)":                       ErrTimestampOutOfTolerance,
	"too new (301 s ahead)":                 ErrTimestampOutOfTolerance,
	"timestamp with plus sign":              ErrInvalidTimestamp,
	"timestamp with leading zero":           ErrInvalidTimestamp,
	"empty secret is refused":               ErrInvalidSecret,
}

func TestSharedVectors(t *testing.T) {
	t.Parallel()
	cases := loadVectors(t)
	names := make(map[string]bool, len(cases))
	for _, vc := range cases {
		require.False(t, names[vc.Name], "duplicate case name %q", vc.Name)
		names[vc.Name] = true
	}
	for name := range vectorErrors {
		assert.True(t, names[name], "case %q is no longer in the shared file", name)
	}
	for _, vc := range cases {
		t.Run(vc.Name, func(t *testing.T) {
			opts := []Option{WithClock(fixedClock(time.Unix(vc.Now, 0)))}
			if vc.Tolerance != nil {
				opts = append(opts, WithTolerance(time.Duration(*vc.Tolerance)*time.Second))
			}
			h := headers(vc.ID, vc.Timestamp, vc.Signature)
			v, err := NewVerifier([][]byte{[]byte(vc.Secret)}, opts...)
			if err == nil {
				err = v.Verify(h, []byte(vc.Body))
			}
			if vc.Valid {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				switch want, ok := vectorErrors[vc.Name]; {
				case ok:
					require.ErrorIs(t, err, want)
				case vc.Secret == "":
					require.ErrorIs(t, err, ErrInvalidSecret)
				default:
					requireKnownError(t, err)
				}
				assert.True(t, strings.HasPrefix(err.Error(), "webhook: "), err.Error())
				if vc.Secret != "" {
					assert.NotContains(t, err.Error(), vc.Secret)
				}
			}

			// The signer must reproduce every single-entry signature made
			// for a canonical timestamp with a non-empty key.
			sec, perr := strconv.ParseInt(vc.Timestamp, 10, 64)
			canonical := perr == nil && strconv.FormatInt(sec, 10) == vc.Timestamp
			if vc.Secret != "" && canonical && !strings.Contains(vc.Signature, " ") && strings.HasPrefix(vc.Signature, "v1,") && len(vc.Signature) == len(knownSignature) {
				got := Sign([]byte(vc.Secret), vc.ID, time.Unix(sec, 0), []byte(vc.Body)).Get(headerSignature)
				if vc.Valid {
					assert.Equal(t, vc.Signature, got)
				}
			}
		})
	}
}
