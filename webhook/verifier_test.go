package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
)

// knownSignature is the signature of testBody under testSecret, testID and
// testTime, from the shared vectors (computed independently).
const knownSignature = "v1,7GntiURZCFejxmEq11bpym9IUYhwPxsbDHXwZO629mY="

func TestSign(t *testing.T) {
	t.Parallel()
	h := Sign(testSecret, testID, testTime, testBody)
	assert.Len(t, h, 3)
	assert.Equal(t, testID, h.Get(headerID))
	assert.Equal(t, "1763800000", h.Get(headerTimestamp))
	assert.Equal(t, knownSignature, h.Get(headerSignature))

	// Against a direct computation, for a long id that spans several chunks.
	longID := "evt_" + strings.Repeat("x", 200)
	mac := hmac.New(sha256.New, testSecret)
	mac.Write([]byte(longID + ".1763800000." + string(testBody)))
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	assert.Equal(t, want, Sign(testSecret, longID, testTime, testBody).Get(headerSignature))
	require.NoError(t, newTestVerifier(t).Verify(Sign(testSecret, longID, testTime, testBody), testBody))
}

func TestNewVerifier(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		secrets [][]byte
		opts    []Option
		want    error
	}{
		{"one secret", [][]byte{testSecret}, nil, nil},
		{"nil secrets", nil, nil, ErrInvalidSecret},
		{"no secrets", [][]byte{}, nil, ErrInvalidSecret},
		{"empty secret", [][]byte{{}}, nil, ErrInvalidSecret},
		{"nil secret", [][]byte{nil}, nil, ErrInvalidSecret},
		{"second secret empty", [][]byte{testSecret, {}}, nil, ErrInvalidSecret},
		{"tolerance one second", [][]byte{testSecret}, []Option{WithTolerance(time.Second)}, nil},
		{"tolerance zero", [][]byte{testSecret}, []Option{WithTolerance(0)}, ErrInvalidOption},
		{"tolerance negative", [][]byte{testSecret}, []Option{WithTolerance(-time.Minute)}, ErrInvalidOption},
		{"tolerance under a second", [][]byte{testSecret}, []Option{WithTolerance(999 * time.Millisecond)}, ErrInvalidOption},
		{"nil clock", [][]byte{testSecret}, []Option{WithClock(nil)}, ErrInvalidOption},
		{"nil option ignored", [][]byte{testSecret}, []Option{nil}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := NewVerifier(tt.secrets, tt.opts...)
			if tt.want == nil {
				require.NoError(t, err)
				require.NotNil(t, v)
				return
			}
			require.ErrorIs(t, err, tt.want)
			assert.Nil(t, v)
			assert.True(t, strings.HasPrefix(err.Error(), "webhook: "), err.Error())
		})
	}
}

func TestVerifierCopiesSecrets(t *testing.T) {
	t.Parallel()
	secret := []byte(string(testSecret))
	v, err := NewVerifier([][]byte{secret}, WithClock(fixedClock(testTime)))
	require.NoError(t, err)
	secret[0] ^= 0xff
	require.NoError(t, v.Verify(Sign(testSecret, testID, testTime, testBody), testBody))
}

func TestZeroVerifier(t *testing.T) {
	t.Parallel()
	h := Sign(testSecret, testID, testTime, testBody)
	var nilVerifier *Verifier
	require.ErrorIs(t, nilVerifier.Verify(h, testBody), ErrInvalidSecret)
	_, err := new(Verifier).VerifyJob(h, testBody)
	require.ErrorIs(t, err, ErrInvalidSecret)
	assert.Panics(t, func() { Middleware(new(Verifier)) })
}

func TestVerifyRotation(t *testing.T) {
	t.Parallel()
	oldKey, newKey := []byte("old-api-key"), []byte("new-api-key")
	v, err := NewVerifier([][]byte{newKey, oldKey}, WithClock(fixedClock(testTime)))
	require.NoError(t, err)
	require.NoError(t, v.Verify(Sign(oldKey, testID, testTime, testBody), testBody))
	require.NoError(t, v.Verify(Sign(newKey, testID, testTime, testBody), testBody))
	require.ErrorIs(t, v.Verify(Sign([]byte("third-key"), testID, testTime, testBody), testBody), ErrNoValidSignature)
}

// headers builds a header map from id, timestamp and signature; an empty
// value leaves the header out.
func headers(id, ts, sig string) http.Header {
	h := http.Header{}
	if id != "" {
		h.Set(headerID, id)
	}
	if ts != "" {
		h.Set(headerTimestamp, ts)
	}
	if sig != "" {
		h.Set(headerSignature, sig)
	}
	return h
}

