package hosted

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testKey  = "sk-test-secret-key-1234"
	basePath = "/v2"
)

// setup starts an httptest server whose mux serves the API under /v2 and
// fails the test on any request outside it (a base-path guard), and returns
// a client pointed at it with millisecond retries.
func setup(t *testing.T) (*Client, *http.ServeMux, *httptest.Server) {
	t.Helper()
	apiMux := http.NewServeMux()
	root := http.NewServeMux()
	root.Handle(basePath+"/", http.StripPrefix(basePath, apiMux))
	root.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the base path: %s %s", r.Method, r.URL)
		http.Error(w, "outside base path", http.StatusBadGateway)
	})
	srv := httptest.NewServer(root)
	t.Cleanup(srv.Close)
	c, err := NewClient(testKey,
		WithBaseURL(srv.URL+basePath),
		WithRetries(2, time.Millisecond, 2*time.Millisecond),
		WithPolling(WaitOptions{MinDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}),
	)
	require.NoError(t, err)
	return c, apiMux, srv
}

// mockClient returns a client whose HTTP traffic goes to a fresh httpmock
// transport.
func mockClient(t *testing.T) (*Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	c, err := NewClient(testKey,
		WithBaseURL("https://api.example.test/v2"),
		WithHTTPClient(&http.Client{Transport: mt}),
		WithRetries(2, time.Millisecond, 2*time.Millisecond),
		WithPolling(WaitOptions{MinDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}),
	)
	require.NoError(t, err)
	return c, mt
}

// expect registers a responder that also checks the API key header.
func expectAPI(t *testing.T, mt *httpmock.MockTransport, method, rawURL string, status int, body any) {
	t.Helper()
	mt.RegisterResponder(method, rawURL, func(r *http.Request) (*http.Response, error) {
		assert.Equal(t, testKey, r.Header.Get("X-API-KEY"), "API calls carry the key")
		assert.True(t, strings.HasPrefix(r.Header.Get("User-Agent"), "pfc-go/"), "User-Agent")
		return httpmock.NewJsonResponse(status, body)
	})
}

// expectExternal registers a responder that fails if the API key is sent.
func expectExternal(t *testing.T, mt *httpmock.MockTransport, method, rawURL string, fn func(r *http.Request) (*http.Response, error)) {
	t.Helper()
	mt.RegisterResponder(method, rawURL, func(r *http.Request) (*http.Response, error) {
		assert.Empty(t, r.Header.Get("X-API-KEY"), "the API key must not reach %s", r.URL.Host)
		return fn(r)
	})
}

func TestNewClientValidation(t *testing.T) {
	_, err := NewClient("")
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.ElementsMatch(t, []string{"apiKey", "BaseURL"}, ve.Fields())
	assert.ErrorIs(t, err, ErrInvalidParameter)

	_, err = NewClient(testKey, WithBaseURL("https://x.test/v2"), WithPolling(WaitOptions{MinDelay: time.Second, MaxDelay: time.Millisecond}))
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"MaxDelay"}, ve.Fields())
}

func TestRequestUpload(t *testing.T) {
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", "https://api.example.test/v2/upload?fileType=video", 200,
		map[string]string{"fileKey": "fk1", "uploadUrl": "https://store.test/u/fk1?sig=abc"})
	tk, err := c.RequestUpload(context.Background(), FileTypeVideo)
	require.NoError(t, err)
	assert.Equal(t, &UploadTicket{FileKey: "fk1", UploadURL: "https://store.test/u/fk1?sig=abc"}, tk)

	// Default file type: no query parameter at all.
	expectAPI(t, mt, "GET", "https://api.example.test/v2/upload", 200,
		map[string]string{"fileKey": "fk2", "uploadUrl": "https://store.test/u/fk2"})
	tk, err = c.RequestUpload(context.Background(), "")
	require.NoError(t, err)
	assert.Equal(t, "fk2", tk.FileKey)

	_, err = c.RequestUpload(context.Background(), "gif")
	assert.ErrorIs(t, err, ErrInvalidParameter)
	assert.Equal(t, 2, mt.GetTotalCallCount(), "an invalid fileType sends nothing")
}

