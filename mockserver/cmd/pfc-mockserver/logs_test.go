package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsonKeys returns the top-level keys of the JSON object line, in order,
// repeats included (json.Unmarshal into a map would hide them).
func jsonKeys(t *testing.T, line string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	tok, err := dec.Token()
	require.NoError(t, err, line)
	require.Equal(t, json.Delim('{'), tok, line)
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err, line)
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip), line)
	}
	return keys
}

// TestRunLogLines: every JSON log line of the command, from the command
// itself and from each of the three mocks (fault injection on, so that
// each backend logs a fault), has each key once and spells its level as
// the container's documented levels do: debug, info, warning or error.
func TestRunLogLines(t *testing.T) {
	t.Parallel()
	cmd := startCommand(t, 3, "-hosted-addr", "127.0.0.1:0", "-container-addr", "127.0.0.1:0", "-bg-addr", "127.0.0.1:0",
		"-data-dir", t.TempDir(), "-faults", "rate=1,kinds=503")
	cancel, done, stderr := cmd.cancel, cmd.done, cmd.stderr
	urls := map[string]string{}
	for i, u := range cmd.urls {
		urls[cmd.names[i]] = u
	}
	client := &http.Client{}
	defer client.CloseIdleConnections()
	for _, u := range []string{urls["hosted"] + "/presets", urls["container"] + "/version", urls["bg"] + "/Status"} {
		resp, err := client.Get(u)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, u)
	}
	cancel()
	require.Equal(t, 0, <-done)

	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	faulted := 0
	for _, line := range lines {
		keys := jsonKeys(t, line)
		seen := map[string]bool{}
		for _, k := range keys {
			assert.False(t, seen[k], "key %q repeated in %s", k, line)
			seen[k] = true
		}
		var l struct{ Level, Msg string }
		require.NoError(t, json.Unmarshal([]byte(line), &l), line)
		assert.Contains(t, []string{"debug", "info", "warning", "error"}, l.Level, line)
		if strings.Contains(strings.ToLower(l.Msg), "fault") && strings.Contains(strings.ToLower(l.Msg), "inject") && seen["route"] {
			faulted++
		}
	}
	assert.Equal(t, 3, faulted, "one fault line per backend:\n%s", stderr.String())
}