// signWithTimestamp signs testBody with testSecret using the raw timestamp
// text, valid or not, so that format checks are tested on otherwise
// authentic deliveries.
func signWithTimestamp(ts string) string {
	mac := hmac.New(sha256.New, testSecret)
	mac.Write([]byte(testID + "." + ts + "." + string(testBody)))
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

func TestVerify(t *testing.T) {
	t.Parallel()
	const digest = "7GntiURZCFejxmEq11bpym9IUYhwPxsbDHXwZO629mY="
	raw, err := base64.StdEncoding.DecodeString(digest)
	require.NoError(t, err)
	longer := base64.StdEncoding.EncodeToString(append(append([]byte{}, raw...), 0)) // 33 bytes, 44 chars, no padding
	// An id whose signature uses '+' or '/', to try the URL-safe alphabet.
	urlID, urlSig := "", ""
	for i := 0; !strings.ContainsAny(urlSig, "+/"); i++ {
		urlID = "evt_" + strconv.Itoa(i)
		urlSig = Sign(testSecret, urlID, testTime, testBody).Get(headerSignature)
	}
	urlSafe := strings.NewReplacer("+", "-", "/", "_").Replace(urlSig)
	const ts = "1763800000"

	tests := []struct {
		name string
		h    http.Header
		body []byte
		want error // nil: valid
	}{
		{"valid", headers(testID, ts, knownSignature), testBody, nil},
		{"valid, lower-case keys set by hand", http.Header{headerID: {testID}, headerTimestamp: {ts}, headerSignature: {knownSignature}}, testBody, nil},
		{"valid after an invalid entry", headers(testID, ts, "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= "+knownSignature), testBody, nil},
		{"valid after malformed entries", headers(testID, ts, "v1, v1,!!! nocomma v1a,x v2,"+digest+" "+knownSignature), testBody, nil},
		{"valid with extra spaces", headers(testID, ts, "  "+knownSignature+"  "), testBody, nil},

		{"missing id", headers("", ts, knownSignature), testBody, ErrInvalidHeader},
		{"missing timestamp", headers(testID, "", knownSignature), testBody, ErrInvalidHeader},
		{"missing signature", headers(testID, ts, ""), testBody, ErrInvalidHeader},
		{"no headers", http.Header{}, testBody, ErrInvalidHeader},
		{"nil headers", nil, testBody, ErrInvalidHeader},
		{"empty id value", http.Header{"Webhook-Id": {""}, "Webhook-Timestamp": {ts}, "Webhook-Signature": {knownSignature}}, testBody, ErrInvalidHeader},
		{"repeated id", http.Header{"Webhook-Id": {testID, "evt_other"}, "Webhook-Timestamp": {ts}, "Webhook-Signature": {knownSignature}}, testBody, ErrInvalidHeader},
		{"repeated timestamp", http.Header{"Webhook-Id": {testID}, "Webhook-Timestamp": {ts, ts}, "Webhook-Signature": {knownSignature}}, testBody, ErrInvalidHeader},
		{"repeated signature", http.Header{"Webhook-Id": {testID}, "Webhook-Timestamp": {ts}, "Webhook-Signature": {knownSignature, knownSignature}}, testBody, ErrInvalidHeader},
		{"id under both spellings", http.Header{"Webhook-Id": {testID}, headerID: {testID}, "Webhook-Timestamp": {ts}, "Webhook-Signature": {knownSignature}}, testBody, ErrInvalidHeader},

		{"timestamp with plus sign", headers(testID, "+"+ts, signWithTimestamp("+"+ts)), testBody, ErrInvalidTimestamp},
		{"timestamp negative", headers(testID, "-"+ts, signWithTimestamp("-"+ts)), testBody, ErrInvalidTimestamp},
		{"timestamp with leading zero", headers(testID, "0"+ts, signWithTimestamp("0"+ts)), testBody, ErrInvalidTimestamp},
		{"timestamp 00", headers(testID, "00", signWithTimestamp("00")), testBody, ErrInvalidTimestamp},
		{"timestamp with fraction", headers(testID, ts+".5", signWithTimestamp(ts+".5")), testBody, ErrInvalidTimestamp},
		{"timestamp with leading space", headers(testID, " "+ts, signWithTimestamp(" "+ts)), testBody, ErrInvalidTimestamp},
		{"timestamp with trailing space", headers(testID, ts+" ", signWithTimestamp(ts+" ")), testBody, ErrInvalidTimestamp},
		{"timestamp in exponent form", headers(testID, "1.7638e9", signWithTimestamp("1.7638e9")), testBody, ErrInvalidTimestamp},
		{"timestamp in fullwidth digits", headers(testID, "１７６３８００００", signWithTimestamp("１７６３８００００")), testBody, ErrInvalidTimestamp},
		{"timestamp in milliseconds is too new", headers(testID, ts+"000", signWithTimestamp(ts+"000")), testBody, ErrTimestampOutOfTolerance},
		{"timestamp max int64 is too new", headers(testID, "9223372036854775807", signWithTimestamp("9223372036854775807")), testBody, ErrTimestampOutOfTolerance},
		{"timestamp overflows int64", headers(testID, "9223372036854775808", signWithTimestamp("9223372036854775808")), testBody, ErrInvalidTimestamp},
		{"timestamp far beyond int64", headers(testID, strings.Repeat("9", 40), signWithTimestamp(strings.Repeat("9", 40))), testBody, ErrInvalidTimestamp},
		{"timestamp 0 is canonical but too old", headers(testID, "0", signWithTimestamp("0")), testBody, ErrTimestampOutOfTolerance},

		{"body reformatted", headers(testID, ts, knownSignature), []byte(strings.ReplaceAll(string(testBody), ",", ", ")), ErrNoValidSignature},
		{"body with trailing newline", headers(testID, ts, knownSignature), append(append([]byte{}, testBody...), '\n'), ErrNoValidSignature},
		{"empty body", headers(testID, ts, knownSignature), nil, ErrNoValidSignature},
		{"id changed", headers(testID+"x", ts, knownSignature), testBody, ErrNoValidSignature},
		{"other key", Sign([]byte("other-key"), testID, testTime, testBody), testBody, ErrNoValidSignature},
		{"empty value", headers(testID, ts, "v1,"), testBody, ErrNoValidSignature},
		{"version only", headers(testID, ts, "v1"), testBody, ErrNoValidSignature},
		{"comma only", headers(testID, ts, ","), testBody, ErrNoValidSignature},
		{"spaces only", headers(testID, ts, "   "), testBody, ErrNoValidSignature},
		{"truncated", headers(testID, ts, "v1,7GntiURZCFejxmEq1"), testBody, ErrNoValidSignature},
		{"truncated by one", headers(testID, ts, knownSignature[:len(knownSignature)-2]+"="), testBody, ErrNoValidSignature},
		{"padding removed", headers(testID, ts, strings.TrimSuffix(knownSignature, "=")), testBody, ErrNoValidSignature},
		{"extra padding", headers(testID, ts, knownSignature+"="), testBody, ErrNoValidSignature},
		{"extra character", headers(testID, ts, knownSignature+"A"), testBody, ErrNoValidSignature},
		{"non-zero trailing bits", headers(testID, ts, "v1,7GntiURZCFejxmEq11bpym9IUYhwPxsbDHXwZO629mZ="), testBody, ErrNoValidSignature},
		{"33-byte digest", headers(testID, ts, "v1,"+longer), testBody, ErrNoValidSignature},
		{"standard alphabet", headers(urlID, ts, urlSig), testBody, nil},
		{"url-safe alphabet", headers(urlID, ts, urlSafe), testBody, ErrNoValidSignature},
		{"line break inside", headers(testID, ts, "v1,7GntiURZCFejxmEq11bpym9IUYhwPxsb\nDHXwZO629mY="), testBody, ErrNoValidSignature},
		{"hex digest", headers(testID, ts, "v1,ec69e2"), testBody, ErrNoValidSignature},
		{"upper-case version", headers(testID, ts, "V1,"+digest), testBody, ErrNoValidSignature},
		{"v1a only", headers(testID, ts, "v1a,"+digest), testBody, ErrNoValidSignature},
		{"v2 only", headers(testID, ts, "v2,"+digest), testBody, ErrNoValidSignature},
		{"version with space", headers(testID, ts, "v1 ,"+digest), testBody, ErrNoValidSignature},
		{"tab separated", headers(testID, ts, "v1,AAAA\t"+knownSignature), testBody, ErrNoValidSignature},
		{"comma separated", headers(testID, ts, "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=,"+knownSignature), testBody, ErrNoValidSignature},
	}
	v := newTestVerifier(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Verify(tt.h, tt.body)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.want)
			msg := err.Error()
			assert.True(t, strings.HasPrefix(msg, "webhook: "), msg)
			assert.NotContains(t, msg, string(testSecret))
			assert.NotContains(t, msg, digest[:8])
		})
	}
}