func TestUploadToSendsNoKeyAndExactLength(t *testing.T) {
	c, mt := mockClient(t)
	payload := bytes.Repeat([]byte("pixel"), 1000)
	expectExternal(t, mt, "PUT", "https://store.test/u/fk1?sig=abc", func(r *http.Request) (*http.Response, error) {
		assert.Equal(t, int64(len(payload)), r.ContentLength)
		assert.Equal(t, "image/jpeg", r.Header.Get("Content-Type"))
		got, _ := io.ReadAll(r.Body)
		assert.Equal(t, payload, got)
		return httpmock.NewStringResponse(200, ""), nil
	})
	err := c.UploadTo(context.Background(), &UploadTicket{FileKey: "fk1", UploadURL: "https://store.test/u/fk1?sig=abc"},
		bytes.NewReader(payload), int64(len(payload)), "image/jpeg")
	require.NoError(t, err)

	var ve *ValidationError
	err = c.UploadTo(context.Background(), &UploadTicket{}, nil, -1, "")
	require.ErrorAs(t, err, &ve)
	assert.ElementsMatch(t, []string{"uploadUrl", "src", "size"}, ve.Fields())
}

func TestUploadErrorRedactsSignature(t *testing.T) {
	c, mt := mockClient(t)
	expectExternal(t, mt, "PUT", `=~^https://store\.test/`, func(r *http.Request) (*http.Response, error) {
		return httpmock.NewStringResponse(403, "<Error><Code>SignatureDoesNotMatch</Code><Message>bad signature</Message></Error>"), nil
	})
	err := c.UploadTo(context.Background(), &UploadTicket{UploadURL: "https://store.test/u/k?X-Signature=topsecretsignature99"},
		strings.NewReader("abc"), 3, "")
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 403, apiErr.StatusCode)
	assert.ErrorIs(t, err, ErrUnauthorized)
	assert.NotContains(t, err.Error(), "topsecretsignature99")
	assert.NotContains(t, apiErr.URL, "topsecretsignature99")
}

func TestStartJobQuery(t *testing.T) {
	c, mt := mockClient(t)
	var gotQuery string
	mt.RegisterResponder("GET", `=~^https://api\.example\.test/v2/pfc\?`, func(r *http.Request) (*http.Response, error) {
		assert.Equal(t, testKey, r.Header.Get("X-API-KEY"))
		gotQuery = r.URL.RawQuery
		return httpmock.NewJsonResponse(200, map[string]string{"statusEndpoint": "https://api.example.test/v2/status/job-42"})
	})
	opts := NewCorrection("fk 1").WithPreset(PresetSchoolAndSports).ResizeLong(1200).WithCache(false)
	ref, err := c.StartJob(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, "job-42", ref.ID)
	want, err := opts.Query()
	require.NoError(t, err)
	assert.Equal(t, want, gotQuery)
	assert.Contains(t, gotQuery, "preset=School%20and%20Sports")
	assert.Contains(t, gotQuery, "cache=false")
	assert.Contains(t, gotQuery, "fileKey=fk%201")
}

func TestStartJobValidatesLocally(t *testing.T) {
	c, mt := mockClient(t)
	opts := &CorrectionOptions{FileKey: "k", Width: 5, OutputQuality: 101, WebhookURL: "http://plain.test/hook"}
	_, err := c.StartJob(context.Background(), opts)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.ElementsMatch(t, []string{"width", "outputQuality", "webhookUrl"}, ve.Fields())
	assert.Zero(t, mt.GetTotalCallCount(), "nothing is sent for invalid options")

	_, err = c.StartJob(context.Background(), nil)
	assert.ErrorIs(t, err, ErrInvalidParameter)
}

func TestStartJobBadEndpoint(t *testing.T) {
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", `=~/v2/pfc`, 200, map[string]string{"statusEndpoint": ""})
	_, err := c.StartJob(context.Background(), NewCorrection("k"))
	assert.ErrorContains(t, err, "statusEndpoint")
}

func TestGetJobAlwaysNoRedirect(t *testing.T) {
	c, mt := mockClient(t)
	created := time.Date(2026, 11, 22, 10, 4, 5, 123e6, time.UTC)
	expectAPI(t, mt, "GET", "https://api.example.test/v2/status/j%2F1?noRedirect=true", 200, map[string]any{
		"_id": "j/1", "status": "PROCESSING", "statusText": "", "code": 0,
		"createdAt": "2026-11-22T10:04:05.123Z", "updatedAt": "2026-11-22T10:04:06.000Z",
	})
	job, err := c.GetJob(context.Background(), "j/1")
	require.NoError(t, err)
	assert.Equal(t, StatusProcessing, job.Status)
	assert.True(t, job.CreatedAt.Equal(created))
	assert.False(t, job.Status.Terminal())
}

