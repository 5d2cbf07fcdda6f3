package hostedsvc

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
)

var testT0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// newServiceWith starts a Service on a fake clock, with cfg's fields set
// by edit, and closes it when the test ends.
func newServiceWith(t *testing.T, edit func(*settings)) (*Service, *clock.Fake) {
	t.Helper()
	fk := clock.NewFake(testT0)
	cfg := settings{Config{APIKeys: []string{"k"}, Clock: fk}, Deps{
		WorkDir:       t.TempDir(),
		WebhookSigner: func([]byte, string, time.Time, []byte) http.Header { return http.Header{} },
	}}
	if edit != nil {
		edit(&cfg)
	}
	s, err := New(cfg.Config, cfg.Deps)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s, fk
}

// signedQuery returns the path's last element and the query of a
// pre-signed URL.
func signedQuery(t *testing.T, rawURL string) (string, url.Values) {
	t.Helper()
	u, err := url.Parse(rawURL)
	require.NoError(t, err)
	return u.Path[strings.LastIndexByte(u.Path, '/')+1:], u.Query()
}

// uploadFile uploads data through a ticket and returns its fileKey.
func uploadFile(t *testing.T, s *Service, data []byte) string {
	t.Helper()
	tk, aerr := s.RequestUpload("k", url.Values{}, "http://mock.test")
	require.Nil(t, aerr)
	key, q := signedQuery(t, tk.UploadURL)
	require.Nil(t, s.ReceiveUpload(key, q, bytes.NewReader(data), int64(len(data))))
	return tk.FileKey
}

// createPreset creates a preset named name and returns its upload URL.
func createPreset(t *testing.T, s *Service, name string) string {
	t.Helper()
	rec, aerr := s.CreatePreset("k", strings.NewReader(`{"name":"`+name+`"}`), "http://mock.test")
	require.Nil(t, aerr)
	return rec.UploadURL
}

// putPreset PUTs data to a preset upload URL.
func putPreset(t *testing.T, s *Service, uploadURL string, data []byte) {
	t.Helper()
	id, q := signedQuery(t, uploadURL)
	require.Nil(t, s.ReceivePreset(id, q, bytes.NewReader(data), int64(len(data))))
}

// startJob starts a /pfc job with query and returns its id.
func startJob(t *testing.T, s *Service, query string) string {
	t.Helper()
	q, err := url.ParseQuery(query)
	require.NoError(t, err)
	resp, aerr := s.StartJob("k", q, "http://mock.test")
	require.Nil(t, aerr)
	return resp.StatusEndpoint[strings.LastIndexByte(resp.StatusEndpoint, '/')+1:]
}

// jobView is what the tests read of a job record.
type jobView struct {
	Status     string `json:"status"`
	StatusText string `json:"statusText"`
	Code       int    `json:"code"`
}

// jobRecord waits for the service to be idle and returns job id's
// record as /status sends it.
func jobRecord(t *testing.T, s *Service, id string) (jobView, []byte) {
	t.Helper()
	require.NoError(t, s.WaitIdle(context.Background()))
	v, aerr := s.JobStatus("k", id)
	require.Nil(t, aerr)
	var rec jobView
	require.NoError(t, json.Unmarshal(v.Record, &rec))
	return rec, v.Record
}

// pngBytes is a small valid PNG; seed makes images differ.
func pngBytes(t *testing.T, seed uint8) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	img.Pix[0] = seed
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

// recordingProcessor copies its input to the output and remembers the
// preset file of every call.
type recordingProcessor struct {
	mu      sync.Mutex
	presets [][]byte
	gate    chan struct{} // if set, each call waits for a receive
}

func (p *recordingProcessor) Process(ctx context.Context, src io.Reader, req JobRequest, dst io.Writer) (*JobResult, error) {
	p.mu.Lock()
	p.presets = append(p.presets, bytes.Clone(req.PresetData))
	gate := p.gate
	p.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if _, err := io.Copy(dst, src); err != nil {
		return nil, err
	}
	return &JobResult{Format: req.OutputType, Corrected: true}, nil
}

func (p *recordingProcessor) calls() [][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]byte(nil), p.presets...)
}