func TestVerifyErrorKinds(t *testing.T) {
	t.Parallel()
	v := newTestVerifier(t)

	err := v.Verify(headers(testID, "", knownSignature), testBody)
	var he *HeaderError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, headerTimestamp, he.Header)
	assert.Equal(t, "webhook: invalid header: webhook-timestamp: missing", err.Error())

	err = v.Verify(headers(testID, "01", knownSignature), testBody)
	require.ErrorAs(t, err, &he)
	assert.Equal(t, "webhook: invalid timestamp: webhook-timestamp: leading zero", err.Error())

	err = v.Verify(headers(testID, "v1a,x", "v1a,x"), testBody)
	require.ErrorIs(t, err, ErrInvalidTimestamp)

	assert.Equal(t, "webhook: no valid signature: no v1 entry", v.Verify(headers(testID, "1763800000", "v1a,abc"), testBody).Error())
	assert.Equal(t, "webhook: no valid signature: no v1 entry matches", v.Verify(headers(testID, "1763800000", "v1,abc"), testBody).Error())
}

func TestVerifyTolerance(t *testing.T) {
	t.Parallel()
	h := Sign(testSecret, testID, testTime, testBody)
	tests := []struct {
		name      string
		now       time.Time
		tolerance time.Duration
		want      error
	}{
		{"same second", testTime, 0, nil},
		{"300 s late", testTime.Add(300 * time.Second), 0, nil},
		{"300.9 s late counts as 300", testTime.Add(300*time.Second + 900*time.Millisecond), 0, nil},
		{"301 s late", testTime.Add(301 * time.Second), 0, ErrTimestampOutOfTolerance},
		{"300 s early", testTime.Add(-300 * time.Second), 0, nil},
		{"301 s early", testTime.Add(-301 * time.Second), 0, ErrTimestampOutOfTolerance},
		{"a day late", testTime.Add(24 * time.Hour), 0, ErrTimestampOutOfTolerance},
		{"10 s tolerance, 10 s late", testTime.Add(10 * time.Second), 10 * time.Second, nil},
		{"10 s tolerance, 11 s late", testTime.Add(11 * time.Second), 10 * time.Second, ErrTimestampOutOfTolerance},
		{"10 s tolerance, 11 s early", testTime.Add(-11 * time.Second), 10 * time.Second, ErrTimestampOutOfTolerance},
		{"1.5 s tolerance counts as 1 s", testTime.Add(2 * time.Second), 1500 * time.Millisecond, ErrTimestampOutOfTolerance},
		{"clock before 1970", time.Unix(-1<<62, 0), 0, ErrTimestampOutOfTolerance},
		{"clock at the end of int64", time.Unix(1<<62, 0), 0, ErrTimestampOutOfTolerance},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []Option{WithClock(fixedClock(tt.now))}
			if tt.tolerance != 0 {
				opts = append(opts, WithTolerance(tt.tolerance))
			}
			v, err := NewVerifier([][]byte{testSecret}, opts...)
			require.NoError(t, err)
			err = v.Verify(h, testBody)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.want)
			var te *TimestampError
			require.ErrorAs(t, err, &te)
			assert.True(t, te.Timestamp.Equal(testTime))
			assert.True(t, te.Now.Equal(tt.now))
			assert.NotContains(t, err.Error(), string(testSecret))
		})
	}

	v, err := NewVerifier([][]byte{testSecret}, WithClock(fixedClock(testTime.Add(301*time.Second))))
	require.NoError(t, err)
	assert.Equal(t, "webhook: timestamp outside the tolerance: 301 s in the past by the receiver's clock, tolerance 5m0s", v.Verify(h, testBody).Error())
}

