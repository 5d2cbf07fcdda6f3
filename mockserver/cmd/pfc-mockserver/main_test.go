package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/internal/streamtest"
)

func TestMain(m *testing.M) {
	if os.Getenv(asCommandEnv) == "1" {
		main() // the command itself, for childCommand
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// asCommandEnv set to 1 makes this test binary run the command's main
// instead of the tests: childCommand's children are the command without
// a go build (the same package main, flags, environment and signals).
const asCommandEnv = "PFC_MOCKSERVER_TEST_AS_COMMAND"

// childCommand returns the command pfc-mockserver with args, run as a
// child process (this test binary, as the command); tests add to its Env.
func childCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), asCommandEnv+"=1")
	return cmd
}

// TestBinary starts the command as a child process on a free port, uses the
// hosted API, and stops it with SIGINT; then once more without -data-dir,
// stopped with SIGTERM.
func TestBinary(t *testing.T) {
	dataDir := t.TempDir()
	// Port 0 everywhere: the default ports may be busy on a shared machine.
	cmd := childCommand("-hosted-addr", "127.0.0.1:0", "-container-addr", "127.0.0.1:0", "-bg-addr", "127.0.0.1:0",
		"-api-key", "k-123", "-data-dir", dataDir, "-time-scale", "0.001")
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

	br := bufio.NewReader(stdout)
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(line, "hosted: http://127.0.0.1:"), line)
	base := strings.TrimSpace(strings.TrimPrefix(line, "hosted: "))
	require.True(t, strings.HasSuffix(base, "/v2"))
	assert.NotContains(t, base, ":0/")
	// Wait for the other backends' lines: each is printed once its
	// backend (and its data directory) exists.
	for range 2 {
		_, err := br.ReadString('\n')
		require.NoError(t, err)
	}

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
	assert.Len(t, entries, 3, "one private working directory per backend (hosted, container, bg)")

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

	// SIGTERM, and the default data directory (a temporary one) is
	// removed on exit too.
	tmp := t.TempDir()
	cmd = childCommand("-hosted-addr", "127.0.0.1:0", "-container-addr", "", "-bg-addr", "")
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	stdout, err = cmd.StdoutPipe()
	require.NoError(t, err)
	stderr.Reset()
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited = false
	line, err = bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(line, "hosted: http://127.0.0.1:"), line)
	entries, err = os.ReadDir(tmp)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the default working directory is under TMPDIR")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	_, _ = io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	exited = true
	require.NoError(t, err, stderr.String())
	entries, err = os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, entries, "the default working directory is removed on exit")
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer = streamtest.SyncBuffer

func TestRunInProcess(t *testing.T) {
	cmd := startCommand(t, 1, "-hosted-addr", "127.0.0.1:0", "-container-addr", "", "-bg-addr", "")
	cancel, done, stderr := cmd.cancel, cmd.done, cmd.stderr
	require.Equal(t, []string{"hosted"}, cmd.names)
	base := cmd.urls[0]
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
		"empty license key":   {"-license-key", ""},
		"pixel budget zero":   {"-pixel-budget", "0"},
		"body timeout zero":   {"-body-timeout", "0s"},
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

// startRun runs the command in-process with only the hosted mock and
// returns the base URL it printed, a cancel that stops it, and the channel
// of its exit status.
func startRun(t *testing.T, args ...string) (string, context.CancelFunc, <-chan int) {
	t.Helper()
	return startBackend(t, "hosted", append(args, "-container-addr", "", "-bg-addr", "")...)
}

// startBackend runs the command in-process with args, which leave only
// the backend name listening, and returns what startRun does.
func startBackend(t *testing.T, name string, args ...string) (string, context.CancelFunc, <-chan int) {
	t.Helper()
	cmd := startCommand(t, 1, args...)
	require.Equal(t, []string{name}, cmd.names)
	return cmd.urls[0], cmd.cancel, cmd.done
}

// command is the command run in-process by startCommand.
type command struct {
	names, urls []string // its "name: url" lines, in the order printed
	stderr      *syncBuffer
	cancel      context.CancelFunc // stops it
	done        <-chan int         // its exit status
}

// startCommand runs the command in-process with args, reads the n
// "name: url" lines it prints once its backends listen, and discards the
// rest of its standard output. It is stopped when the test ends.
func startCommand(t *testing.T, n int, args ...string) *command {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	c := &command{stderr: new(syncBuffer), cancel: cancel, done: done}
	go func() {
		done <- run(ctx, args, pw, c.stderr)
		pw.Close()
	}()
	br := bufio.NewReader(pr)
	for range n {
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		name, u, ok := strings.Cut(strings.TrimSpace(line), ": ")
		require.True(t, ok, line)
		c.names, c.urls = append(c.names, name), append(c.urls, u)
	}
	go func() { _, _ = io.Copy(io.Discard, br) }()
	return c
}

func getUploadTicket(t *testing.T, base, query string) (fileKey, uploadURL string) {
	t.Helper()
	client := &http.Client{}
	defer client.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, base+"/upload"+query, nil)
	require.NoError(t, err)
	req.Header.Set("X-API-KEY", "test-api-key")
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var ticket struct{ FileKey, UploadURL string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&ticket))
	return ticket.FileKey, ticket.UploadURL
}

func TestRunAllInterfacesPrintsADialableURL(t *testing.T) {
	base, cancel, done := startRun(t, "-hosted-addr", ":0")
	require.True(t, strings.HasPrefix(base, "http://127.0.0.1:"), base)
	getUploadTicket(t, base, "")
	cancel()
	assert.Equal(t, 0, <-done)
}

