package pfc_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// TestOneErrorTargetForEveryClient: one *pfc.APIError target and one
// sentinel classify the error answers of all three clients, and one
// *pfc.ValidationError target their refusals of bad input.
func TestOneErrorTargetForEveryClient(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message":"nothing here","code":"missing"}`))
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()

	hc, err := hosted.NewClient("key", pfc.WithBaseURL(srv.URL+"/v2"), pfc.WithRetries(-1, 0, 0))
	require.NoError(t, err)
	pc, err := pfccontainer.NewClient(pfc.WithBaseURL(srv.URL), pfc.WithRetries(-1, 0, 0))
	require.NoError(t, err)
	bc, err := bgcontainer.NewClient("", pfc.WithBaseURL(srv.URL), pfc.WithRetries(-1, 0, 0))
	require.NoError(t, err)

	calls := map[string]func() error{
		"hosted":       func() error { _, err := hc.GetJob(ctx, "j1"); return err },
		"pfccontainer": func() error { _, err := pc.Version(ctx); return err },
		"bgcontainer":  func() error { _, err := bc.Status(ctx); return err },
	}
	for name, call := range calls {
		err := call()
		var apiErr *pfc.APIError
		require.True(t, errors.As(err, &apiErr), "%s: %v", name, err)
		assert.Equal(t, http.StatusNotFound, apiErr.StatusCode, name)
		assert.Equal(t, "nothing here", apiErr.Message, name)
		assert.ErrorIs(t, err, pfc.ErrNotFound, name)
	}

	invalid := map[string]error{}
	_, invalid["hosted"] = hc.GetJob(ctx, "")
	_, invalid["pfccontainer"] = pc.GetCorrection(ctx, "", nil)
	_, invalid["bgcontainer"] = bc.CheckImage(ctx, "not-a-uuid")
	for name, err := range invalid {
		var ve *pfc.ValidationError
		require.True(t, errors.As(err, &ve), "%s: %v", name, err)
		assert.NotEmpty(t, ve.Fields(), name)
		assert.ErrorIs(t, err, pfc.ErrInvalidParameter, name)
	}
}

// TestUnreachableForEveryClient: a service that cannot be reached (a
// closed port) gives, from every client and from its one-call flows, an
// error matching pfc.ErrUnreachable, with the *url.Error and the
// *net.OpError of the refused dial in its chain.
func TestUnreachableForEveryClient(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	ctx := context.Background()
	fast := pfc.WithRetries(1, time.Millisecond, 2*time.Millisecond)

	hc, err := hosted.NewClient("key", pfc.WithBaseURL(base+"/v2"), fast)
	require.NoError(t, err)
	pc, err := pfccontainer.NewClient(pfc.WithBaseURL(base), fast)
	require.NoError(t, err)
	bc, err := bgcontainer.NewClient("licence-key-0001", pfc.WithBaseURL(base), fast)
	require.NoError(t, err)
	img := []byte("\xff\xd8\xff\xe0 not much of a JPEG")

	calls := map[string]func() error{
		"hosted GetJob": func() error { _, err := hc.GetJob(ctx, "j1"); return err },
		"hosted Correct": func() error {
			_, err := hc.Correct(ctx, bytes.NewReader(img), int64(len(img)), nil, io.Discard, nil)
			return err
		},
		"pfccontainer Version": func() error { _, err := pc.Version(ctx); return err },
		"pfccontainer Upload": func() error {
			_, err := pc.Upload(ctx, bytes.NewReader(img), int64(len(img)), "image/jpeg")
			return err
		},
		"bgcontainer Status": func() error { _, err := bc.Status(ctx); return err },
		"bgcontainer RemoveBackground": func() error {
			_, err := bc.RemoveBackground(ctx, bytes.NewReader(img), int64(len(img)), nil, io.Discard, nil)
			return err
		},
	}
	for name, call := range calls {
		err := call()
		require.ErrorIs(t, err, pfc.ErrUnreachable, name)
		var ue *url.Error
		assert.ErrorAs(t, err, &ue, name)
		var op *net.OpError
		if assert.ErrorAs(t, err, &op, name) {
			assert.Equal(t, "dial", op.Op, name)
		}
		assert.NotErrorIs(t, err, pfc.ErrServer, name)
	}
}

// TestOneCredentialCheckForEveryClient: errors.Is(err, pfc.ErrUnauthorized)
// catches every credential problem: a refused API key (hosted), a licence
// key the background-removal container refuses (a *LicenseError), and an
// image call to a container not activated by a client holding no key,
// which the API documentation makes a working client (activation is once
// per container; no request carries a credential).
func TestOneCredentialCheckForEveryClient(t *testing.T) {
	t.Parallel()
	const wrongKey = "wrong-licence-0001"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasPrefix(r.URL.Path, "/v2/"):
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"message":"invalid API key"}`))
		case r.URL.Path == "/SubmitImage":
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"code":"not_activated","message":"activate the container first"}`))
		case r.URL.Path == "/Authorize/"+wrongKey, r.URL.Path == "/Status":
			_, _ = w.Write([]byte(`{"status":"Unlicensed","message":"Invalid license key"}`))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	img := []byte("\x89PNG\r\n\x1a\n not much of a PNG")
	hc, err := hosted.NewClient("wrong-api-key", pfc.WithBaseURL(srv.URL+"/v2"))
	require.NoError(t, err)
	wrong, err := bgcontainer.NewClient(wrongKey, pfc.WithBaseURL(srv.URL))
	require.NoError(t, err)
	keyless, err := bgcontainer.NewClient("", pfc.WithBaseURL(srv.URL))
	require.NoError(t, err, "a keyless client is meaningful")

	_, err = hc.GetJob(ctx, "j1")
	require.ErrorIs(t, err, pfc.ErrUnauthorized, "hosted, wrong API key")

	_, err = wrong.RemoveBackground(ctx, bytes.NewReader(img), int64(len(img)), nil, io.Discard, nil)
	var le *bgcontainer.LicenseError
	require.ErrorAs(t, err, &le, "bgcontainer, wrong licence key")
	assert.ErrorIs(t, err, bgcontainer.ErrNotActivated)
	assert.ErrorIs(t, err, pfc.ErrUnauthorized, "bgcontainer, wrong licence key")
	assert.NotContains(t, err.Error(), wrongKey)

	_, err = keyless.RemoveBackground(ctx, bytes.NewReader(img), int64(len(img)), nil, io.Discard, nil)
	assert.ErrorIs(t, err, bgcontainer.ErrNotActivated)
	assert.ErrorIs(t, err, pfc.ErrUnauthorized, "bgcontainer, no key, not activated")
	st, err := keyless.Status(ctx)
	require.NoError(t, err, "Status needs no key")
	assert.False(t, st.IsLicensed())
	_, err = keyless.Authorize(ctx)
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve, "Authorize needs the key")
	assert.Equal(t, []string{"license_key"}, ve.Fields())

	_, err = hosted.NewClient("", pfc.WithBaseURL(srv.URL+"/v2"))
	require.ErrorAs(t, err, &ve, "the hosted API has no call without a key")
	assert.Equal(t, []string{"apiKey"}, ve.Fields())
}
