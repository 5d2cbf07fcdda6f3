package mockserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/internal/redact"
	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// secretSink collects every string the runs produce: log lines (client
// and mock, debug level), error strings in every form with the string
// fields of every error in their chains, and the mocks' error bodies.
type secretSink struct {
	mu            sync.Mutex
	texts         []string
	logs, errs, n int
}

func (s *secretSink) add(kind *int, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.texts = append(s.texts, text)
	*kind++
}

// Write takes log output (one or more lines).
func (s *secretSink) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		s.add(&s.logs, line)
	}
	return len(p), nil
}

func (s *secretSink) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(s, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// err records err (nil is skipped): its text in several forms and, for
// each error of its chain, the exported string and []byte fields.
func (s *secretSink) err(err error) {
	if err == nil {
		return
	}
	s.add(&s.errs, fmt.Sprintf("%v | %+v | %q", err, err, err))
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		s.add(&s.n, e.Error())
		v := reflect.ValueOf(e)
		for v.Kind() == reflect.Pointer && !v.IsNil() {
			v = v.Elem()
		}
		if v.Kind() == reflect.Struct {
			for i := range v.NumField() {
				f := v.Field(i)
				if !v.Type().Field(i).IsExported() {
					continue
				}
				switch {
				case f.Kind() == reflect.String:
					s.add(&s.n, f.String())
				case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Uint8:
					s.add(&s.n, string(f.Bytes()))
				}
			}
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
}

// teeErrors records the bodies of a mock's error answers.
func (s *secretSink) teeErrors(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code >= 400 {
			s.add(&s.n, rec.Body.String())
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// serve runs a mock behind teeErrors; the server closes before the mock.
func (s *secretSink) serve(t *testing.T, h http.Handler, closeMock func() error) *httptest.Server {
	t.Cleanup(func() { require.NoError(t, closeMock()) })
	srv := httptest.NewServer(s.teeErrors(h))
	t.Cleanup(srv.Close)
	return srv
}

// TestNoSecretInAnyLogOrError drives the three clients against their
// mocks (happy paths, wrong keys, tampered and hostile answers) and
// against hostile doubles that echo every secret they receive, with
// every logger at debug level, and checks that no API key, licence key,
// pre-signed signature or webhook token appears in any log line, error
// string, error field or mock error body.
func TestNoSecretInAnyLogOrError(t *testing.T) {
	t.Parallel()
	const (
		hostedKey    = "hk-SECRET-7f3a9c21d0"
		wrongKey     = "hk-WRONG-SECRET-4410"
		bgKey        = "LIC-bg/SECRET+9d8e 77"
		wrongBGKey   = "LIC-WRONG-SECRET-3131"
		webhookToken = "whtok-SECRET-55aa90"
	)
	ctx := context.Background()
	sink := &secretSink{}
	secrets := []string{hostedKey, wrongKey, bgKey, wrongBGKey, webhookToken, hostileSignature}
	var sigMu sync.Mutex
	faults, err := mockserver.ParseFaults("")
	require.NoError(t, err)
	faults.Observe = func(e mockserver.FaultEvent) { // every pre-signed signature the mock sees
		if sig := e.URL.Query().Get("signature"); sig != "" {
			sigMu.Lock()
			secrets = append(secrets, sig)
			sigMu.Unlock()
		}
	}
	img := chaosInput(t, 21)
	fast := hosted.WithPolling(pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond})
	retryFast := pfc.WithRetries(1, time.Millisecond, 2*time.Millisecond)

	// Hosted: the mock.
	h, err := hostedmock.New(hostedmock.Options{APIKeys: []string{hostedKey}, Logger: sink.logger(),
		Processor: chaosProcessor, Faults: faults})
	require.NoError(t, err)
	hs := sink.serve(t, h, h.Close)
	hc, err := hosted.NewClient(hostedKey, pfc.WithBaseURL(hs.URL+"/v2"), pfc.WithLogger(sink.logger()), fast, retryFast)
	require.NoError(t, err)
	o := hosted.NewCorrection().WithWebhook("https://127.0.0.1:1/hook?token=" + webhookToken) // delivery fails, is logged
	var out bytes.Buffer
	_, err = hc.Correct(ctx, bytes.NewReader(img), int64(len(img)), o, &out, nil)
	require.NoError(t, err)
	ticket, err := hc.RequestUpload(ctx, hosted.FileTypeImage)
	require.NoError(t, err)
	tampered := *ticket
	u, _ := url.Parse(ticket.UploadURL)
	q := u.Query()
	secrets = append(secrets, q.Get("signature")) // never sent: only the tampered one is
	q.Set("signature", "tampered"+q.Get("signature")[8:])
	secrets = append(secrets, q.Get("signature"))
	u.RawQuery = q.Encode()
	tampered.UploadURL = u.String()
	sink.err(hc.UploadTo(ctx, &tampered, bytes.NewReader(img), int64(len(img)), "image/jpeg"))
	_, err = hc.GetJob(ctx, "0123456789abcdef01234567")
	sink.err(err)
	_, err = hc.StartJob(ctx, hosted.NewCorrection().WithFileKey("nope").WithWebhook("https://hooks.test/x?token="+webhookToken))
	sink.err(err)
	_, err = hc.StartJob(ctx, hosted.NewCorrection().WithFileKey("nope").WithWebhook("http://hooks.test/x?token="+webhookToken))
	sink.err(err)
	wrong, err := hosted.NewClient(wrongKey, pfc.WithBaseURL(hs.URL+"/v2"), pfc.WithLogger(sink.logger()), retryFast)
	require.NoError(t, err)
	_, err = wrong.RequestUpload(ctx, hosted.FileTypeImage)
	sink.err(err)
	require.NoError(t, h.WaitIdle(ctx))

	// Hosted: the hostile double.
	hostile := hostileHosted(t)
	hh, err := hosted.NewClient(hostedKey, pfc.WithBaseURL(hostile.URL+"/v2"), pfc.WithLogger(sink.logger()), retryFast)
	require.NoError(t, err)
	ticket, err = hh.RequestUpload(ctx, hosted.FileTypeImage)
	require.NoError(t, err)
	sink.err(hh.UploadTo(ctx, ticket, bytes.NewReader(img), int64(len(img)), "image/jpeg"))
	_, err = hh.StartJob(ctx, hosted.NewCorrection().WithFileKey("k").WithWebhook("https://hooks.test/x?token="+webhookToken))
	sink.err(err)
	_, err = hh.GetJob(ctx, "x")
	sink.err(err)
	_, err = hh.Download(ctx, &hosted.Job{ID: "j", Status: hosted.StatusCompleted,
		CorrectedFile: hostile.URL + "/files/j/corrected.jpg?X-Amz-Signature=" + hostileSignature}, &out)
	sink.err(err)
	_, err = hh.Presets.Get(ctx, "p")
	sink.err(err)
	_, err = hh.Correct(ctx, bytes.NewReader(img), int64(len(img)), nil, &out, nil)
	sink.err(err)

	// Background removal: the mock, a wrong key on an unactivated one,
	// malformed ids, and the hostile double.
	bg, err := bgmock.New(bgmock.Options{LicenseKey: bgKey, Logger: sink.logger()})
	require.NoError(t, err)
	bs := sink.serve(t, bg, bg.Close)
	bc, err := bgcontainer.NewClient(bgKey, pfc.WithBaseURL(bs.URL), pfc.WithLogger(sink.logger()),
		bgcontainer.WithPolling(pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}))
	require.NoError(t, err)
	res, err := bc.RemoveBackground(ctx, bytes.NewReader(img), int64(len(img)), nil, &out, nil)
	require.NoError(t, err)
	require.NotNil(t, res.Removed)
	_, err = bc.CheckImage(ctx, "not-a-uuid")
	sink.err(err)
	_, err = bc.CheckImage(ctx, "0b8f6c1e-3a52-4c8e-9d21-7f6a2b9e4c10")
	sink.err(err)
	bg2, err := bgmock.New(bgmock.Options{LicenseKey: bgKey, Logger: sink.logger()})
	require.NoError(t, err)
	bs2 := sink.serve(t, bg2, bg2.Close)
	bw, err := bgcontainer.NewClient(wrongBGKey, pfc.WithBaseURL(bs2.URL), pfc.WithLogger(sink.logger()))
	require.NoError(t, err)
	_, err = bw.RemoveBackground(ctx, bytes.NewReader(img), int64(len(img)), nil, &out, nil)
	require.Error(t, err)
	sink.err(err)
	hb := hostileBG(t)
	bh, err := bgcontainer.NewClient(bgKey, pfc.WithBaseURL(hb.URL), pfc.WithLogger(sink.logger()),
		pfc.WithRetries(1, time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	_, err = bh.RemoveBackground(ctx, bytes.NewReader(img), int64(len(img)), nil, &out, nil)
	require.Error(t, err)
	sink.err(err)
	_, err = bh.Authorize(ctx)
	sink.err(err)

	// Correction container: the mock with its JSON log at debug level.
	pc, err := pfcmock.New(pfcmock.Options{LogWriter: sink, LogLevel: "debug"})
	require.NoError(t, err)
	ps := sink.serve(t, pc, pc.Close)
	pcl, err := pfccontainer.NewClient(pfc.WithBaseURL(ps.URL), pfc.WithLogger(sink.logger()))
	require.NoError(t, err)
	pcl = pcl.RebaseCorrectedURLs()
	key, err := pcl.Upload(ctx, bytes.NewReader(img), int64(len(img)), "image/jpeg")
	require.NoError(t, err)
	corr, err := pcl.GetCorrection(ctx, key, nil)
	require.NoError(t, err)
	_, err = pcl.Download(ctx, corr, &out)
	require.NoError(t, err)
	_, err = pcl.GetCorrection(ctx, "unknown.jpg", nil)
	sink.err(err)

	sink.mu.Lock()
	defer sink.mu.Unlock()
	sigMu.Lock()
	defer sigMu.Unlock()
	require.Greater(t, len(secrets), 7, "the mock's own signatures were seen")
	assert.Greater(t, sink.logs, 50, "log lines captured")
	assert.GreaterOrEqual(t, sink.errs, 14, "errors captured")
	var forms []string
	for _, s := range secrets {
		j, _ := json.Marshal(s) // as a JSON log line or body spells it
		forms = append(forms, s, url.QueryEscape(s), url.PathEscape(s), strings.Trim(string(j), `"`),
			strings.ReplaceAll(s, "/", `\/`)) // PHP's JSON encoder
	}
	leaks := 0
	anySpelling := redact.New(secrets...) // the doubles echo other spellings too (respell)
	for _, text := range sink.texts {
		for _, s := range forms {
			if strings.Contains(text, s) {
				leaks++
				t.Errorf("secret %q in: %s", s, text)
			}
		}
		if red := anySpelling.Redact(text); red != text {
			leaks++
			t.Errorf("a secret, in some spelling, in: %s\n(redacted: %s)", text, red)
		}
	}
	t.Logf("scanned %d log lines, %d errors and %d error fields and bodies for %d secrets: %d leaks", sink.logs, sink.errs, sink.n, len(secrets), leaks)
}