// A bad signature is reported even when the timestamp is also out of the
// window: the window is only judged for authentic deliveries.
func TestVerifySignatureBeforeWindow(t *testing.T) {
	t.Parallel()
	v, err := NewVerifier([][]byte{testSecret}, WithClock(fixedClock(testTime.Add(time.Hour))))
	require.NoError(t, err)
	err = v.Verify(Sign([]byte("forger"), testID, testTime, testBody), testBody)
	require.ErrorIs(t, err, ErrNoValidSignature)
	assert.NotErrorIs(t, err, ErrTimestampOutOfTolerance)
}

func TestVerifyJob(t *testing.T) {
	t.Parallel()
	v := newTestVerifier(t)
	job, err := v.VerifyJob(Sign(testSecret, testID, testTime, testBody), testBody)
	require.NoError(t, err)
	assert.Equal(t, "6651f0c2a1b2c3d4e5f60718", job.ID)
	assert.Equal(t, hosted.StatusCompleted, job.Status)
	assert.Equal(t, "https://files.example.test/out/6651f0c2a1b2c3d4e5f60718.jpg", job.CorrectedFile)

	full := []byte(`{"_id":"j1","status":"FAILED","statusText":"bad input","code":12,"createdAt":"2026-11-22T10:04:05.123Z",` +
		`"updatedAt":"2026-11-22T10:04:06Z","usage":{"size":"4MP","imageCorrectionCount":1},"originalDimensions":{"width":10,"height":20},"futureField":[1,2]}`)
	job, err = v.VerifyJob(Sign(testSecret, "evt_j1", testTime, full), full)
	require.NoError(t, err)
	assert.Equal(t, hosted.StatusFailed, job.Status)
	assert.Equal(t, 12, job.Code)
	assert.Equal(t, 1, job.Usage.ImageCorrectionCount)
	assert.Equal(t, 20, job.OriginalDimensions.Height)
	assert.Equal(t, time.Date(2026, 11, 22, 10, 4, 5, 123e6, time.UTC), job.CreatedAt.UTC())

	for _, body := range []string{``, `null`, `[]`, `"x"`, `12`, `{`, `{"_id":1}`, `{"_id":"a"} {}`, `{"createdAt":"yesterday"}`} {
		t.Run(body, func(t *testing.T) {
			job, err := v.VerifyJob(Sign(testSecret, testID, testTime, []byte(body)), []byte(body))
			require.ErrorIs(t, err, ErrInvalidPayload)
			assert.Nil(t, job)
			assert.True(t, strings.HasPrefix(err.Error(), "webhook: invalid payload"), err.Error())
		})
	}
	_, err = v.VerifyJob(Sign(testSecret, testID, testTime, []byte(`{"code":"x"}`)), []byte(`{"code":"x"}`))
	var typeErr *json.UnmarshalTypeError
	require.ErrorAs(t, err, &typeErr)

	// Authentication comes before decoding.
	_, err = v.VerifyJob(Sign([]byte("forger"), testID, testTime, []byte(`null`)), []byte(`null`))
	require.ErrorIs(t, err, ErrNoValidSignature)
}

