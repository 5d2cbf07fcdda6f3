package bgsvc

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

type part struct {
	name, filename, value string
}

func formRequest(t *testing.T, parts ...part) *http.Request {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		cd := `form-data; name="` + p.name + `"`
		if p.filename != "" {
			cd += `; filename="` + p.filename + `"`
		}
		h.Set("Content-Disposition", cd)
		w, err := mw.CreatePart(h)
		require.NoError(t, err)
		_, err = io.WriteString(w, p.value)
		require.NoError(t, err)
	}
	require.NoError(t, mw.Close())
	r := httptest.NewRequest(http.MethodPost, "http://bg.test/SubmitImage", &body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	return r
}

func TestReadSubmitForm(t *testing.T) {
	t.Parallel()
	s, _ := newService(t, func(c *settings) { c.MaxFileBytes = 1000 })
	img := string(subjectPNG(t, 40, 30))
	r := formRequest(t, part{name: "mode", value: "portrait"}, part{name: "extra", value: "ignored"},
		part{name: "file", filename: "dir/cat.png", value: img}, part{name: "preprocessing_config", value: `{"denoise":true}`})
	req, e := s.ReadSubmitForm(httptest.NewRecorder(), r)
	require.Nil(t, e)
	assert.Equal(t, "cat.png", req.FileName)
	assert.Equal(t, "portrait", req.Mode)
	assert.Equal(t, `{"denoise":true}`, req.PreprocessingConfig)
	req.Preprocessing = flag("true")
	resp, e := s.Submit(req)
	require.Nil(t, e)
	assert.Equal(t, "portrait", resp.Mode)
	assert.Equal(t, "true", resp.PreprocessingEnabled)
	waitIdle(t, s)
	assert.Equal(t, "cat.png", check(t, s, resp.ProcessID).OriginalName)
}

func TestReadSubmitFormErrors(t *testing.T) {
	t.Parallel()
	s, _ := newService(t, func(c *settings) { c.MaxFileBytes = 1000 })
	img := string(subjectPNG(t, 20, 20))
	plain := httptest.NewRequest(http.MethodPost, "http://bg.test/SubmitImage", strings.NewReader("file=x"))
	plain.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	broken := formRequest(t, part{name: "file", filename: "a.png", value: strings.Repeat("x", 900)})
	broken.Body = io.NopCloser(io.LimitReader(broken.Body, 500)) // cut inside the file part
	tests := []struct {
		name   string
		req    *http.Request
		status int
		code   string
		param  string
	}{
		{"not multipart", plain, 422, httpx.CodeUnprocessable, ParamFile},
		{"no file part", formRequest(t, part{name: "mode", value: "general"}), 422, httpx.CodeUnprocessable, ParamFile},
		{"two files", formRequest(t, part{name: "file", filename: "a.png", value: img}, part{name: "file", filename: "b.png", value: img}),
			400, httpx.CodeInvalidParameter, ParamFile},
		{"two modes", formRequest(t, part{name: "mode", value: "general"}, part{name: "mode", value: "general"}),
			400, httpx.CodeInvalidParameter, ParamMode},
		{"mode too long", formRequest(t, part{name: "mode", value: strings.Repeat("m", maxFieldBytes+1)}),
			400, httpx.CodeInvalidParameter, ParamMode},
		{"file too large", formRequest(t, part{name: "file", filename: "a.png", value: strings.Repeat("x", 1001)}),
			413, httpx.CodePayloadTooLarge, ParamFile},
		{"body too large", formRequest(t, part{name: "other", value: strings.Repeat("x", 1000+formOverhead)}),
			413, httpx.CodePayloadTooLarge, ""},
		{"truncated body", broken, 400, httpx.CodeInvalidBody, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, e := s.ReadSubmitForm(httptest.NewRecorder(), tt.req)
			requireErr(t, e, tt.status, tt.code, tt.param)
		})
	}
	waitIdle(t, s)
	assert.Zero(t, fileCount(t, s.cfg.WorkDir+"/.tmp"), "nothing is kept")
}

func TestReadSubmitFormNeedsActivation(t *testing.T) {
	t.Parallel()
	s, _ := newInactive(t, nil)
	_, e := s.ReadSubmitForm(httptest.NewRecorder(), formRequest(t, part{name: "file", filename: "a.png", value: "x"}))
	requireErr(t, e, http.StatusForbidden, httpx.CodeNotActivated, "")
	assert.Zero(t, fileCount(t, s.cfg.WorkDir+"/.tmp"))
}
