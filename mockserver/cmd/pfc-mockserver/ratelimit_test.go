package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunRateLimitFlag: with -rate-limit each backend answers a client
// over the limit 429 rate_limited with a Retry-After in whole seconds. At
// 0.01 per second the bucket holds one request and refills in 100 s, so
// the second request is over it however slow the machine.
func TestRunRateLimitFlag(t *testing.T) {
	t.Parallel()
	cmd := startCommand(t, 3, "-hosted-addr", "127.0.0.1:0", "-container-addr", "127.0.0.1:0", "-bg-addr", "127.0.0.1:0", "-rate-limit", "0.01")
	require.Equal(t, []string{"hosted", "container", "bg"}, cmd.names)
	client := &http.Client{}
	defer client.CloseIdleConnections()
	for i, path := range []string{"/presets", "/version", "/Status"} {
		get := func() *http.Response {
			req, err := http.NewRequest(http.MethodGet, cmd.urls[i]+path, nil)
			require.NoError(t, err)
			req.Header.Set("X-API-KEY", "test-api-key")
			resp, err := client.Do(req)
			require.NoError(t, err)
			return resp
		}
		first := get()
		first.Body.Close()
		assert.NotEqual(t, http.StatusTooManyRequests, first.StatusCode, cmd.names[i])
		resp := get()
		var body struct {
			Status int    `json:"status"`
			Code   string `json:"code"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		resp.Body.Close()
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, cmd.names[i])
		assert.Equal(t, 429, body.Status, cmd.names[i])
		assert.Equal(t, "rate_limited", body.Code, cmd.names[i])
		ra, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		require.NoError(t, err, cmd.names[i])
		assert.True(t, ra >= 1 && ra <= 100, "%s: Retry-After %d", cmd.names[i], ra)
	}
	cmd.cancel()
	assert.Equal(t, 0, <-cmd.done)
}

func TestRunRateLimitFlagErrors(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"-1", "NaN", "+Inf", "x"} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"-rate-limit", v, "-hosted-addr", "127.0.0.1:0", "-container-addr", "", "-bg-addr", ""}, &stdout, &stderr)
		assert.Equal(t, 2, code, v)
		assert.Contains(t, stderr.String(), "rate-limit", v)
		assert.Empty(t, stdout.String(), v)
	}
}