func TestDialAddr(t *testing.T) {
	for in, want := range map[string]string{
		"0.0.0.0:80":     "127.0.0.1:80",
		"[::]:80":        "127.0.0.1:80",
		"127.0.0.1:80":   "127.0.0.1:80",
		"[::1]:80":       "[::1]:80",
		"192.168.1.2:80": "192.168.1.2:80",
	} {
		a, err := net.ResolveTCPAddr("tcp", in)
		require.NoError(t, err)
		assert.Equal(t, want, dialAddr(a), in)
	}
}

// TestRunShutdownDropsStalledUploads: an upload still in flight when the
// shutdown grace period ends is cut off (its connection closed) before the
// data directory is removed, instead of being left running.
func TestRunShutdownDropsStalledUploads(t *testing.T) {
	old := shutdownTimeout
	shutdownTimeout = 0
	t.Cleanup(func() { shutdownTimeout = old })
	dataDir := t.TempDir()
	base, cancel, done := startRun(t, "-hosted-addr", "127.0.0.1:0", "-data-dir", dataDir)
	_, uploadURL := getUploadTicket(t, base, "?fileType=video")

	u, err := url.Parse(uploadURL)
	require.NoError(t, err)
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	defer conn.Close()
	// A safety net for a broken server only: no assertion depends on it.
	require.NoError(t, conn.SetDeadline(time.Now().Add(30*time.Second)))
	// Go's server answers 100 Continue when the handler first reads the
	// body: from then on the upload is in flight.
	_, err = fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 1000000\r\nExpect: 100-continue\r\n\r\n", u.RequestURI(), u.Host)
	require.NoError(t, err)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusContinue, resp.StatusCode)
	_, err = conn.Write(make([]byte, 1000))
	require.NoError(t, err)

	cancel()
	<-done
	_, err = io.Copy(io.Discard, br)
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server closed the stalled upload's connection: %v", err)
	entries, err := os.ReadDir(dataDir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

// TestRunWebhookCAAndTimeScale: -webhook-ca makes a receiver with a
// private CA reachable, and -time-scale shortens the retry schedule: the
// retry due a simulated minute after a failed delivery arrives within the
// test's patience, which a real minute would not.
func TestRunWebhookCAAndTimeScale(t *testing.T) {
	deliveries := make(chan http.Header, 4)
	var n atomic.Int32
	rc := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		deliveries <- r.Header.Clone()
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer rc.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.Certificate().Raw}), 0o600))

	base, cancel, done := startRun(t, "-hosted-addr", "127.0.0.1:0", "-webhook-ca", caFile, "-time-scale", "0.001")
	fileKey, uploadURL := getUploadTicket(t, base, "?fileType=video")
	client := &http.Client{}
	defer client.CloseIdleConnections()
	video := append([]byte("\x00\x00\x00\x14ftypisom\x00\x00\x02\x00isom"), []byte("\x00\x00\x00\x08mdat")...)
	req, err := http.NewRequest(http.MethodPut, uploadURL, bytes.NewReader(video))
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	req, err = http.NewRequest(http.MethodGet, base+"/pfc?fileType=video&fileKey="+fileKey+"&webhookUrl="+url.QueryEscape(rc.URL+"/hook"), nil)
	require.NoError(t, err)
	req.Header.Set("X-API-KEY", "test-api-key")
	resp, err = client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	for i := range 2 {
		select {
		case h := <-deliveries:
			assert.Equal(t, "service-Webhook/1.0", h.Get("User-Agent"))
		case <-time.After(30 * time.Second): // patience for a broken build only
			t.Fatalf("delivery %d did not arrive", i+1)
		}
	}
	cancel()
	assert.Equal(t, 0, <-done)
}

// TestRunAllThreeBackends: with the three addresses set, the command
// prints one line per backend, in the list's order, once each listens;
// the correction container answers /version; the background-removal
// backend answers 501 with the JSON error body until it is implemented.
func TestRunAllThreeBackends(t *testing.T) {
	cmd := startCommand(t, 3, "-hosted-addr", "127.0.0.1:0", "-container-addr", "127.0.0.1:0", "-bg-addr", "127.0.0.1:0")
	urls := map[string]string{}
	for i, u := range cmd.urls {
		require.True(t, strings.HasPrefix(u, "http://127.0.0.1:"), u)
		assert.NotContains(t, u, ":0/")
		urls[cmd.names[i]] = u
	}
	assert.Equal(t, []string{"hosted", "container", "bg"}, cmd.names)
	assert.True(t, strings.HasSuffix(urls["hosted"], "/v2"))
	getUploadTicket(t, urls["hosted"], "")

	client := &http.Client{}
	defer client.CloseIdleConnections()
	resp, err := client.Get(urls["container"] + "/version")
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	resp, err = client.Get(urls["bg"] + "/Status")
	require.NoError(t, err)
	var st struct{ Status string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "Unlicensed", st.Status, "the bg mock starts unactivated")
	assert.NotEmpty(t, resp.Header.Get("X-Request-Id"))
	cmd.cancel()
	assert.Equal(t, 0, <-cmd.done)
}

// TestRunListenFailureStopsTheOthers: a backend whose address cannot be
// opened fails the command (status 2) after the ones already listening
// are shut down.
func TestRunListenFailureStopsTheOthers(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	dataDir := t.TempDir()
	var stdout, stderr syncBuffer
	code := run(context.Background(), []string{"-hosted-addr", "127.0.0.1:0", "-container-addr", busy.Addr().String(), "-bg-addr", "", "-data-dir", dataDir}, &stdout, &stderr)
	assert.Equal(t, 2, code)
	assert.True(t, strings.HasPrefix(stdout.String(), "hosted: "), stdout.String())
	assert.Contains(t, stderr.String(), "-container-addr")
	entries, err := os.ReadDir(dataDir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the hosted backend was closed")
}
