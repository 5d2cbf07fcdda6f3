package hostedmock_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

func TestClientEndToEnd(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	dir := t.TempDir()
	src := dir + "/in.jpg"
	require.NoError(t, os.WriteFile(src, jpegBytes(t, 90, 60), 0o600))
	job, err := f.Client.CorrectFile(ctx, src, dir+"/out.png",
		hosted.NewCorrection().WithPreset(hosted.PresetPro).WithLong(180).WithOutput(pfc.OutputPNG, 0).WithDetectionData(), nil)
	require.NoError(t, err)
	assert.Equal(t, hosted.StatusCompleted, job.Status)
	out, err := os.ReadFile(dir + "/out.png")
	require.NoError(t, err)
	cfg, err := png.DecodeConfig(bytes.NewReader(out))
	require.NoError(t, err)
	assert.Equal(t, 180, cfg.Width)

	// Errors map onto the client's sentinels.
	_, err = f.Client.StartJob(ctx, hosted.NewCorrection().WithFileKey("unknown-key"))
	require.ErrorIs(t, err, pfc.ErrNotFound)
	_, err = f.Client.GetJob(ctx, "0123456789abcdef01234567")
	require.ErrorIs(t, err, pfc.ErrNotFound)
	bad, err := hosted.NewClient("nope", pfc.WithBaseURL(f.URL), pfc.WithHTTPClient(f.Server.Client()))
	require.NoError(t, err)
	_, err = bad.RequestUpload(ctx, hosted.FileTypeImage)
	require.ErrorIs(t, err, pfc.ErrUnauthorized)

	// A REJECTED job surfaces as a *JobError.
	_, err = f.Client.Correct(ctx, bytes.NewReader([]byte("nope")), 4, nil, io.Discard, nil)
	require.ErrorIs(t, err, hosted.ErrJobRejected)

	// Presets through the client.
	p, err := f.Client.Presets.Create(ctx, hosted.CreatePresetRequest{Name: "Mine", Description: "d", FileName: "mine.pcp"},
		strings.NewReader("preset-data"), int64(len("preset-data")))
	require.NoError(t, err)
	got, err := f.Client.Presets.Get(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, "Mine", got.Name)
	page, err := f.Client.Presets.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, page.Total)
	job, err = f.Client.Correct(ctx, bytes.NewReader(jpegBytes(t, 64, 64)), int64(len(jpegBytes(t, 64, 64))),
		hosted.NewCorrection().WithPreset("Mine"), io.Discard, nil)
	require.NoError(t, err)
	assert.Equal(t, []byte("preset-data"), f.proc.last().PresetData)
	require.NoError(t, f.Client.Presets.Delete(ctx, p.ID))
	_, err = f.Client.Presets.Get(ctx, p.ID)
	require.ErrorIs(t, err, pfc.ErrNotFound)
	_ = job
}

func TestCloseStopsRunningWork(t *testing.T) {
	t.Parallel()
	proc := &testProcessor{gate: make(chan struct{}), entry: make(chan struct{}, 1)}
	h, err := hostedmock.New(hostedmock.Options{Processor: proc, Workers: 1, Clock: clock.NewFake(t0)})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	c, err := hosted.NewClient(hostedmock.DefaultAPIKey, pfc.WithBaseURL(srv.URL+"/v2"), pfc.WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	ctx := context.Background()
	data := jpegBytes(t, 64, 64)
	key, err := c.Upload(ctx, hosted.FileTypeImage, bytes.NewReader(data), int64(len(data)), "image/jpeg")
	require.NoError(t, err)
	_, err = c.StartJob(ctx, hosted.NewCorrection().WithFileKey(key))
	require.NoError(t, err)
	_, err = c.StartJob(ctx, hosted.NewCorrection().WithFileKey(key).WithCache(false))
	require.NoError(t, err)
	<-proc.entry
	srv.Close()
	require.NoError(t, h.Close()) // cancels the blocked job, drops the queued one
	require.NoError(t, h.Close())
	_, err = os.Stat(h.DataDir())
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func ExampleNew() {
	h, err := hostedmock.New(hostedmock.Options{APIKeys: []string{"my-key"}})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(h)
	defer h.Close()
	defer srv.Close()

	c, err := hosted.NewClient("my-key", pfc.WithBaseURL(srv.URL+"/v2"))
	if err != nil {
		panic(err)
	}
	// Videos pass through the mock unchanged; images need a Processor
	// (the reference engine).
	video := []byte("\x00\x00\x00\x14ftypisom\x00\x00\x02\x00isom\x00\x00\x00\x08mdat")
	job, err := c.Correct(context.Background(), bytes.NewReader(video), int64(len(video)),
		hosted.NewCorrection().WithFileType(hosted.FileTypeVideo), io.Discard, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(job.Status, job.Usage.VideoCorrectionCount)
	// Output: COMPLETED 1
}