func TestGetJob302IsCompletionAndNotFollowed(t *testing.T) {
	c, mt := mockClient(t)
	mt.RegisterResponder("GET", "https://api.example.test/v2/status/j1?noRedirect=true", func(r *http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(302, "")
		resp.Header.Set("Location", "https://files.other.test/out/j1.jpg")
		return resp, nil
	})
	mt.RegisterResponder("GET", `=~^https://files\.other\.test/`, func(r *http.Request) (*http.Response, error) {
		t.Errorf("the redirect must not be followed (key %q)", r.Header.Get("X-API-KEY"))
		return httpmock.NewStringResponse(200, ""), nil
	})
	job, err := c.GetJob(context.Background(), "j1")
	require.NoError(t, err)
	assert.Equal(t, &Job{ID: "j1", Status: StatusCompleted, CorrectedFile: "https://files.other.test/out/j1.jpg"}, job)
}

func TestGetJobNotFound(t *testing.T) {
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", `=~/v2/status/nope`, 404, map[string]any{"message": "no such job", "code": "not_found"})
	_, err := c.GetJob(context.Background(), "nope")
	assert.ErrorIs(t, err, ErrNotFound)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "no such job", apiErr.Message)
	assert.NotContains(t, err.Error(), testKey)

	_, err = c.GetJob(context.Background(), "")
	assert.ErrorIs(t, err, ErrInvalidParameter)
}

func jobJSON(id string, status JobStatus, extra map[string]any) map[string]any {
	m := map[string]any{"_id": id, "status": status, "statusText": "", "code": 0,
		"createdAt": "2026-11-22T10:00:00.000Z", "updatedAt": "2026-11-22T10:00:01.000Z"}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func TestDownloadSendsNoKey(t *testing.T) {
	c, mt := mockClient(t)
	expectExternal(t, mt, "GET", "https://files.test/j1.jpg", func(r *http.Request) (*http.Response, error) {
		return httpmock.NewStringResponse(200, "corrected-bytes"), nil
	})
	var buf bytes.Buffer
	n, err := c.Download(context.Background(), &Job{ID: "j1", Status: StatusCompleted, CorrectedFile: "https://files.test/j1.jpg"}, &buf)
	require.NoError(t, err)
	assert.Equal(t, int64(15), n)
	assert.Equal(t, "corrected-bytes", buf.String())

	_, err = c.Download(context.Background(), &Job{ID: "j2", Status: StatusProcessing}, &buf)
	assert.ErrorContains(t, err, "no correctedFile")
	_, err = c.Download(context.Background(), nil, &buf)
	assert.Error(t, err)
}

func TestPresetsWire(t *testing.T) {
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", "https://api.example.test/v2/presets?limit=5&offset=10", 200, map[string]any{
		"presets": []map[string]any{{"presetId": "p1", "name": "Warm", "description": "d", "createdAt": "x"}}, "total": 11,
	})
	page, err := c.Presets.List(context.Background(), &ListPresetsOptions{Limit: 5, Offset: 10})
	require.NoError(t, err)
	require.Len(t, page.Presets, 1)
	assert.Equal(t, "p1", page.Presets[0].ID)
	assert.Equal(t, 11, page.Total)
	assert.JSONEq(t, `"x"`, string(page.Presets[0].Extra["createdAt"]))

	expectAPI(t, mt, "GET", "https://api.example.test/v2/presets/p%201", 200, map[string]any{"presetId": "p 1", "name": "Warm"})
	p, err := c.Presets.Get(context.Background(), "p 1")
	require.NoError(t, err)
	assert.Equal(t, "Warm", p.Name)
	assert.Nil(t, p.Extra)

	expectAPI(t, mt, "DELETE", "https://api.example.test/v2/presets/p1", 200, map[string]any{"deleted": true})
	require.NoError(t, c.Presets.Delete(context.Background(), "p1"))

	_, err = c.Presets.List(context.Background(), &ListPresetsOptions{Limit: -1})
	assert.ErrorIs(t, err, ErrInvalidParameter)
}

func TestPresetPageShapes(t *testing.T) {
	for _, body := range []string{
		`[{"presetId":"a"},{"presetId":"b"}]`,
		`{"items":[{"presetId":"a"},{"presetId":"b"}]}`,
		`{"data":[{"presetId":"a"},{"presetId":"b"}],"total":2}`,
	} {
		page, err := decodePresetPage(json.RawMessage(body))
		require.NoError(t, err, body)
		require.Len(t, page.Presets, 2, body)
		assert.Equal(t, "b", page.Presets[1].ID)
	}
	_, err := decodePresetPage(json.RawMessage(`"nope"`))
	assert.Error(t, err)
}

