package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
)

// argsEnv carries a child's arguments (JSON) to TestHelperBatchProcess.
const argsEnv = "PFCBLOB_BATCH_ARGS"

// TestHelperBatchProcess is not a test: run as a child process by
// TestKilledMidUploadPublishesNothing, it runs the command with the
// arguments of argsEnv and exits with its status.
func TestHelperBatchProcess(t *testing.T) {
	raw := os.Getenv(argsEnv)
	if raw == "" {
		t.Skip("a child process of TestKilledMidUploadPublishesNothing")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		os.Exit(3)
	}
	code, err := run(context.Background(), args, os.Getenv, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// holdingS3 serves an S3-compatible store that, once armed, lets pass
// uploads to the output bucket and holds every one after those, once part
// of its body arrived, until released (then answers 500).
type holdingS3 struct {
	backend *s3mem.Backend
	url     string
	armed   atomic.Bool
	pass    atomic.Int32
	holding chan struct{}
	release chan struct{}
	once    sync.Once
}

func startHoldingS3(t *testing.T) *holdingS3 {
	h := &holdingS3{backend: s3mem.New(), holding: make(chan struct{}), release: make(chan struct{})}
	fake := gofakes3.New(h.backend).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/out/") && h.armed.Load() && h.pass.Add(-1) < 0 {
			_, _ = io.CopyN(io.Discard, r.Body, 16) // part of the object has arrived
			h.once.Do(func() { close(h.holding) })
			<-h.release
			http.Error(w, "held by the test", http.StatusInternalServerError)
			return
		}
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		h.once.Do(func() { close(h.holding) })
		select {
		case <-h.release:
		default:
			close(h.release)
		}
		srv.Close()
	})
	for _, b := range []string{"in", "out"} {
		require.NoError(t, h.backend.CreateBucket(b))
	}
	h.url = srv.URL
	return h
}

// TestKilledMidUploadPublishesNothing: a shard of a bucket-to-bucket run
// killed (SIGKILL) while it uploads an output leaves no partial object;
// run again, it completes every output of its shard, each the whole PNG.
func TestKilledMidUploadPublishesNothing(t *testing.T) {
	t.Parallel()
	s3 := startHoldingS3(t)
	const n = 10
	for i := range n {
		img := image.NewNRGBA(image.Rect(0, 0, 16, 16))
		img.Set(i, i, color.NRGBA{R: 255, A: 255})
		var buf bytes.Buffer
		require.NoError(t, png.Encode(&buf, img))
		_, err := s3.backend.PutObject("in", fmt.Sprintf("shoot/%02d.png", i), nil, bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		require.NoError(t, err)
	}
	fleet := bgmock.StartFleet(t, 2, &bgmock.Options{Activated: true})
	bucket := func(name string) string {
		return "s3://" + name + "?region=us-east-1&use_path_style=true&disable_https=true&endpoint=" + s3.url
	}
	args, _ := json.Marshal([]string{"-url", fleet[0].URL + "," + fleet[1].URL, "-in", bucket("in"), "-in-prefix", "shoot",
		"-out", bucket("out"), "-out-prefix", "cut", "-shard", "0/1", "-concurrency", "2"})
	child := func() *exec.Cmd {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperBatchProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), argsEnv+"="+string(args), "PFC_BG_LICENSE_KEY="+bgmock.DefaultLicenseKey,
			"AWS_ACCESS_KEY_ID=test-access-key", "AWS_SECRET_ACCESS_KEY=test-secret-key",
			"AWS_REQUEST_CHECKSUM_CALCULATION=when_required", "AWS_RESPONSE_CHECKSUM_VALIDATION=when_required")
		return cmd
	}
	const pass = 3
	s3.pass.Store(pass)
	s3.armed.Store(true)
	cmd := child()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-s3.holding:
	case err := <-exited:
		t.Fatalf("the run ended before an upload was held: %v\n%s", err, &out)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	require.Error(t, <-exited)
	s3.armed.Store(false)
	close(s3.release)
	list, err := s3.backend.ListBucket("out", &gofakes3.Prefix{}, gofakes3.ListBucketPage{})
	require.NoError(t, err)
	assert.Len(t, list.Contents, pass, "the uploads let through, and not the one held at the kill")
	checkWhole(t, s3.backend, list)

	out.Reset()
	cmd = child()
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Run(), "%s", &out)
	assert.Contains(t, out.String(), fmt.Sprintf("%d processed, %d already done, 0 failed", n-pass, pass))
	list, err = s3.backend.ListBucket("out", &gofakes3.Prefix{}, gofakes3.ListBucketPage{})
	require.NoError(t, err)
	require.Len(t, list.Contents, n)
	checkWhole(t, s3.backend, list)
}

// checkWhole checks that every object listed is a whole 16×16 PNG.
func checkWhole(t *testing.T, backend *s3mem.Backend, list *gofakes3.ObjectList) {
	for _, obj := range list.Contents {
		got, err := backend.GetObject("out", obj.Key, nil)
		require.NoError(t, err)
		img, err := png.Decode(got.Contents)
		_ = got.Contents.Close()
		require.NoError(t, err, "%s is a whole PNG", obj.Key)
		assert.Equal(t, 16, img.Bounds().Dx())
	}
}
