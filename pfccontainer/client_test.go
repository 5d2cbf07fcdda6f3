package pfccontainer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The one HTTP test double of this file: httpmock.

const testBase = "http://pfc.test:8081"

// mockClient returns a client whose traffic goes to a fresh httpmock
// transport, with two fast retries.
func mockClient(t *testing.T) (*Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	c, err := NewClient(pfc.WithBaseURL(testBase), pfc.WithHTTPClient(&http.Client{Transport: mt}),
		pfc.WithRetries(2, time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	return c, mt
}

// noCredentials checks what every request of this client carries.
func noCredentials(t *testing.T, r *http.Request) {
	assert.True(t, strings.HasPrefix(r.Header.Get("User-Agent"), "pfc-go/"), "User-Agent")
	assert.Empty(t, r.Header.Get("Authorization"))
	assert.Empty(t, r.Header.Get("X-API-KEY"))
}

func jsonAnswer(status int, body string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		return resp, nil
	}
}

func testPNG(t *testing.T) []byte {
	var b bytes.Buffer
	img := image.NewNRGBA(image.Rect(0, 0, 40, 32))
	img.Set(1, 1, color.NRGBA{R: 200, A: 255})
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

func TestNewClientNeedsBaseURL(t *testing.T) {
	t.Parallel()
	_, err := NewClient()
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"BaseURL"}, ve.Fields())
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)

	_, err = NewClient(pfc.WithBaseURL("ftp://x"))
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"BaseURL"}, ve.Fields())

	c, err := NewClient(pfc.WithBaseURL(testBase + "/"))
	require.NoError(t, err)
	assert.Equal(t, testBase+"/", c.BaseURL())
}

func TestUploadStreamsExactBody(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	img := testPNG(t)
	mt.RegisterResponder(http.MethodPut, testBase+"/pfc", func(r *http.Request) (*http.Response, error) {
		noCredentials(t, r)
		assert.Empty(t, r.URL.RawQuery)
		assert.Equal(t, "image/png", r.Header.Get("Content-Type"), "sniffed")
		assert.Equal(t, int64(len(img)), r.ContentLength)
		assert.Empty(t, r.TransferEncoding)
		got, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		assert.Equal(t, img, got)
		return jsonAnswer(200, `{"imageKey":"0123abcd.png"}`)(r)
	})
	key, err := c.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
	require.NoError(t, err)
	assert.Equal(t, "0123abcd.png", key)

	// A given type is sent as it is (parameters dropped).
	mt.RegisterResponder(http.MethodPut, testBase+"/pfc", func(r *http.Request) (*http.Response, error) {
		assert.Equal(t, "image/jpeg", r.Header.Get("Content-Type"))
		return jsonAnswer(200, `{"imageKey":"k.jpg"}`)(r)
	})
	key, err = c.Upload(t.Context(), bytes.NewReader([]byte("jpeg bytes")), 10, "image/jpeg; q=1")
	require.NoError(t, err)
	assert.Equal(t, "k.jpg", key)
}

func TestUploadRefusedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	var g bytes.Buffer
	require.NoError(t, gif.Encode(&g, image.NewPaletted(image.Rect(0, 0, 4, 4), []color.Color{color.Black}), nil))
	for _, tc := range []struct {
		name   string
		src    io.ReaderAt
		size   int64
		ct     string
		fields []string
	}{
		{"sniffed gif", bytes.NewReader(g.Bytes()), int64(g.Len()), "", []string{"contentType"}},
		{"declared gif", bytes.NewReader([]byte("x")), 1, "image/gif", []string{"contentType"}},
		{"malformed type", bytes.NewReader([]byte("x")), 1, "image/", []string{"contentType"}},
		{"empty", bytes.NewReader(nil), 0, "image/png", []string{"size"}},
		{"nil source", nil, 5, "image/png", []string{"src"}},
		{"nil *bytes.Reader", (*bytes.Reader)(nil), 5, "", []string{"src"}},
	} {
		_, err := c.Upload(t.Context(), tc.src, tc.size, tc.ct)
		var ve *pfc.ValidationError
		require.ErrorAs(t, err, &ve, tc.name)
		assert.Equal(t, tc.fields, ve.Fields(), tc.name)
	}
	path := filepath.Join(t.TempDir(), "a.gif")
	require.NoError(t, os.WriteFile(path, g.Bytes(), 0o644))
	_, err := c.UploadFile(t.Context(), path)
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
	_, err = c.UploadFile(t.Context(), filepath.Join(t.TempDir(), "missing.png"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.Zero(t, mt.GetTotalCallCount())
}

func TestUploadRetriesTransientRowsAndChecksTheKey(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	mt.RegisterResponder(http.MethodPut, testBase+"/pfc", httpmock.ResponderFromMultipleResponses([]*http.Response{
		jsonResp(503, `{"status":503,"code":"temporaryFileCreationMessage","message":"disk full"}`),
		jsonResp(200, `{"imageKey":"k2.png"}`),
	}))
	img := testPNG(t)
	key, err := c.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
	require.NoError(t, err)
	assert.Equal(t, "k2.png", key)
	assert.Equal(t, 2, mt.GetTotalCallCount(), "the retry re-sent the whole body")

	mt.RegisterResponder(http.MethodPut, testBase+"/pfc", jsonAnswer(200, `{"imageKey":"../../etc/passwd"}`))
	_, err = c.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
	assert.ErrorIs(t, err, pfc.ErrInvalidResponse)
	var re *pfc.ResponseError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, string(epUpload), re.Endpoint)
	assert.Equal(t, "imageKey", re.Field)
}

