package bgcontainer

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// submitAnswer is the container's answer to SubmitImage.
var submitAnswer = map[string]string{
	"status": "processing", "process_id": jobID, "mode": "portrait",
	"preprocessing_enabled": "true", "message": "Image processing started",
}

// part is one part of a received multipart body.
type part struct {
	name, fileName, contentType string
	data                        []byte
}

// readParts parses a multipart/form-data request body.
func readParts(t *testing.T, r *http.Request) []part {
	t.Helper()
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	require.NoError(t, err)
	require.Equal(t, "multipart/form-data", mt)
	mr := multipart.NewReader(r.Body, params["boundary"])
	var parts []part
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return parts
		}
		require.NoError(t, err)
		data, err := io.ReadAll(p)
		require.NoError(t, err)
		parts = append(parts, part{p.FormName(), p.FileName(), p.Header.Get("Content-Type"), data})
	}
}

func TestSubmitImageRequest(t *testing.T) {
	t.Parallel()
	img := pngBytes(t, 4, 3)
	tests := []struct {
		name   string
		opts   *SubmitOptions
		query  string
		fields []part
		file   string
	}{
		{name: "defaults", opts: nil, query: "", file: "image.png"},
		{name: "everything", opts: &SubmitOptions{Mode: ModePortrait, Preprocessing: Bool(true), Postprocessing: Bool(false),
			PreprocessingConfig: map[string]bool{"denoise": false}, FileName: `my "cat".png`},
			query:  "postprocessing=false&preprocessing=true",
			fields: []part{{name: "mode", data: []byte("portrait")}, {name: "preprocessing_config", data: []byte(`{"denoise":false}`)}},
			file:   `my "cat".png`},
		{name: "raw config", opts: &SubmitOptions{Mode: ModeGeneral, PreprocessingConfigJSON: ` {"detect_faces": true} `},
			fields: []part{{name: "mode", data: []byte("general")}, {name: "preprocessing_config", data: []byte(`{"detect_faces": true}`)}},
			file:   "image.png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, secretKey)
			path := "/SubmitImage"
			if tt.query != "" {
				path += "?" + tt.query
			}
			f.on(t, http.MethodPost, path, func(r *http.Request) (*http.Response, error) {
				assert.Equal(t, tt.query, r.URL.RawQuery)
				assert.Equal(t, "application/json", r.Header.Get("Accept"))
				body, err := io.ReadAll(r.Body)
				require.NoError(t, err)
				assert.Equal(t, int64(len(body)), r.ContentLength, "exact Content-Length")
				assert.Empty(t, r.TransferEncoding, "not chunked")
				r.Body = io.NopCloser(bytes.NewReader(body))
				parts := readParts(t, r)
				require.Len(t, parts, len(tt.fields)+1)
				for i, want := range tt.fields {
					assert.Equal(t, want.name, parts[i].name)
					assert.Equal(t, string(want.data), string(parts[i].data))
				}
				file := parts[len(parts)-1]
				assert.Equal(t, "file", file.name)
				assert.Equal(t, tt.file, file.fileName)
				assert.Equal(t, "image/png", file.contentType)
				assert.Equal(t, img, file.data)
				return httpmock.NewJsonResponse(200, submitAnswer)
			})
			job, err := f.c.SubmitImage(context.Background(), bytes.NewReader(img), int64(len(img)), tt.opts)
			require.NoError(t, err)
			assert.Equal(t, &Job{ProcessID: jobID, Status: StatusProcessing, Mode: ModePortrait,
				PreprocessingEnabled: true, PreprocessingEnabledRaw: "true", Message: "Image processing started"}, job)
			assert.Equal(t, 1, f.mt.GetTotalCallCount())
		})
	}
}

