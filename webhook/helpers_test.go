package webhook

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var (
	testSecret = []byte("test-api-key-123")
	testID     = "evt_6651f0c2a1b2c3d4e5f60718"
	testTime   = time.Unix(1763800000, 0)
	testBody   = []byte(`{"_id":"6651f0c2a1b2c3d4e5f60718","status":"COMPLETED","statusText":"","code":0,` +
		`"correctedFile":"https://files.example.test/out/6651f0c2a1b2c3d4e5f60718.jpg"}`)
)

// fixedClock returns a clock that always reads t.
func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

// newTestVerifier returns a verifier for testSecret whose clock reads testTime.
func newTestVerifier(t testing.TB, opts ...Option) *Verifier {
	t.Helper()
	v, err := NewVerifier([][]byte{testSecret}, append([]Option{WithClock(fixedClock(testTime))}, opts...)...)
	require.NoError(t, err)
	return v
}

// signedRequest returns a POST request carrying body signed with testSecret
// at testTime under id.
func signedRequest(id string, body []byte) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(string(body)))
	for k, vs := range Sign(testSecret, id, testTime, body) {
		r.Header[k] = vs
	}
	r.Header.Set("Content-Type", "application/json")
	return r
}

// jobBody returns a job record body for job id.
func jobBody(id string) []byte {
	return []byte(`{"_id":"` + id + `","status":"COMPLETED","statusText":"","code":0,"correctedFile":"https://files.example.test/out/` + id + `.jpg"}`)
}
