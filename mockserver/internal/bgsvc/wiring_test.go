package bgsvc

import (
	"bytes"
	"context"
	"image"
	"mime/multipart"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// spyRemover records the options each engine call gets and removes the
// background with the CPU reference.
type spyRemover struct {
	mu   sync.Mutex
	opts []matting.Options
	cpu  matting.Remover
}

func (s *spyRemover) RemoveBackground(ctx context.Context, pix *image.NRGBA, o matting.Options) (*matting.Matte, error) {
	s.mu.Lock()
	s.opts = append(s.opts, o)
	s.mu.Unlock()
	return s.cpu.RemoveBackground(ctx, pix, o)
}

func (s *spyRemover) last(t *testing.T) matting.Options {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	require.NotEmpty(t, s.opts, "the engine was not called")
	return s.opts[len(s.opts)-1]
}

// submitHTTP posts a SubmitImage request with query and the form fields.
func submitHTTP(t *testing.T, url, query string, fields map[string]string, file []byte) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		require.NoError(t, mw.WriteField(k, v))
	}
	fw, err := mw.CreateFormFile("file", "photo.png")
	require.NoError(t, err)
	_, err = fw.Write(file)
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	resp, err := http.Post(url+RouteSubmitImage+query, mw.FormDataContentType(), &body)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

// TestSubmitOptionsReachTheEngine: the preprocessing and postprocessing
// query flags and preprocessing_config's denoise, sent over HTTP, are the
// options of the engine call (Preprocess, SpillReduction); dropping any of
// them between the request and the engine fails here.
func TestSubmitOptionsReachTheEngine(t *testing.T) {
	t.Parallel()
	spy := &spyRemover{cpu: matting.NewCPU()}
	s, _ := newService(t, func(c *settings) { c.Remover = spy })
	srv := serve(t, s)
	in := subjectPNG(t, 40, 30)
	tests := []struct {
		name, query          string
		fields               map[string]string
		preprocess, spillRed bool
	}{
		{"defaults", "", nil, false, false},
		{"postprocessing", "?postprocessing=true", nil, false, true},
		{"preprocessing", "?preprocessing=true", nil, true, false},
		{"both", "?preprocessing=TRUE&postprocessing=true", nil, true, true},
		{"config without preprocessing", "", map[string]string{"preprocessing_config": `{"denoise":true}`}, false, false},
		{"config turns denoise off", "?preprocessing=true", map[string]string{"preprocessing_config": `{"denoise":false}`}, false, false},
		{"config keeps denoise", "?preprocessing=true&postprocessing=false", map[string]string{"preprocessing_config": `{"denoise":true,"x":1}`}, true, false},
		{"portrait mode", "?postprocessing=true", map[string]string{"mode": "portrait"}, false, true},
	}
	for _, tc := range tests {
		submitHTTP(t, srv.URL, tc.query, tc.fields, in)
		waitIdle(t, s)
		o := spy.last(t)
		assert.Equal(t, tc.preprocess, o.Preprocess, "%s: Preprocess", tc.name)
		assert.Equal(t, tc.spillRed, o.SpillReduction, "%s: SpillReduction", tc.name)
		wantMode := matting.ModeGeneral
		if tc.fields["mode"] == "portrait" {
			wantMode = matting.ModePortrait
		}
		assert.Equal(t, wantMode, o.Mode, "%s: Mode", tc.name)
	}
}
