package pfcmock_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/internal/containersvc"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
)

func containerJPEG(t *testing.T) []byte {
	var b bytes.Buffer
	img := image.NewGray(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7 % 251)
	}
	require.NoError(t, jpeg.Encode(&b, img, nil))
	return b.Bytes()
}

func TestPFCContainerPrivateTreeIsLicensedAndRemoved(t *testing.T) {
	t.Parallel()
	c, err := pfcmock.New(pfcmock.Options{PreserveInputFileName: true})
	require.NoError(t, err)
	srv := httptest.NewServer(c)
	defer srv.Close()
	root := c.Root()
	assert.DirExists(t, c.PresetsDir())

	require.NoError(t, os.WriteFile(filepath.Join(c.InputDir(), "a.jpg"), containerJPEG(t), 0o644))
	resp, err := srv.Client().Get(srv.URL + "/pfc/a.jpg")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.JSONEq(t, `{"corrected_url":"http://localhost/output/a.jpg","scene":`+scene(t, body)+`}`, string(body))
	assert.FileExists(t, filepath.Join(c.OutputDir(), "a.jpg"))

	resp, err = srv.Client().Get(srv.URL + "/version")
	require.NoError(t, err)
	var v struct {
		License struct{ Valid bool } `json:"license"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&v))
	resp.Body.Close()
	assert.True(t, v.License.Valid)

	srv.Close()
	require.NoError(t, c.Close())
	require.NoError(t, c.Close())
	assert.NoDirExists(t, root)
}

func scene(t *testing.T, body []byte) string {
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &m))
	return string(m["scene"])
}

func TestPFCContainerGivenRootUnlicensed(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "container")
	var logs bytes.Buffer
	c, err := pfcmock.New(pfcmock.Options{Root: root, Unlicensed: true, LogWriter: &logs})
	require.NoError(t, err)
	defer c.Close()
	srv := httptest.NewServer(c)
	defer srv.Close()
	src := containerJPEG(t)
	resp, err := srv.Client().Post(srv.URL+"/pfc", "image/jpeg", bytes.NewReader(src))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	req, _ := http.NewRequest(http.MethodPut, srv.URL+"/pfc", bytes.NewReader(src))
	req.Header.Set("Content-Type", "image/jpeg")
	resp, err = srv.Client().Do(req)
	require.NoError(t, err)
	var up struct{ ImageKey string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&up))
	resp.Body.Close()
	resp, err = srv.Client().Get(srv.URL + "/pfc/" + up.ImageKey)
	require.NoError(t, err)
	var corr struct {
		CorrectedURL string `json:"corrected_url"`
		Scene        int
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&corr))
	resp.Body.Close()
	assert.Equal(t, -1, corr.Scene)
	resp, err = srv.Client().Get(srv.URL + strings.TrimPrefix(corr.CorrectedURL, "http://localhost"))
	require.NoError(t, err)
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, src, got, "unlicensed: byte-identical")
	srv.Close() // waits for the handlers: the log lines are written
	assert.Contains(t, logs.String(), `"msg":"licenseMessage"`)

	require.NoError(t, c.Close())
	assert.DirExists(t, root, "a given root is kept")
}

func TestPFCContainerInvalidOptions(t *testing.T) {
	t.Parallel()
	_, err := pfcmock.New(pfcmock.Options{SiteURL: "localhost", SkipMode: "x"})
	require.ErrorIs(t, err, mockserver.ErrInvalidOptions)
	assert.Contains(t, err.Error(), "PFC_SITE_URL")
	assert.Contains(t, err.Error(), "PFC_SKIP_MODE")
}

func TestPFCContainerOptionsFromEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PFC_SITE_URL": "http://gw:8080", "PFC_IMG_CACHE_TTL": "5", "PFC_PRESERVE_INPUT_FILENAME": "true",
		"PFC_LOG_LEVEL": "chatty", "PFC_ENABLE_COMPOSITE": "false"}
	o, err := pfcmock.OptionsFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	assert.Equal(t, "http://gw:8080", o.SiteURL)
	assert.Equal(t, 5*time.Minute, o.ImageTTL)
	assert.True(t, o.PreserveInputFileName)
	assert.Equal(t, "chatty", o.LogLevel, "the fallback happens at start, with its warning")
	require.NotNil(t, o.EnableComposite)
	assert.False(t, *o.EnableComposite)

	var logs bytes.Buffer
	o.Root, o.LogWriter = filepath.Join(t.TempDir(), "c"), &logs
	c, err := pfcmock.New(o)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	assert.Contains(t, logs.String(), `"level":"warning","msg":"unknownLogLevelMessage"`)
	assert.FileExists(t, filepath.Join(c.LicenseDir(), "pfc-mock.lic"), "a tree the mock creates is licensed")

	_, err = pfcmock.OptionsFromEnv(func(k string) string {
		if k == "PFC_AVX" {
			return "sometimes"
		}
		return ""
	})
	require.ErrorIs(t, err, mockserver.ErrInvalidOptions)
	assert.Contains(t, err.Error(), "PFC_AVX")
}

// TestPFCContainerLogsInjectedFaults: each injected fault is one warning
// line of the container's JSON log (faultInjectedMessage) naming the
// route and kind, without the path or query of the request.
func TestPFCContainerLogsInjectedFaults(t *testing.T) {
	t.Parallel()
	spec, err := mockserver.ParseFaults("container:rate=1,kinds=503,routes=correct|version")
	require.NoError(t, err)
	var logs bytes.Buffer
	c, err := pfcmock.New(pfcmock.Options{LogWriter: &logs, Faults: spec})
	require.NoError(t, err)
	defer c.Close()
	for _, target := range []string{"/pfc/secret-key.jpg?preset=secret-preset", "/version", "/output/none.jpg"} {
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		if target == "/output/none.jpg" {
			assert.Equal(t, http.StatusNotFound, rec.Code, "no fault on this route")
		} else {
			assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
		}
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		if m["msg"] == "faultInjectedMessage" {
			lines = append(lines, m)
		}
	}
	require.Len(t, lines, 2, logs.String())
	for i, route := range []string{"correct", "version"} {
		assert.Equal(t, "warning", lines[i]["level"])
		assert.Equal(t, route, lines[i]["route"])
		assert.Equal(t, "503", lines[i]["kind"])
		assert.Equal(t, "GET", lines[i]["method"])
	}
	assert.NotContains(t, logs.String(), "secret")
}

// TestOptionsIsTheServiceConfig: Options is the service core's own
// configuration, not a copy of its PFC_* fields kept in step by hand; and
// OptionsFromEnv hands back every PFC_* variable read.
func TestOptionsIsTheServiceConfig(t *testing.T) {
	t.Parallel()
	assert.Equal(t, reflect.TypeFor[containersvc.Config]().String(), reflect.TypeFor[pfcmock.Options]().String())
	assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", pfcmock.Options{SiteURL: "http://x"}), "pfcmock.Options{Root:"))
	env := map[string]string{"PFC_SITE_URL": "http://pfc.local", "PFC_SKIP_MODE": "legacy", "PFC_PRESERVE_INPUT_FILENAME": "true"}
	opts, err := pfcmock.OptionsFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	assert.Equal(t, "http://pfc.local", opts.SiteURL)
	assert.Equal(t, "legacy", opts.SkipMode)
	assert.True(t, opts.PreserveInputFileName)
}
