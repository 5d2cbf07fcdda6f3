package webhook

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Standard Webhooks signing secret is recognised and the error says what
// to pass instead, without quoting the secret.
func TestNewVerifierRecognisesWhsecSecrets(t *testing.T) {
	t.Parallel()
	const whsec = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	for _, secrets := range [][][]byte{
		{[]byte(whsec)},
		{testSecret, []byte(whsec)},
	} {
		_, err := NewVerifier(secrets)
		require.ErrorIs(t, err, ErrInvalidSecret)
		assert.Contains(t, err.Error(), "raw API key")
		assert.Contains(t, err.Error(), "NewVerifierKey")
		assert.NotContains(t, err.Error(), whsec[len("whsec_"):])
	}
	_, err := NewVerifierKey(whsec)
	assert.ErrorIs(t, err, ErrInvalidSecret)
	assert.ErrorIs(t, Verify([]byte(whsec), http.Header{}, nil), ErrInvalidSecret)
}

func TestNewVerifierKey(t *testing.T) {
	t.Parallel()
	v, err := NewVerifierKey(string(testSecret), WithClock(fixedClock(testTime)))
	require.NoError(t, err)
	r := signedRequest(testID, testBody)
	require.NoError(t, v.Verify(r.Header, testBody))

	_, err = NewVerifierKey("")
	assert.ErrorIs(t, err, ErrInvalidSecret)
}

// The handler gets the webhook-id and timestamp beside the job.
func TestMiddlewareEventInContext(t *testing.T) {
	t.Parallel()
	var got *Event
	h := Middleware(newTestVerifier(t))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev, ok := EventFromContext(r.Context())
		require.True(t, ok)
		got = ev
		job, ok := JobFromContext(r.Context())
		require.True(t, ok)
		assert.Same(t, ev.Job, job)
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, signedRequest(testID, testBody))
	require.Equal(t, http.StatusOK, rec.Code)
	require.NotNil(t, got)
	assert.Equal(t, testID, got.ID)
	assert.True(t, got.Timestamp.Equal(testTime))
	assert.Equal(t, "6651f0c2a1b2c3d4e5f60718", got.Job.ID)

	_, ok := EventFromContext(httptest.NewRequest("GET", "/", nil).Context())
	assert.False(t, ok)
	_, ok = JobFromContext(httptest.NewRequest("GET", "/", nil).Context())
	assert.False(t, ok)
}