func jsonResp(status int, body string) *http.Response {
	r := httpmock.NewStringResponse(status, body)
	r.Header.Set("Content-Type", "application/json")
	return r
}

func TestCorrectSendsEveryParameter(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	o := NewCorrection().WithPreset("School and Sports").WithOutput(pfc.OutputJPEG, 85).WithColorSpace("srgb").
		WithLong(1200).WithAutocrop().WithSkip(pfc.SkipNone).WithSkipEXIFSoftware("Photoshop", "GIMP").
		WithPreserveInputFileName(true).WithComposite(false)
	mt.RegisterResponder(http.MethodGet, `=~^`+testBase+`/pfc/`, func(r *http.Request) (*http.Response, error) {
		noCredentials(t, r)
		assert.Equal(t, "/pfc/my%20photo.jpg", r.URL.EscapedPath())
		assert.Equal(t, "autocrop=true&enableComposite=false&long=1200&outputColorSpace=srgb&outputQuality=85&outputType=JPEG"+
			"&preserveInputFileName=true&preset=School%20and%20Sports&skip=none&skip-exif-software=Photoshop%2CGIMP", r.URL.RawQuery)
		assert.Equal(t, "application/json", r.Header.Get("Accept"))
		return jsonAnswer(200, `{"corrected_url":"http://localhost/output/my%20photo.jpg","scene":3}`)(r)
	})
	corr, err := c.GetCorrection(t.Context(), "my photo.jpg", o)
	require.NoError(t, err)
	assert.Equal(t, "http://localhost/output/my%20photo.jpg", corr.CorrectedURL)
	assert.Equal(t, corr.CorrectedURL, corr.ReportedURL)
	assert.Equal(t, Scene(3), corr.Scene)
	assert.Equal(t, "my photo.jpg", corr.FileName())

	// No options: no query at all.
	mt.RegisterResponder(http.MethodGet, testBase+"/pfc/k.png", func(r *http.Request) (*http.Response, error) {
		assert.Empty(t, r.URL.RawQuery)
		return jsonAnswer(200, `{"corrected_url":"http://localhost/output/x.png","scene":-1}`)(r)
	})
	corr, err = c.GetCorrection(t.Context(), "k.png", nil)
	require.NoError(t, err)
	assert.False(t, corr.Scene.Known())
}

func TestCorrectValidatesKeyAndOptionsTogether(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	_, err := c.GetCorrection(t.Context(), "../secret", &CorrectionOptions{OutputQuality: 39, Width: 20})
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"imageKey", "outputQuality", "width"}, ve.Fields())
	_, err = c.GetCorrection(t.Context(), "", nil)
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"imageKey"}, ve.Fields())
	assert.Zero(t, mt.GetTotalCallCount())
}