func TestSubmitImageFileUsesTheBaseName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "holiday.jpg")
	img := pngBytes(t, 2, 2) // the content type comes from the bytes
	require.NoError(t, os.WriteFile(src, img, 0o644))
	f := newFixture(t, secretKey)
	f.on(t, http.MethodPost, "/SubmitImage", func(r *http.Request) (*http.Response, error) {
		parts := readParts(t, r)
		require.Len(t, parts, 1)
		assert.Equal(t, "holiday.jpg", parts[0].fileName)
		assert.Equal(t, "image/png", parts[0].contentType)
		assert.Equal(t, img, parts[0].data)
		return httpmock.NewJsonResponse(200, submitAnswer)
	})
	_, err := f.c.SubmitImageFile(context.Background(), src, nil)
	require.NoError(t, err)

	_, err = f.c.SubmitImageFile(context.Background(), dir, nil)
	require.ErrorIs(t, err, pfc.ErrInvalidParameter)
	assert.Contains(t, err.Error(), "path")
	_, err = f.c.SubmitImageFile(context.Background(), filepath.Join(dir, "missing.png"), nil)
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.Equal(t, 1, f.mt.GetTotalCallCount())
}

// TestSubmitImageErrors covers the seed's rows for /SubmitImage and the
// not-activated choice; none of them is resent (NoReplay), not even 500.
func TestSubmitImageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		code   string
		want   error
	}{
		{404, "invalid_file", ErrInvalidFile},
		{422, "unprocessable", ErrMissingFile},
		{500, "internal_error", pfc.ErrServer},
		{503, "unavailable", pfc.ErrServer},
		{403, "not_activated", ErrNotActivated},
		{400, "invalid_parameter", pfc.ErrBadRequest},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, secretKey)
			f.json(t, http.MethodPost, "/SubmitImage", tt.status, errorBody(tt.status, tt.code, "no "+secretKey, "file"))
			img := pngBytes(t, 2, 2)
			_, err := f.c.SubmitImage(context.Background(), bytes.NewReader(img), int64(len(img)), nil)
			require.ErrorIs(t, err, tt.want)
			var ae *Error
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, string(epSubmitImage), ae.Endpoint)
			assert.Equal(t, tt.code, ae.Code)
			assert.Equal(t, 1, f.mt.GetTotalCallCount(), "SubmitImage is never resent")
			f.noSecret(t, secretKey, err.Error())
		})
	}
}

func TestSubmitImageValidatesBeforeSending(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	_, err := f.c.SubmitImage(context.Background(), nil, 0, &SubmitOptions{Mode: "landscape", PreprocessingConfigJSON: "[1]"})
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	var fields []string
	for _, e := range ve.Errors {
		fields = append(fields, e.Field)
	}
	assert.Equal(t, []string{"image", "size"}, fields)
	_, err = f.c.SubmitImage(context.Background(), (*bytes.Reader)(nil), 5, nil)
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "image", ve.Errors[0].Field, "a nil *bytes.Reader is no image either")
	_, err = f.c.SubmitImage(context.Background(), bytes.NewReader([]byte("x")), 1, &SubmitOptions{Mode: "landscape", PreprocessingConfigJSON: "[1]"})
	require.ErrorAs(t, err, &ve)
	fields = nil
	for _, e := range ve.Errors {
		fields = append(fields, e.Field)
	}
	assert.Equal(t, []string{"mode", "preprocessing_config"}, fields)
	assert.Zero(t, f.mt.GetTotalCallCount())
}

// A client of one base URL keeps no job-to-replica map: every call goes to
// its one container (it recorded every process id submitted and not
// removed, up to 100,000 of them, for nothing).
func TestSubmitImageSingleURLRecordsNoReplica(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	f.json(t, http.MethodPost, "/SubmitImage", http.StatusOK, submitAnswer)
	img := pngBytes(t, 2, 2)
	job, err := f.c.SubmitImage(context.Background(), bytes.NewReader(img), int64(len(img)), nil)
	require.NoError(t, err)
	_, bound := f.c.reps.Lookup(job.ProcessID)
	assert.False(t, bound, "a single-URL client recorded the job's replica")
}