func TestPresetsAllPages(t *testing.T) {
	c, mt := mockClient(t)
	const total = 7
	mt.RegisterResponder("GET", `=~^https://api\.example\.test/v2/presets\?`, func(r *http.Request) (*http.Response, error) {
		q := r.URL.Query()
		var limit, offset int
		fmt.Sscan(q.Get("limit"), &limit)
		fmt.Sscan(q.Get("offset"), &offset)
		var items []map[string]any
		for i := offset; i < min(offset+limit, total); i++ {
			items = append(items, map[string]any{"presetId": fmt.Sprintf("p%d", i)})
		}
		return httpmock.NewJsonResponse(200, map[string]any{"presets": items})
	})
	var ids []string
	for p, err := range c.Presets.All(context.Background(), 3) {
		require.NoError(t, err)
		ids = append(ids, p.ID)
	}
	assert.Equal(t, []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6"}, ids)
	assert.Equal(t, 3, mt.GetTotalCallCount(), "pages of 3, 3 and 1")

	// Breaking out early stops fetching.
	mt.ZeroCallCounters()
	for range c.Presets.All(context.Background(), 3) {
		break
	}
	assert.Equal(t, 1, mt.GetTotalCallCount())
}

func TestPresetsAllYieldsError(t *testing.T) {
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", `=~/v2/presets`, 401, map[string]any{"message": "bad key"})
	var errs []error
	for p, err := range c.Presets.All(context.Background(), 0) {
		assert.Nil(t, p)
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrUnauthorized)
}

func TestPresetCreateTwoSteps(t *testing.T) {
	c, mt := mockClient(t)
	mt.RegisterResponder("POST", "https://api.example.test/v2/presets/", func(r *http.Request) (*http.Response, error) {
		assert.Equal(t, testKey, r.Header.Get("X-API-KEY"))
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
		var body map[string]any
		require.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		assert.Equal(t, map[string]any{"name": "Warm", "description": "warmer"}, body)
		return httpmock.NewJsonResponse(200, map[string]string{"presetId": "p9", "uploadUrl": "https://store.test/presets/p9?sig=s3cr3tsig"})
	})
	content := []byte("cast = 0.5\n")
	expectExternal(t, mt, "PUT", "https://store.test/presets/p9?sig=s3cr3tsig", func(r *http.Request) (*http.Response, error) {
		got, _ := io.ReadAll(r.Body)
		assert.Equal(t, content, got)
		assert.Equal(t, int64(len(content)), r.ContentLength)
		return httpmock.NewStringResponse(200, ""), nil
	})
	p, err := c.Presets.Create(context.Background(), CreatePresetRequest{Name: "Warm", Description: "warmer", FileName: "warm.preset"},
		bytes.NewReader(content), int64(len(content)))
	require.NoError(t, err)
	assert.Equal(t, "p9", p.ID)
	assert.Equal(t, "Warm", p.Name)
}

func TestPresetCreateRefusesBadInputBeforeAnyRequest(t *testing.T) {
	c, mt := mockClient(t)
	_, err := c.Presets.Create(context.Background(), CreatePresetRequest{Name: "", FileName: "warm.txt"}, strings.NewReader("x"), 1)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.ElementsMatch(t, []string{"name", "fileName"}, ve.Fields())
	_, err = c.Presets.CreateFromFile(context.Background(), "n", "", "/does/not/exist/preset.xmp")
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"fileName"}, ve.Fields())
	assert.Zero(t, mt.GetTotalCallCount())
}

func TestPresetCreateUploadFailureRemovesPreset(t *testing.T) {
	c, mt := mockClient(t)
	expectAPI(t, mt, "POST", "https://api.example.test/v2/presets/", 200, map[string]string{"presetId": "p9", "uploadUrl": "https://store.test/p9"})
	expectExternal(t, mt, "PUT", "https://store.test/p9", func(r *http.Request) (*http.Response, error) {
		return httpmock.NewStringResponse(403, "expired"), nil
	})
	expectAPI(t, mt, "DELETE", "https://api.example.test/v2/presets/p9", 200, map[string]any{})
	_, err := c.Presets.Create(context.Background(), CreatePresetRequest{Name: "Warm", FileName: "w.pcp"}, strings.NewReader("x"), 1)
	assert.ErrorIs(t, err, ErrUnauthorized)
	assert.ErrorContains(t, err, "p9 removed")
	assert.Equal(t, 1, mt.GetCallCountInfo()["DELETE https://api.example.test/v2/presets/p9"])
}