func TestCorrectRebasesOntoTheBaseURL(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	rc := c.RebaseCorrectedURLs()
	mt.RegisterResponder(http.MethodGet, testBase+"/pfc/k.jpg",
		jsonAnswer(200, `{"corrected_url":"http://localhost/output/a1.jpg","scene":0}`))
	corr, err := rc.GetCorrection(t.Context(), "k.jpg", nil)
	require.NoError(t, err)
	assert.Equal(t, testBase+"/output/a1.jpg", corr.CorrectedURL)
	assert.Equal(t, "http://localhost/output/a1.jpg", corr.ReportedURL)
	corr, err = c.GetCorrection(t.Context(), "k.jpg", nil)
	require.NoError(t, err)
	assert.Equal(t, "http://localhost/output/a1.jpg", corr.CorrectedURL, "the original client is unchanged")

	mt.RegisterResponder(http.MethodGet, testBase+"/pfc/k.jpg", jsonAnswer(200, `{"corrected_url":"http://localhost/elsewhere","scene":0}`))
	_, err = rc.GetCorrection(t.Context(), "k.jpg", nil)
	assert.ErrorContains(t, err, "cannot be rebased")
	assert.ErrorIs(t, err, pfc.ErrInvalidResponse, "a corrected_url that cannot be rebased is an invalid answer")
	mt.RegisterResponder(http.MethodGet, testBase+"/pfc/k.jpg", jsonAnswer(200, `{"scene":0}`))
	_, err = c.GetCorrection(t.Context(), "k.jpg", nil)
	assert.ErrorIs(t, err, pfc.ErrInvalidResponse)
	var re *pfc.ResponseError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, pfc.ResponseError{Endpoint: string(epCorrect), Field: "corrected_url", Reason: "is missing"}, *re)
}

func TestDownload(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	img := testPNG(t)
	mt.RegisterResponder(http.MethodGet, "http://cdn.test/output/a.png", func(r *http.Request) (*http.Response, error) {
		noCredentials(t, r)
		assert.Equal(t, "identity", r.Header.Get("Accept-Encoding"))
		return httpmock.NewBytesResponse(200, img), nil
	})
	corr := &Correction{CorrectedURL: "http://cdn.test/output/a.png"}
	var buf bytes.Buffer
	n, err := c.Download(t.Context(), corr, &buf)
	require.NoError(t, err)
	assert.Equal(t, int64(len(img)), n)
	assert.Equal(t, img, buf.Bytes())

	dir := t.TempDir()
	dst := filepath.Join(dir, "out.png")
	_, err = c.DownloadFile(t.Context(), corr, dst)
	require.NoError(t, err)
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	assert.Equal(t, img, got)

	// A failed download leaves nothing behind, and an existing file as it was.
	mt.RegisterResponder(http.MethodGet, "http://cdn.test/output/gone.png", httpmock.NewStringResponder(404, "gone"))
	_, err = c.DownloadFile(t.Context(), &Correction{CorrectedURL: "http://cdn.test/output/gone.png"}, dst)
	assert.ErrorIs(t, err, pfc.ErrNotFound)
	got, _ = os.ReadFile(dst)
	assert.Equal(t, img, got)
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "no temporary file left")

	_, err = c.Download(t.Context(), nil, &buf)
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
	_, err = c.Download(t.Context(), &Correction{CorrectedURL: "file:///etc/passwd"}, &buf)
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
}

func TestVersionAndHealth(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	doc := `{"version":"10.7.2.1269","features":["pfc","resize"],"extra":{"a":1}}`
	mt.RegisterResponder(http.MethodGet, testBase+"/version", func(r *http.Request) (*http.Response, error) {
		noCredentials(t, r)
		assert.Equal(t, "application/json", r.Header.Get("Accept"))
		return jsonAnswer(200, doc)(r)
	})
	v, err := c.Version(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "10.7.2.1269", v.SDKVersion)
	assert.True(t, v.HasFeature("RESIZE"))
	assert.JSONEq(t, doc, string(v.Raw))
	require.NoError(t, c.Health(t.Context()))

	mt.RegisterResponder(http.MethodGet, testBase+"/version", jsonAnswer(200, `{"features":[]}`))
	assert.ErrorContains(t, c.Health(t.Context()), "no SDK version")
	mt.RegisterResponder(http.MethodGet, testBase+"/version", httpmock.NewStringResponder(502, "bad gateway"))
	err = c.Health(t.Context())
	assert.ErrorIs(t, err, pfc.ErrServer)
	var ae *pfc.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 3, ae.Attempts, "a proxy's 502 is retried")
}

