package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunFaultsFlagErrors(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		"rate=2":                       `"-faults: invalid fault spec: section 1: rate: \"2\" is not a number from 0 to 1"`,
		"hosted:rate=0.1,routes=nope":  `unknown route \"nope\"`,
		"hosted:rate=0.1,kinds=102":    "no route of hosted answers a final 102",
		"moon:rate=0.1":                `unknown backend \"moon\"`,
		"rate=0.1,kinds=503|503":       `kind \"503\" given twice`,
		"rate=0.1;container:seed=1;;x": "section 3: empty section",
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"-faults", spec, "-hosted-addr", "127.0.0.1:0", "-container-addr", "", "-bg-addr", ""}, &stdout, &stderr)
		assert.Equal(t, 2, code, spec)
		assert.Empty(t, stdout.String(), spec)
		assert.Contains(t, stderr.String(), want, spec)
		assert.NotContains(t, stderr.String(), "faults: faults", spec)
	}
}

func TestRunFaultsFlag(t *testing.T) {
	t.Parallel()
	base, cancel, done := startRun(t, "-hosted-addr", "127.0.0.1:0", "-faults", "rate=0;hosted:rate=1,kinds=429,retry-after=7,routes=upload")
	client := &http.Client{}
	defer client.CloseIdleConnections()
	get := func(path string) *http.Response {
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		require.NoError(t, err)
		req.Header.Set("X-API-KEY", "test-api-key")
		resp, err := client.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	for range 3 {
		resp := get("/upload")
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "every /upload is faulted")
		assert.Equal(t, "7", resp.Header.Get("Retry-After"))
	}
	assert.Equal(t, http.StatusOK, get("/presets").StatusCode, "other routes are not")
	cancel()
	assert.Equal(t, 0, <-done)
}
