package bgsvc

import (
	"bytes"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

func newInactive(t *testing.T, logs *bytes.Buffer) (*Service, *clock.Fake) {
	t.Helper()
	fc := clock.NewFake(t0)
	cfg := Config{LicenseKey: testKey, Clock: fc, Workers: 1}
	if logs != nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	s, err := New(cfg, Deps{WorkDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s, fc
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	_, err := New(Config{}, Deps{})
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), "LicenseKey")
	assert.Contains(t, err.Error(), "WorkDir")
	_, err = New(Config{LicenseKey: "k", ProcessingDelay: -1, Workers: -1}, Deps{WorkDir: t.TempDir()})
	require.ErrorIs(t, err, ErrInvalidConfig)
}

func TestAuthorize(t *testing.T) {
	t.Parallel()
	s, _ := newInactive(t, nil)

	st := s.Status()
	assert.Equal(t, Unlicensed, st.Status)
	assert.Equal(t, DefaultModelVersion, st.ModelVersion)
	assert.Empty(t, st.LicensedOrg)

	_, e := s.Authorize("")
	requireErr(t, e, http.StatusBadRequest, httpx.CodeMissingParameter, ParamLicenseKey)

	st, e = s.Authorize("wrong-key")
	require.Nil(t, e)
	assert.Equal(t, Unlicensed, st.Status)
	assert.Empty(t, st.ExpirationDate)
	requireErr(t, s.CheckActivated(), http.StatusForbidden, httpx.CodeNotActivated, "")

	st, e = s.Authorize(testKey)
	require.Nil(t, e)
	assert.Equal(t, Licensed, st.Status)
	assert.Equal(t, DefaultOrganization, st.LicensedOrg)
	assert.Equal(t, "2027-11", st.ExpirationDate) // a year on, end of month
	assert.Empty(t, st.ModelVersion)
	require.Nil(t, s.CheckActivated())

	st = s.Status()
	assert.Equal(t, Licensed, st.Status)
	assert.Equal(t, "2027-11-30T23:59:59Z", st.ExpirationDate)
	_, err := time.Parse(time.RFC3339, st.ExpirationDate)
	require.NoError(t, err)
	assert.Equal(t, DefaultModelVersion, st.ModelVersion)

	// An invalid key later does not revoke the activation.
	st, e = s.Authorize("wrong-key")
	require.Nil(t, e)
	assert.Equal(t, Unlicensed, st.Status)
	require.Nil(t, s.CheckActivated())
}

func TestLicenceExpiresOnTheClock(t *testing.T) {
	t.Parallel()
	fc := clock.NewFake(t0)
	s, err := New(Config{LicenseKey: testKey, Clock: fc,
		LicenseExpiry: t0.Add(time.Hour), Organization: "Acme", ModelVersion: "m1"}, Deps{WorkDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	st, e := s.Authorize(testKey)
	require.Nil(t, e)
	assert.Equal(t, "Acme", st.LicensedOrg)
	assert.Equal(t, "m1", s.Status().ModelVersion)
	fc.Advance(time.Hour)
	requireErr(t, s.CheckActivated(), http.StatusForbidden, httpx.CodeNotActivated, "")
	assert.Equal(t, Unlicensed, s.Status().Status)
	st, e = s.Authorize(testKey)
	require.Nil(t, e)
	assert.Equal(t, Unlicensed, st.Status)
}

func TestImageEndpointsNeedActivation(t *testing.T) {
	t.Parallel()
	s, _ := newInactive(t, nil)
	id := httpx.NewUUID()
	u, e := s.ReceiveFile(bytes.NewReader(subjectPNG(t, 40, 30)))
	require.Nil(t, e)
	calls := map[string]func() *httpx.Error{
		"submit":   func() *httpx.Error { _, e := s.Submit(SubmitRequest{File: u}); return e },
		"check":    func() *httpx.Error { _, e := s.Check(id); return e },
		"download": func() *httpx.Error { _, e := s.Download(id); return e },
		"remove":   func() *httpx.Error { _, e := s.Remove("not-a-uuid"); return e },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			requireErr(t, call(), http.StatusForbidden, httpx.CodeNotActivated, "")
		})
	}
}

func TestLicenceKeyNeverLogged(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s, _ := newInactive(t, &logs)
	_, _ = s.Authorize("wrong-key-xyz")
	_, _ = s.Authorize(testKey)
	s.Status()
	require.NotEmpty(t, logs.String())
	assert.NotContains(t, logs.String(), testKey)
	assert.NotContains(t, logs.String(), "wrong-key-xyz")
}
