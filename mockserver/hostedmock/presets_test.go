package hostedmock_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
)

func TestPresets(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	create := func(body string) (*http.Response, []byte) {
		return f.do(t, http.MethodPost, "/v2/presets/", f.APIKey, strings.NewReader(body))
	}
	resp, b := create(`{"name":"Warm","description":"warm tones"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	p := decode[hostedmock.PresetRecord](t, b)
	assert.Len(t, p.PresetID, 24)
	assert.Equal(t, "Warm", p.Name)
	assert.Equal(t, "warm tones", p.Description)
	assert.Equal(t, "awaiting_upload", p.Status)
	require.NotEmpty(t, p.UploadURL)

	// Not usable before its file arrives.
	j := f.run(t, jpegBytes(t, 64, 64), "preset=Warm")
	assert.Equal(t, hosted.StatusRejected, j.Status)
	assert.Equal(t, 1005, j.Code)
	assert.Contains(t, j.StatusText, "no file uploaded")

	// Tampered URL, then the real PUT (no API key).
	resp, b = f.do(t, http.MethodPut, strings.Replace(p.UploadURL, p.PresetID, strings.Repeat("0", 24), 1), "", strings.NewReader("x"))
	requireError(t, resp, b, http.StatusForbidden, "forbidden", "")
	resp, b = f.do(t, http.MethodPut, p.UploadURL, "", bytes.NewReader(make([]byte, 1<<20+1)))
	requireError(t, resp, b, http.StatusRequestEntityTooLarge, "payload_too_large", "")
	resp, b = f.do(t, http.MethodPut, p.UploadURL, "", strings.NewReader(""))
	requireError(t, resp, b, http.StatusBadRequest, "invalid_body", "")
	presetFile := []byte("<preset>warm</preset>")
	resp, b = f.do(t, http.MethodPut, p.UploadURL, "", bytes.NewReader(presetFile))
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))

	resp, b = f.api(t, http.MethodGet, "/presets/"+p.PresetID)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	got := decode[hostedmock.PresetRecord](t, b)
	assert.Equal(t, "ready", got.Status)
	assert.Equal(t, int64(len(presetFile)), got.Size)
	assert.Empty(t, got.UploadURL)

	// Usable by name, with its file handed to the processor.
	j = f.run(t, jpegBytes(t, 64, 64), "preset=Warm")
	require.Equal(t, hosted.StatusCompleted, j.Status, j.StatusText)
	assert.Equal(t, "Warm", f.proc.last().Preset)
	assert.Equal(t, presetFile, f.proc.last().PresetData)
	for _, builtin := range []string{"Universal", "none", "Pro", "School%20and%20Sports", "Attractions%20and%20Cruise%20Lines"} {
		j = f.run(t, jpegBytes(t, 64, 64), "preset="+builtin)
		require.Equal(t, hosted.StatusCompleted, j.Status, builtin)
		assert.Nil(t, f.proc.last().PresetData)
		if builtin == "none" {
			assert.Equal(t, 0, j.Usage.ImageCorrectionCount, "preset=none corrects nothing")
		} else {
			assert.Equal(t, 1, j.Usage.ImageCorrectionCount)
		}
	}

	// Creation rules.
	for body, want := range map[string]struct {
		status      int
		code, param string
	}{
		`{"name":"Warm"}`:            {409, "conflict", "name"},
		`{"name":"pro"}`:             {400, "invalid_parameter", "name"},
		`{"name":"None"}`:            {400, "invalid_parameter", "name"},
		`{"description":"x"}`:        {400, "missing_parameter", "name"},
		`{"name":"  "}`:              {400, "invalid_parameter", "name"},
		`{"name":" x"}`:              {400, "invalid_parameter", "name"},
		`{"name":"x","color":"red"}`: {400, "invalid_body", ""},
		`{"name":1}`:                 {400, "invalid_body", ""},
		`[]`:                         {400, "invalid_body", ""},
		`{"name":"x"}{"name":"y"}`:   {400, "invalid_body", ""},
		`{"name":"` + strings.Repeat("n", 201) + `"}`: {400, "invalid_parameter", "name"},
	} {
		resp, b := create(body)
		requireError(t, resp, b, want.status, want.code, want.param)
	}
	resp, b = f.do(t, http.MethodPost, "/v2/presets", f.APIKey, strings.NewReader(`{"name":"NoDesc"}`))
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	assert.Empty(t, decode[hostedmock.PresetRecord](t, b).Description)

	// List: creation order, paging.
	for i := range 23 {
		resp, b := create(fmt.Sprintf(`{"name":"P%02d","description":""}`, i))
		require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	}
	resp, b = f.api(t, http.MethodGet, "/presets")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	page := decode[hostedmock.PresetList](t, b)
	assert.Equal(t, 25, page.Total)
	assert.Equal(t, 20, page.Limit)
	assert.Equal(t, 0, page.Offset)
	require.Len(t, page.Presets, 20)
	assert.Equal(t, "Warm", page.Presets[0].Name)
	assert.Equal(t, "NoDesc", page.Presets[1].Name)
	assert.Equal(t, "P00", page.Presets[2].Name)
	resp, b = f.api(t, http.MethodGet, "/presets/?limit=10&offset=20")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	page = decode[hostedmock.PresetList](t, b)
	require.Len(t, page.Presets, 5)
	assert.Equal(t, "P18", page.Presets[0].Name)
	resp, b = f.api(t, http.MethodGet, "/presets?offset=100")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Empty(t, decode[hostedmock.PresetList](t, b).Presets)
	assert.Contains(t, string(b), `"presets":[]`)
	resp, b = f.api(t, http.MethodGet, "/presets?limit=1000") // no maximum; the page is capped
	require.Equal(t, http.StatusOK, resp.StatusCode)
	page = decode[hostedmock.PresetList](t, b)
	assert.Len(t, page.Presets, 25)
	assert.Equal(t, 25, page.Total)
	for _, q := range []string{"limit=0", "limit=x", "offset=-1"} {
		resp, b := f.api(t, http.MethodGet, "/presets?"+q)
		requireError(t, resp, b, 400, "invalid_parameter", strings.Split(q, "=")[0])
	}

	// Delete: gone, and no longer usable by name.
	resp, b = f.api(t, http.MethodDelete, "/presets/"+p.PresetID)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.JSONEq(t, `{"presetId":"`+p.PresetID+`","deleted":true}`, string(b))
	resp, b = f.api(t, http.MethodGet, "/presets/"+p.PresetID)
	requireError(t, resp, b, http.StatusNotFound, "not_found", "")
	resp, b = f.api(t, http.MethodDelete, "/presets/"+p.PresetID)
	requireError(t, resp, b, http.StatusNotFound, "not_found", "")
	j = f.run(t, jpegBytes(t, 64, 64), "preset=Warm")
	assert.Equal(t, hosted.StatusRejected, j.Status)
	assert.Equal(t, 1005, j.Code)
	resp, b = f.do(t, http.MethodPut, p.UploadURL, "", bytes.NewReader(presetFile))
	requireError(t, resp, b, http.StatusNotFound, "not_found", "")
	resp, b = f.api(t, http.MethodPut, "/presets/"+p.PresetID)
	requireError(t, resp, b, http.StatusMethodNotAllowed, "method_not_allowed", "")
}
