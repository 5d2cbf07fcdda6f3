package webhook

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// verifyErrors are the sentinels Verify may wrap; any other error is a bug.
var verifyErrors = []error{
	ErrInvalidHeader, ErrInvalidHeader, ErrInvalidTimestamp,
	ErrNoValidSignature, ErrTimestampOutOfTolerance, ErrTimestampOutOfTolerance,
}

func requireKnownError(t *testing.T, err error) {
	t.Helper()
	for _, sentinel := range verifyErrors {
		if errors.Is(err, sentinel) {
			return
		}
	}
	t.Fatalf("Verify returned an error of no known kind: %v", err)
}

// FuzzVerify checks that Verify never panics on arbitrary headers, that a
// signed delivery always verifies, and that changing any single byte of the
// body, id, timestamp or signature, or truncating the signature, makes it
// fail.
func FuzzVerify(f *testing.F) {
	f.Add(testSecret, testID, testBody, "1763800000", knownSignature, uint(0), byte(1))
	f.Add(testSecret, testID, testBody, "01763800000", "v1a,x v1,", uint(1), byte(0x80))
	f.Add([]byte("k"), "x", []byte{}, "0", "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", uint(2), byte(0xff))
	f.Add([]byte("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), "msg_p5jXN8AQM9LWM0D4loKWxJek", []byte(`{"test": 2432232314}`),
		"1614265330", "v1,ELhqG0Ku1gwOc1f4jyKdp3SFGFLAOdJ9bvpWLciCakI=", uint(3), byte(' '))
	f.Add([]byte{}, "", []byte(nil), "", "", uint(7), byte(0))
	f.Add(testSecret, "evt_.1763800000", []byte("."), "9223372036854775808", "v1,7GntiURZCFejxmEq11bpym9IUYhwPxsbDHXwZO629mZ=", uint(1<<20), byte('='))

	f.Fuzz(func(t *testing.T, secret []byte, id string, body []byte, rawTS, rawSig string, pos uint, delta byte) {
		v, err := NewVerifier([][]byte{secret}, WithClock(fixedClock(testTime)))
		if len(secret) == 0 {
			require.ErrorIs(t, err, ErrInvalidSecret)
			secret = []byte{0}
			v, err = NewVerifier([][]byte{secret}, WithClock(fixedClock(testTime)))
		}
		require.NoError(t, err)

		// Arbitrary input: no panic, and only documented errors.
		if err := v.Verify(http.Header{"Webhook-Id": {id}, "Webhook-Timestamp": {rawTS}, "Webhook-Signature": {rawSig}}, body); err != nil {
			requireKnownError(t, err)
		}

		if id == "" {
			return // an empty id is a missing header
		}
		signed := Sign(secret, id, testTime, body)
		require.NoError(t, v.Verify(signed, body), "sign then verify")
		ts, sig := signed.Get(headerTimestamp), signed.Get(headerSignature)

		if delta == 0 {
			delta = 1
		}
		flip := func(s string, i uint) string {
			b := []byte(s)
			b[i%uint(len(b))] ^= delta
			return string(b)
		}
		check := func(what string, h http.Header, b []byte) {
			err := v.Verify(h, b)
			require.Error(t, err, "a changed %s must fail", what)
			requireKnownError(t, err)
		}
		i := pos / 4
		switch pos % 4 {
		case 0:
			if len(body) > 0 {
				check("body", signed, []byte(flip(string(body), i)))
			}
			check("body length", signed, append(append([]byte{}, body...), 0))
		case 1:
			check("id", headers2(flip(id, i), ts, sig), body)
		case 2:
			check("timestamp", headers2(id, flip(ts, i), sig), body)
		case 3:
			check("signature", headers2(id, ts, flip(sig, i)), body)
			check("truncated signature", headers2(id, ts, sig[:i%uint(len(sig))]), body)
		}
	})
}

// headers2 builds the header map directly, so that values are used exactly
// as given.
func headers2(id, ts, sig string) http.Header {
	return http.Header{"Webhook-Id": {id}, "Webhook-Timestamp": {ts}, "Webhook-Signature": {sig}}
}