// fakeService is a tiny stateful stand-in of the hosted API on httptest,
// enough to drive Correct end to end over real HTTP.
func fakeService(t *testing.T, mux *http.ServeMux, srvURL string, finalStatus JobStatus) *atomic.Int32 {
	var polls atomic.Int32
	stored := map[string][]byte{}
	mux.HandleFunc("GET /upload", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, testKey, r.Header.Get("X-API-KEY"))
		json.NewEncoder(w).Encode(UploadTicket{FileKey: "fk1", UploadURL: srvURL + "/v2/store/fk1?sig=abc"})
	})
	mux.HandleFunc("PUT /store/{key}", func(w http.ResponseWriter, r *http.Request) {
		assert.Empty(t, r.Header.Get("X-API-KEY"))
		b, _ := io.ReadAll(r.Body)
		stored[r.PathValue("key")] = b
	})
	mux.HandleFunc("GET /pfc", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "fk1", r.URL.Query().Get("fileKey"))
		json.NewEncoder(w).Encode(map[string]string{"statusEndpoint": srvURL + "/v2/status/j1"})
	})
	mux.HandleFunc("GET /status/j1", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "true", r.URL.Query().Get("noRedirect"))
		s := StatusProcessing
		if polls.Add(1) >= 3 {
			s = finalStatus
		}
		json.NewEncoder(w).Encode(jobJSON("j1", s, map[string]any{"correctedFile": srvURL + "/v2/files/j1"}))
	})
	mux.HandleFunc("GET /files/j1", func(w http.ResponseWriter, r *http.Request) {
		assert.Empty(t, r.Header.Get("X-API-KEY"))
		w.Write(bytes.ToUpper(stored["fk1"]))
	})
	return &polls
}

func TestCorrectEndToEnd(t *testing.T) {
	c, mux, srv := setup(t)
	polls := fakeService(t, mux, srv.URL, StatusCompleted)
	var out bytes.Buffer
	src := []byte("raw image bytes")
	job, err := c.Correct(context.Background(), bytes.NewReader(src), int64(len(src)), NewCorrection("").WithPreset(PresetPro), &out)
	require.NoError(t, err)
	assert.Equal(t, StatusCompleted, job.Status)
	assert.Equal(t, "RAW IMAGE BYTES", out.String())
	assert.Equal(t, int32(3), polls.Load())
}

func TestCorrectValidatesBeforeUpload(t *testing.T) {
	c, mt := mockClient(t)
	_, err := c.Correct(context.Background(), strings.NewReader("x"), 1, &CorrectionOptions{Scale: -5}, io.Discard)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"scale"}, ve.Fields())
	assert.Zero(t, mt.GetTotalCallCount())
}

func TestCorrectFileAtomic(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jpg")
	require.NoError(t, os.WriteFile(in, []byte("abc"), 0o600))

	t.Run("success", func(t *testing.T) {
		c, mux, srv := setup(t)
		fakeService(t, mux, srv.URL, StatusCompleted)
		out := filepath.Join(dir, "ok.jpg")
		_, err := c.CorrectFile(context.Background(), in, out, nil)
		require.NoError(t, err)
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Equal(t, "ABC", string(got))
		st, err := os.Stat(out)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())

		require.NoError(t, os.Chmod(out, 0o600))
		_, err = c.CorrectFile(context.Background(), in, out, nil)
		require.NoError(t, err)
		st, err = os.Stat(out)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "an overwritten file keeps its mode")
	})
	t.Run("failed job leaves nothing", func(t *testing.T) {
		c, mux, srv := setup(t)
		fakeService(t, mux, srv.URL, StatusFailed)
		out := filepath.Join(dir, "bad.jpg")
		_, err := c.CorrectFile(context.Background(), in, out, nil)
		assert.ErrorIs(t, err, ErrJobFailed)
		_, statErr := os.Stat(out)
		assert.ErrorIs(t, statErr, os.ErrNotExist)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			assert.False(t, strings.HasSuffix(e.Name(), ".partial"), "temporary file left: %s", e.Name())
		}
	})
}