func TestPackageLevelVerify(t *testing.T) {
	t.Parallel()
	h := Sign(testSecret, testID, time.Now(), testBody)
	require.NoError(t, Verify(testSecret, h, testBody))
	job, err := VerifyJob(testSecret, h, testBody)
	require.NoError(t, err)
	assert.Equal(t, "6651f0c2a1b2c3d4e5f60718", job.ID)

	require.ErrorIs(t, Verify(nil, h, testBody), ErrInvalidSecret)
	_, err = VerifyJob([]byte{}, h, testBody)
	require.ErrorIs(t, err, ErrInvalidSecret)
	require.ErrorIs(t, Verify([]byte("other"), h, testBody), ErrNoValidSignature)
	// Signed an hour ago: outside the default tolerance.
	require.ErrorIs(t, Verify(testSecret, Sign(testSecret, testID, time.Now().Add(-time.Hour), testBody), testBody), ErrTimestampOutOfTolerance)
}

func TestVerifyConcurrent(t *testing.T) {
	t.Parallel()
	v := newTestVerifier(t)
	good := Sign(testSecret, testID, testTime, testBody)
	bad := Sign([]byte("x"), testID, testTime, testBody)
	errs := make(chan error, 64)
	for i := 0; i < cap(errs); i++ {
		go func() {
			if i%2 == 0 {
				errs <- v.Verify(good, testBody)
			} else if err := v.Verify(bad, testBody); err == nil {
				errs <- assert.AnError
			} else {
				errs <- nil
			}
		}()
	}
	for i := 0; i < cap(errs); i++ {
		require.NoError(t, <-errs)
	}
}

func TestVerifyAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items, so allocations are not representative")
	}
	v := newTestVerifier(t)
	h := Sign(testSecret, testID, testTime, testBody)
	v2, err := NewVerifier([][]byte{[]byte("new"), testSecret}, WithClock(fixedClock(testTime)))
	require.NoError(t, err)
	require.NoError(t, v.Verify(h, testBody))
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = v.Verify(h, testBody) }), "valid delivery")
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = v2.Verify(h, testBody) }), "valid delivery, second secret")
	bad := headers(testID, "1763800000", "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = v.Verify(bad, testBody) }), "bad signature")
}

func TestClaimString(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Acquired", ClaimAcquired.String())
	assert.Equal(t, "InProgress", ClaimInProgress.String())
	assert.Equal(t, "Done", ClaimDone.String())
	assert.Equal(t, "Invalid", Claim(0).String())
}
