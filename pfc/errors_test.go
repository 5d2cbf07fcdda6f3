package pfc_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

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
	_, invalid["pfccontainer"] = pc.Correct(ctx, "", nil)
	_, invalid["bgcontainer"] = bc.CheckImage(ctx, "not-a-uuid")
	for name, err := range invalid {
		var ve *pfc.ValidationError
		require.True(t, errors.As(err, &ve), "%s: %v", name, err)
		assert.NotEmpty(t, ve.Fields(), name)
		assert.ErrorIs(t, err, pfc.ErrInvalidParameter, name)
	}
}
