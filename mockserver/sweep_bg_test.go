package mockserver_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/textproto"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// formPart is one part of a SubmitImage body: a file part when fileName
// is set.
type formPart struct{ name, fileName, value string }

// submitForm returns the Content-Type header line and the body of a
// multipart form with the boundary "SWEEP".
func submitForm(parts ...formPart) ([]string, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.SetBoundary("SWEEP")
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		disp := `form-data; name="` + p.name + `"`
		if p.fileName != "" {
			disp += `; filename="` + p.fileName + `"`
			h.Set("Content-Type", "application/octet-stream")
		}
		h.Set("Content-Disposition", disp)
		w, _ := mw.CreatePart(h)
		_, _ = w.Write([]byte(p.value))
	}
	_ = mw.Close()
	return []string{"Content-Type: " + mw.FormDataContentType()}, b.String()
}

// TestBGContainerBadInputSweep sends malformed requests to every route of
// the background-removal container mock, before and after activation:
// each gets its documented status (no 5xx: the seed documents none for
// bad input), nothing panics, no job is left behind, and the mock still
// removes a background exactly as a fresh one does afterwards.
func TestBGContainerBadInputSweep(t *testing.T) {
	t.Parallel()
	s := newSweepServer(t)
	bg, err := bgmock.New(bgmock.Options{MaxFileBytes: sweepUploadLimit})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, bg.Close()) })
	s.start(bg)
	client, err := bgcontainer.NewClient(bgmock.DefaultLicenseKey, pfc.WithBaseURL(s.URL()), pfc.WithHTTPClient(s.srv.Client()))
	require.NoError(t, err)
	ctx := context.Background()
	img := chaosInput(t, 11)
	const id = "0b8f6c1e-3a52-4c8e-9d21-7f6a2b9e4c10" // well formed, unknown
	validCT, valid := submitForm(formPart{name: "file", fileName: "in.jpg", value: string(img)})
	const (
		bad        = 400
		invalid    = "invalid_parameter"
		notActive  = "not_activated"
		invalidFil = "invalid_file"
	)
	before := []sweepCase{
		{name: "submit before activation", method: "POST", target: "/SubmitImage", header: validCT, body: valid, status: 403, code: notActive},
		{name: "check before activation", method: "GET", target: "/CheckImage/" + id, status: 403, code: notActive},
		{name: "download before activation", method: "GET", target: "/DownloadImage/" + id, status: 403, code: notActive},
		{name: "remove before activation", method: "DELETE", target: "/RemoveImage/" + id, status: 403, code: notActive},
		{name: "bad id before activation", method: "GET", target: "/CheckImage/not-a-uuid", status: 403, code: notActive},
		{name: "status before activation", method: "GET", target: "/Status", status: 200},
		{name: "wrong licence key", method: "GET", target: "/Authorize/wrong-key", status: 200},
		{name: "licence key with a slash", method: "GET", target: "/Authorize/a%2Fb", status: 200},
	}
	s.run(t, before, func(sweepCase) bool { return false })
	_, err = client.Authorize(ctx)
	require.NoError(t, err)

	form := func(parts ...formPart) ([]string, string) { return submitForm(parts...) }
	file := formPart{name: "file", fileName: "in.jpg", value: string(img)}
	ct := func(h []string, _ string) []string { return h }
	body := func(_ []string, b string) string { return b }
	submit := func(name, target string, status int, code string, parts ...formPart) sweepCase {
		h, b := form(parts...)
		return sweepCase{name: name, method: "POST", target: target, header: h, body: b, status: status, code: code}
	}
	cases := []sweepCase{
		// Methods and routes.
		{name: "GET SubmitImage", method: "GET", target: "/SubmitImage", status: 405, code: "method_not_allowed"},
		{name: "PUT SubmitImage", method: "PUT", target: "/SubmitImage", header: validCT, body: valid, status: 405},
		{name: "POST CheckImage", method: "POST", target: "/CheckImage/" + id, status: 405},
		{name: "GET RemoveImage", method: "GET", target: "/RemoveImage/" + id, status: 405},
		{name: "POST DownloadImage", method: "POST", target: "/DownloadImage/" + id, status: 405},
		{name: "DELETE Status", method: "DELETE", target: "/Status", status: 405},
		{name: "POST Authorize", method: "POST", target: "/Authorize/x", status: 405},
		{name: "path case", method: "POST", target: "/submitimage", header: validCT, body: valid, status: 404, code: "not_found"},
		{name: "unknown route", method: "GET", target: "/nope", status: 404},
		{name: "SubmitImage with a segment", method: "POST", target: "/SubmitImage/x", header: validCT, body: valid, status: 404},
		{name: "Status with a segment", method: "GET", target: "/Status/x", status: 404},
		// Query parameters.
		{name: "check with a query", method: "GET", target: "/CheckImage/" + id + "?x=1", status: bad, code: "unknown_parameter"},
		{name: "status with a query", method: "GET", target: "/Status?verbose=true", status: bad, code: "unknown_parameter"},
		{name: "submit unknown parameter", method: "POST", target: "/SubmitImage?foo=1", header: validCT, body: valid, status: bad, code: "unknown_parameter"},
		{name: "submit duplicated preprocessing", method: "POST", target: "/SubmitImage?preprocessing=true&preprocessing=false", header: validCT, body: valid, status: bad, code: invalid},
		{name: "preprocessing yes", method: "POST", target: "/SubmitImage?preprocessing=yes", header: validCT, body: valid, status: bad, code: invalid},
		{name: "postprocessing 1", method: "POST", target: "/SubmitImage?postprocessing=1", header: validCT, body: valid, status: bad, code: invalid},
		// A flag given with an empty value is not absent: neither true nor false.
		{name: "preprocessing empty", method: "POST", target: "/SubmitImage?preprocessing=", header: validCT, body: valid, status: bad, code: invalid},
		{name: "preprocessing bare", method: "POST", target: "/SubmitImage?preprocessing", header: validCT, body: valid, status: bad, code: invalid},
		{name: "postprocessing empty", method: "POST", target: "/SubmitImage?postprocessing=", header: validCT, body: valid, status: bad, code: invalid},
		{name: "malformed query", method: "POST", target: "/SubmitImage?%zz", header: validCT, body: valid, status: bad, code: invalid},
		// Bodies and content types.
		{name: "no content type", method: "POST", target: "/SubmitImage", body: valid, status: 422, code: "unprocessable"},
		{name: "text/plain", method: "POST", target: "/SubmitImage", header: []string{"Content-Type: text/plain"}, body: "x", status: 422},
		{name: "JSON body", method: "POST", target: "/SubmitImage", header: []string{"Content-Type: application/json"}, body: `{"file":"x"}`, status: 422},
		{name: "multipart without boundary", method: "POST", target: "/SubmitImage", header: []string{"Content-Type: multipart/form-data"}, body: valid, status: 422},
		{name: "urlencoded form", method: "POST", target: "/SubmitImage", header: []string{"Content-Type: application/x-www-form-urlencoded"}, body: "file=x", status: 422},
		submit("no file part", "/SubmitImage", 422, "unprocessable", formPart{name: "mode", value: "general"}),
		submit("file under another name", "/SubmitImage", 422, "unprocessable", formPart{name: "image", fileName: "in.jpg", value: string(img)}),
		submit("two file parts", "/SubmitImage", bad, invalid, file, file),
		submit("two modes", "/SubmitImage", bad, invalid, formPart{name: "mode", value: "general"}, formPart{name: "mode", value: "portrait"}, file),
		submit("mode landscape", "/SubmitImage", bad, invalid, file, formPart{name: "mode", value: "landscape"}),
		submit("mode upper case", "/SubmitImage", bad, invalid, file, formPart{name: "mode", value: "GENERAL"}),
		submit("mode too long", "/SubmitImage", bad, invalid, file, formPart{name: "mode", value: strings.Repeat("m", 300)}),
		submit("config not JSON", "/SubmitImage", bad, invalid, file, formPart{name: "preprocessing_config", value: "{"}),
		submit("config an array", "/SubmitImage", bad, invalid, file, formPart{name: "preprocessing_config", value: "[]"}),
		submit("config a string", "/SubmitImage", bad, invalid, file, formPart{name: "preprocessing_config", value: `"denoise"`}),
		submit("config null", "/SubmitImage", bad, invalid, file, formPart{name: "preprocessing_config", value: "null"}),
		submit("config wrong type", "/SubmitImage", bad, invalid, file, formPart{name: "preprocessing_config", value: `{"denoise":"yes"}`}),
		submit("config trailing data", "/SubmitImage", bad, invalid, file, formPart{name: "preprocessing_config", value: `{} {}`}),
		submit("config too long", "/SubmitImage", bad, invalid, file, formPart{name: "preprocessing_config", value: `{"x":"` + strings.Repeat("c", 70<<10) + `"}`}),
		submit("two configs", "/SubmitImage", bad, invalid, file, formPart{name: "preprocessing_config", value: "{}"}, formPart{name: "preprocessing_config", value: "{}"}),
		{name: "garbage multipart", method: "POST", target: "/SubmitImage", header: validCT, body: "--SWEEP\r\nno headers end", status: bad, code: "invalid_body"},
		{name: "truncated body", method: "POST", target: "/SubmitImage", header: validCT, body: valid[:len(valid)/2], declare: len(valid), status: bad, code: "invalid_body"},
		{name: "body over the limit", method: "POST", target: "/SubmitImage", header: ct(form(formPart{name: "file", fileName: "big.jpg", value: strings.Repeat("b", 3*sweepUploadLimit)})),
			body: body(form(formPart{name: "file", fileName: "big.jpg", value: strings.Repeat("b", 3*sweepUploadLimit)})), declare: -1, status: 413, code: "payload_too_large"},
		submit("file over the limit", "/SubmitImage", 413, "payload_too_large", formPart{name: "file", fileName: "big.jpg", value: "\xff\xd8" + strings.Repeat("b", sweepUploadLimit)}),
		// Files the container cannot use, decompression bombs included.
		submit("not an image", "/SubmitImage", 404, invalidFil, formPart{name: "file", fileName: "a.txt", value: "plain text"}),
		submit("empty file", "/SubmitImage", 404, invalidFil, formPart{name: "file", fileName: "empty.png", value: ""}),
		submit("GIF", "/SubmitImage", 404, invalidFil, formPart{name: "file", fileName: "a.gif", value: "GIF89a\x01\x00\x01\x00"}),
		submit("PNG bomb 100000x100000", "/SubmitImage", 404, invalidFil, formPart{name: "file", fileName: "bomb.png", value: bombPNG(100000, 100000)}),
		submit("JPEG bomb 65000x65000", "/SubmitImage", 404, invalidFil, formPart{name: "file", fileName: "bomb.jpg", value: bombJPEG(65000, 65000)}),
		submit("PNG header only", "/SubmitImage", 404, invalidFil, formPart{name: "file", fileName: "h.png", value: "\x89PNG\r\n\x1a\n"}),
		// Process ids.
		{name: "check without id", method: "GET", target: "/CheckImage/", status: bad, code: invalid},
		{name: "check bare", method: "GET", target: "/CheckImage", status: bad, code: invalid},
		{name: "check not a uuid", method: "GET", target: "/CheckImage/not-a-uuid", status: bad, code: invalid},
		{name: "check uuid without dashes", method: "GET", target: "/CheckImage/" + strings.ReplaceAll(id, "-", ""), status: bad, code: invalid},
		{name: "check non-hex uuid", method: "GET", target: "/CheckImage/zb8f6c1e-3a52-4c8e-9d21-7f6a2b9e4c10", status: bad, code: invalid},
		{name: "check traversal", method: "GET", target: "/CheckImage/../Status", status: bad, code: invalid},
		{name: "check escaped traversal", method: "GET", target: "/CheckImage/%2e%2e%2fStatus", status: bad, code: invalid},
		{name: "download id with NUL", method: "GET", target: "/DownloadImage/" + id + "%00", status: bad, code: invalid},
		{name: "download id with a segment", method: "GET", target: "/DownloadImage/" + id + "/x", status: bad, code: invalid},
		{name: "remove not a uuid", method: "DELETE", target: "/RemoveImage/12345", status: bad, code: invalid},
		// net/http refuses the request line itself (plain-text 400).
		{name: "remove malformed escape", method: "DELETE", target: "/RemoveImage/%zz", status: bad},
		{name: "check unknown", method: "GET", target: "/CheckImage/" + id, status: 404, code: "not_found"},
		{name: "check unknown upper case", method: "GET", target: "/CheckImage/" + strings.ToUpper(id), status: 404},
		{name: "download unknown", method: "GET", target: "/DownloadImage/" + id, status: 404},
		{name: "remove unknown", method: "DELETE", target: "/RemoveImage/" + id, status: 404},
		// Huge headers.
		{name: "huge header", method: "GET", target: "/Status", header: []string{hugeHeader(1<<20 + 8192)}, status: 431},
		{name: "huge licence key", method: "GET", target: "/Authorize/" + strings.Repeat("k", 1<<20+8192), status: 431},
	}
	require.GreaterOrEqual(t, len(before)+len(cases), 60)
	s.run(t, cases, func(sweepCase) bool { return false })
	assert.Zero(t, bg.JobCount(), "no malformed request left a job")

	// Still correct: the same image gives the same PNG as on a fresh
	// container, and the job is removed.
	ref := bgmock.Start(t, nil)
	remove := func(c *bgcontainer.Client) []byte {
		var buf bytes.Buffer
		_, err := c.RemoveBackground(ctx, bytes.NewReader(img), int64(len(img)), nil, &buf, nil)
		require.NoError(t, err)
		return buf.Bytes()
	}
	assert.Equal(t, remove(ref.Client), remove(client))
	assert.Zero(t, bg.JobCount())
	client.CloseIdleConnections()
}
