package hostedsvc

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
)

// TestSignedURLExpiryFollowsAScaledClock: on a clock.Scaled (-time-scale)
// the upload ticket lives UploadURLTTL on the clock, so the pre-signed
// URLs (uploads and presets) expire when that has passed: Now, the wall
// clock, plus the scaled TTL. They used to say Now plus the unscaled TTL:
// at 1000 a 1 s URL expired after 1 s of wall time (1 ms on the clock),
// at 0.001 a 1-hour URL outlived its ticket by an hour.
func TestSignedURLExpiryFollowsAScaledClock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		factor float64
		ttl    time.Duration
	}{
		{1000, time.Second},   // 1000 s of wall time
		{0.001, time.Hour},    // 3.6 s
		{0.5, 10 * time.Hour}, // 5 h
	} {
		t.Run(strconv.FormatFloat(tc.factor, 'g', -1, 64), func(t *testing.T) {
			t.Parallel()
			sc, err := clock.NewScaled(tc.factor)
			require.NoError(t, err)
			s, _ := newServiceWith(t, func(c *settings) { c.Clock = sc; c.UploadURLTTL = tc.ttl })
			wall := sc.Scale(tc.ttl)

			before := time.Now()
			tk, aerr := s.RequestUpload("k", url.Values{}, "http://mock.test")
			require.Nil(t, aerr)
			preset := createPreset(t, s, "p")
			after := time.Now()
			for _, u := range []string{tk.UploadURL, preset} {
				_, q := signedQuery(t, u)
				exp, err := strconv.ParseInt(q.Get("expires"), 10, 64)
				require.NoError(t, err)
				assert.GreaterOrEqual(t, exp, before.Add(wall).Unix(), u)
				assert.LessOrEqual(t, exp, after.Add(wall).Unix(), u)
			}
			// Usable now.
			key, q := signedQuery(t, tk.UploadURL)
			require.Nil(t, s.ReceiveUpload(key, q, strings.NewReader("data"), 4))
			putPreset(t, s, preset, []byte("preset"))
		})
	}
}

// TestSignedURLExpiryOnAFakeClock: on a fake clock the expiry is the fake
// Now plus the TTL, unscaled.
func TestSignedURLExpiryOnAFakeClock(t *testing.T) {
	t.Parallel()
	s, _ := newServiceWith(t, func(c *settings) { c.UploadURLTTL = 2 * time.Hour })
	tk, aerr := s.RequestUpload("k", url.Values{}, "http://mock.test")
	require.Nil(t, aerr)
	for _, u := range []string{tk.UploadURL, createPreset(t, s, "p")} {
		_, q := signedQuery(t, u)
		assert.Equal(t, strconv.FormatInt(testT0.Add(2*time.Hour).Unix(), 10), q.Get("expires"), u)
	}
}
