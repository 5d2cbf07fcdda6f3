package bgcontainer

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/clientopt"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/internal/replicas"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestEveryCallReturnsPublicErrorTypes: every exported call gives error
// answers as *Error around the public *pfc.APIError, and bad input as the
// public *pfc.ValidationError; all strings start with "pfc: ".
func TestEveryCallReturnsPublicErrorTypes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, secretKey)
	f.mt.RegisterNoResponder(func(*http.Request) (*http.Response, error) {
		return httpmock.NewJsonResponse(404, errorBody(404, "not_found", "nothing here "+secretKey, "process_id"))
	})
	img := pngBytes(t, 2, 2)
	src := filepath.Join(t.TempDir(), "in.png")
	require.NoError(t, writeFile(src, img))
	dst := filepath.Join(t.TempDir(), "out.png")
	apiCalls := map[string]func() error{
		"Authorize":         func() error { _, err := f.c.Authorize(ctx); return err },
		"Status":            func() error { _, err := f.c.Status(ctx); return err },
		"SubmitImage":       func() error { _, err := f.c.SubmitImage(ctx, bytes.NewReader(img), int64(len(img)), nil); return err },
		"SubmitImageFile":   func() error { _, err := f.c.SubmitImageFile(ctx, src, nil); return err },
		"CheckImage":        func() error { _, err := f.c.CheckImage(ctx, jobID); return err },
		"WaitImage":         func() error { _, err := f.c.WaitImage(ctx, jobID, nil); return err },
		"DownloadImage":     func() error { _, err := f.c.DownloadImage(ctx, jobID, io.Discard); return err },
		"DownloadImageFile": func() error { _, err := f.c.DownloadImageFile(ctx, jobID, dst); return err },
		"RemoveImage":       func() error { _, err := f.c.RemoveImage(ctx, jobID); return err },
		"RemoveBackground": func() error {
			_, err := f.c.RemoveBackground(ctx, bytes.NewReader(img), int64(len(img)), nil, io.Discard, nil)
			return err
		},
		"RemoveBackgroundFile": func() error { _, err := f.c.RemoveBackgroundFile(ctx, src, dst, nil, nil); return err },
	}
	for name, call := range apiCalls {
		err := call()
		var ae *pfc.APIError
		if assert.ErrorAs(t, err, &ae, name) {
			assert.Equal(t, 404, ae.StatusCode, name)
			assert.Equal(t, "process_id", ae.Parameter, name)
			assert.Contains(t, ae.Message, "REDACTED", name)
		}
		var e *Error
		assert.ErrorAs(t, err, &e, name)
		assert.ErrorIs(t, err, pfc.ErrNotFound, name)
		assert.Regexp(t, `^pfc: `, err.Error(), name)
		f.noSecret(t, secretKey, err.Error())
	}

	badInput := map[string]func() error{
		"NewClient":         func() error { _, err := NewClient(secretKey); return err },
		"ValidateProcessID": func() error { return ValidateProcessID("x") },
		"WaitImage": func() error {
			_, err := f.c.WaitImage(ctx, jobID, &pfc.WaitOptions{MinDelay: 2, MaxDelay: 1})
			return err
		},
		"SubmitImage":          func() error { _, err := f.c.SubmitImage(ctx, nil, 0, nil); return err },
		"DownloadImageFile":    func() error { _, err := f.c.DownloadImageFile(ctx, jobID, ""); return err },
		"RemoveBackgroundFile": func() error { _, err := f.c.RemoveBackgroundFile(ctx, src, "", nil, nil); return err },
		"RemoveBackground": func() error {
			_, err := f.c.RemoveBackground(ctx, bytes.NewReader(img), 3, nil, io.Discard, &pfc.FlowOptions{Wait: &pfc.WaitOptions{MaxWait: -1}})
			return err
		},
	}
	for name, call := range badInput {
		err := call()
		var ve *pfc.ValidationError
		if assert.ErrorAs(t, err, &ve, name) {
			assert.NotEmpty(t, ve.Fields(), name)
		}
		assert.ErrorIs(t, err, pfc.ErrInvalidParameter, name)
		assert.Regexp(t, `^pfc: `, err.Error(), name)
		assert.NotContains(t, err.Error(), secretKey, name)
	}
}

func TestContextErrorsStayInTheChain(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	f.mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) { return nil, r.Context().Err() })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.c.CheckImage(ctx, jobID)
	require.ErrorIs(t, err, context.Canceled)
	assert.NotContains(t, err.Error(), secretKey)
	_, err = f.c.Authorize(ctx)
	require.ErrorIs(t, err, context.Canceled)
	f.noSecret(t, secretKey, err.Error())
}

// WithResolver sets the resolver of WithReplicaHost, for tests.
func WithResolver(r replicas.Resolver) Option { return clientopt.WithResolver(r) }

// SetRetryClock makes c wait for a lost replica to answer again on clk.
func SetRetryClock(c *Client, clk poll.Clock) { c.retry.Clock = clk }
