package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestBinary builds the command, starts it on a free port, uses the
// hosted API, and stops it with SIGINT.
func TestBinary(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	bin := filepath.Join(t.TempDir(), "pfc-mockserver")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))

	dataDir := t.TempDir()
	cmd := exec.Command(bin, "-hosted-addr", "127.0.0.1:0", "-api-key", "k-123", "-data-dir", dataDir, "-time-scale", "0.001")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := false
	t.Cleanup(func() {
		if !exited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})

	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(line, "hosted: http://127.0.0.1:"), line)
	base := strings.TrimSpace(strings.TrimPrefix(line, "hosted: "))
	require.True(t, strings.HasSuffix(base, "/v2"))
	assert.NotContains(t, base, ":0/")

	client := &http.Client{}
	defer client.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, base+"/upload?fileType=video", nil)
	require.NoError(t, err)
	req.Header.Set("X-API-KEY", "k-123")
	resp, err := client.Do(req)
	require.NoError(t, err)
	var ticket struct{ FileKey, UploadURL string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&ticket))
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.NotEmpty(t, ticket.FileKey)
	assert.True(t, strings.HasPrefix(ticket.UploadURL, strings.TrimSuffix(base, "/v2")+"/storage/upload/"), ticket.UploadURL)

	req, err = http.NewRequest(http.MethodGet, base+"/upload", nil)
	require.NoError(t, err)
	resp, err = client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	entries, err := os.ReadDir(dataDir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "one private working directory")

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	_, _ = io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	exited = true
	require.NoError(t, err, stderr.String())
	assert.Equal(t, 0, cmd.ProcessState.ExitCode())

	entries, err = os.ReadDir(dataDir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the working directory is removed on exit")
	logs := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	require.NotEmpty(t, logs)
	for _, l := range logs {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &rec), "stderr is JSON lines: %q", l)
		assert.Contains(t, rec, "level")
	}
	assert.Contains(t, stderr.String(), "not implemented yet")
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of run's
// logger and the test's reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestRunInProcess(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-hosted-addr", "127.0.0.1:0", "-container-addr", "", "-bg-addr", ""}, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err)
	base := strings.TrimSpace(strings.TrimPrefix(line, "hosted: "))
	client := &http.Client{}
	req, err := http.NewRequest(http.MethodGet, base+"/upload", nil)
	require.NoError(t, err)
	req.Header.Set("X-API-KEY", "test-api-key")
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	client.CloseIdleConnections()
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code)
	case <-time.After(time.Minute):
		t.Fatal("run did not return after cancellation")
	}
	assert.NotContains(t, stderr.String(), "not implemented yet", "empty addresses disable the backends silently")
}

func TestRunFlagErrors(t *testing.T) {
	badPEM := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(badPEM, []byte("not a certificate"), 0o600))
	for name, args := range map[string][]string{
		"time scale zero":     {"-time-scale", "0"},
		"time scale negative": {"-time-scale", "-1"},
		"missing CA file":     {"-webhook-ca", filepath.Join(t.TempDir(), "none.pem")},
		"CA without PEM":      {"-webhook-ca", badPEM},
		"unknown flag":        {"-nope"},
		"extra argument":      {"serve"},
		"empty api key":       {"-api-key", ""},
		"nothing to serve":    {"-hosted-addr", ""},
		"bad address":         {"-hosted-addr", "127.0.0.1:notaport"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append(args, "-container-addr", "", "-bg-addr", ""), &stdout, &stderr)
			assert.Equal(t, 2, code, stderr.String())
			assert.Empty(t, stdout.String())
		})
	}
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, run(context.Background(), []string{"-h"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "-hosted-addr")
}