func TestFileTypeAndContentType(t *testing.T) {
	assert.Equal(t, FileTypeVideo, fileTypeOf("a/b.MOV"))
	assert.Equal(t, FileTypeImage, fileTypeOf("a/b.jpeg"))
	assert.Equal(t, "image/png", contentTypeOf("x.PNG"))
	assert.Equal(t, "video/mp4", contentTypeOf("x.mp4"))
}

func TestRedirectToOtherHostNeverCarriesKey(t *testing.T) {
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-KEY") != "" {
			leaked.Store(true)
		}
		json.NewEncoder(w).Encode(UploadTicket{FileKey: "k", UploadURL: "https://x.test/u"})
	}))
	defer other.Close()
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /upload", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/upload", http.StatusTemporaryRedirect)
	})
	_, err := c.RequestUpload(context.Background(), "")
	require.NoError(t, err)
	assert.False(t, leaked.Load(), "X-API-KEY crossed to another host")
}

func TestTimestampJSON(t *testing.T) {
	ts := Timestamp{time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600))}
	b, err := json.Marshal(ts)
	require.NoError(t, err)
	assert.Equal(t, `"2026-01-02T02:04:05.000Z"`, string(b))
	var back Timestamp
	require.NoError(t, json.Unmarshal([]byte(`"2026-01-02T02:04:05Z"`), &back))
	assert.True(t, back.Equal(ts.Time))
	require.NoError(t, json.Unmarshal([]byte(`""`), &back))
	assert.True(t, back.IsZero())
	assert.Error(t, json.Unmarshal([]byte(`"yesterday"`), &back))
	assert.Error(t, json.Unmarshal([]byte(`12`), &back))
}

func TestCorrectRejectsBadSourceWithoutPanicking(t *testing.T) {
	c, mt := mockClient(t)
	var ve *ValidationError
	_, err := c.Correct(context.Background(), nil, -1, nil, io.Discard)
	require.ErrorAs(t, err, &ve)
	assert.ElementsMatch(t, []string{"src", "size"}, ve.Fields())
	assert.Zero(t, mt.GetTotalCallCount())
}

func TestPresetCreateClearsUploadURL(t *testing.T) {
	c, mt := mockClient(t)
	expectAPI(t, mt, "POST", "https://api.example.test/v2/presets/", 200, map[string]string{"presetId": "p1", "uploadUrl": "https://store.test/p1?sig=s"})
	expectExternal(t, mt, "PUT", "https://store.test/p1?sig=s", func(r *http.Request) (*http.Response, error) {
		return httpmock.NewStringResponse(200, ""), nil
	})
	p, err := c.Presets.Create(context.Background(), CreatePresetRequest{Name: "n", FileName: "n.pcp"}, strings.NewReader("x"), 1)
	require.NoError(t, err)
	assert.Empty(t, p.UploadURL, "the pre-signed URL is not handed back")
}

func TestPresetsAllStopsWhenOffsetIsIgnored(t *testing.T) {
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", `=~/v2/presets`, 200, map[string]any{
		"presets": []map[string]any{{"presetId": "a"}, {"presetId": "b"}},
	})
	var ids []string
	var lastErr error
	for p, err := range c.Presets.All(context.Background(), 2) {
		if err != nil {
			lastErr = err
			break
		}
		ids = append(ids, p.ID)
	}
	assert.Equal(t, []string{"a", "b"}, ids)
	assert.ErrorContains(t, lastErr, "repeats the previous page")
	assert.Equal(t, 2, mt.GetTotalCallCount())
}

func TestStartJobRedactsWebhookToken(t *testing.T) {
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", `=~/v2/pfc`, 500, map[string]any{"message": "boom"})
	_, err := c.StartJob(context.Background(), NewCorrection("k").WithWebhook("https://hooks.test/h?token=very-secret-token"))
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.NotContains(t, err.Error(), "very-secret-token")
	assert.NotContains(t, apiErr.URL, "very-secret-token")
}

func TestCorrectFileRejectsNonRegularSource(t *testing.T) {
	c, mt := mockClient(t)
	dir := t.TempDir()
	_, err := c.CorrectFile(context.Background(), dir, filepath.Join(dir, "out.jpg"), nil)
	assert.ErrorIs(t, err, ErrInvalidParameter)
	assert.ErrorContains(t, err, "srcPath")
	_, err = c.UploadFile(context.Background(), filepath.Join(dir, "missing.jpg"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.Zero(t, mt.GetTotalCallCount(), "nothing sent")
}