func TestCorrectFileOverTheWire(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	img := testPNG(t)
	src := filepath.Join(t.TempDir(), "in.png")
	require.NoError(t, os.WriteFile(src, img, 0o644))
	mt.RegisterResponder(http.MethodPut, testBase+"/pfc", jsonAnswer(200, `{"imageKey":"k.png"}`))
	mt.RegisterResponder(http.MethodGet, testBase+"/pfc/k.png?outputType=PNG",
		jsonAnswer(200, `{"corrected_url":"`+testBase+`/output/o.png","scene":2}`))
	mt.RegisterResponder(http.MethodGet, testBase+"/output/o.png", httpmock.NewBytesResponder(200, img))
	dst := filepath.Join(t.TempDir(), "out.png")
	corr, err := c.CorrectFile(context.Background(), src, dst, NewCorrection().WithOutput(pfc.OutputPNG, 0), nil)
	require.NoError(t, err)
	assert.Equal(t, Scene(2), corr.Scene)
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	assert.Equal(t, img, got)

	calls := mt.GetTotalCallCount()
	_, err = c.CorrectFile(context.Background(), "", "", &CorrectionOptions{Scale: -1}, nil)
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"srcPath", "dstPath", "scale"}, ve.Fields())
	assert.Equal(t, calls, mt.GetTotalCallCount())
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func TestDownloadSizeLimit(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	c, err := NewClient(pfc.WithBaseURL(testBase), pfc.WithHTTPClient(&http.Client{Transport: mt}), pfc.WithMaxDownloadSize(4))
	require.NoError(t, err)
	mt.RegisterResponder(http.MethodGet, "http://cdn.test/output/big.png", httpmock.NewBytesResponder(200, []byte("\x89PNG\r\n\x1a\n0123456789")))
	corr := &Correction{CorrectedURL: "http://cdn.test/output/big.png"}
	var buf bytes.Buffer
	_, err = c.Download(t.Context(), corr, &buf)
	var tl *pfc.DownloadTooLargeError
	require.ErrorAs(t, err, &tl)
	assert.ErrorIs(t, err, pfc.ErrDownloadTooLarge)
	assert.Equal(t, "big.png", tl.Name)
	assert.Equal(t, int64(4), tl.Limit)

	dst := filepath.Join(t.TempDir(), "big.png")
	_, err = c.DownloadFile(t.Context(), corr, dst)
	assert.ErrorIs(t, err, pfc.ErrDownloadTooLarge)
	assert.NoFileExists(t, dst)

	_, err = NewClient(pfc.WithBaseURL(testBase), pfc.WithMaxDownloadSize(-1))
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"MaxDownloadSize"}, ve.Fields())
}

// TestPublicErrorTypes: the errors users handle are this package's own
// types (the shared layers' internal ones converted), with hosted's field
// names.
func TestPublicErrorTypes(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	mt.RegisterResponder(http.MethodGet, testBase+"/version", httpmock.NewStringResponder(501, `{"code":"nope","message":"no"}`).
		HeaderSet(http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_1"}}))
	_, err := c.Version(t.Context())
	var ae *pfc.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, pfc.APIError{StatusCode: 501, Method: "GET", URL: testBase + "/version", Code: "nope", Message: "no",
		RequestID: "req_1", Body: []byte(`{"code":"nope","message":"no"}`), Attempts: 1}, *ae)
	assert.ErrorIs(t, err, pfc.ErrServer)
	assert.True(t, strings.HasPrefix(err.Error(), "pfc: GET "), err.Error())

	_, err = NewClient()
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []pfc.FieldError{{Field: "BaseURL", Message: "is required (use pfc.WithBaseURL)"}}, ve.Errors)
	assert.Equal(t, "pfc: invalid parameters: BaseURL: is required (use pfc.WithBaseURL)", err.Error())
}

// TestClientPrints: fmt with any verb, a copy, and slog show every
// replica's base URL with its weight, as bgcontainer's client does, and
// never the client's internals (%+v printed them); a nil *Client prints
// and logs as "<nil>".
func TestClientPrints(t *testing.T) {
	t.Parallel()
	c, err := NewClient(pfc.WithReplicas("http://127.0.0.1:1", "http://127.0.0.1:2"), pfc.WithReplicaWeight("http://127.0.0.1:2", 3), pfc.WithRetries(-1, 0, 0))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	want := "pfccontainer.Client(replicas http://127.0.0.1:1, http://127.0.0.1:2 (weight 3))"
	var logs bytes.Buffer
	var nilClient *Client
	slog.New(slog.NewTextHandler(&logs, nil)).Info("client", "c", c, "nil", nilClient)
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s %q %d", c, c, c, c, c, c), c.String(), fmt.Sprintf("%+v", *c)} {
		assert.Contains(t, s, want)
		assert.NotContains(t, s, "maxDownload")
	}
	assert.Contains(t, logs.String(), `c.replicas="replicas http://127.0.0.1:1, http://127.0.0.1:2 (weight 3)" c.rebase=false nil=<nil>`)
	assert.Equal(t, "pfccontainer.Client(http://127.0.0.1:2, rebased)", (&Client{base: "http://127.0.0.1:2", rebase: true}).String())
	assert.Equal(t, "pfccontainer.Client(http://u:xxxxx@h:1/?tok=REDACTED)", (&Client{base: "http://u:pw@h:1/?tok=s3cret"}).String())
	assert.Equal(t, "<nil>", fmt.Sprint(nilClient))
}
