package pfccontainer

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// The one HTTP test double of this file: httpmock (mockClient), standing
// in for a container whose /input and /output are real directories here.

func TestDirectPutIsAtomic(t *testing.T) {
	t.Parallel()
	c, _ := mockClient(t)
	in, out := t.TempDir(), t.TempDir()
	d := c.Direct(in, out)

	boom := errors.New("source broke")
	_, err := d.Put(t.Context(), "a.jpg", io.MultiReader(strings.NewReader("half"), &failingReader{boom}))
	assert.ErrorIs(t, err, boom)
	entries, _ := os.ReadDir(in)
	assert.Empty(t, entries, "neither the file nor a temporary is left")

	name, err := d.Put(t.Context(), "a.jpg", strings.NewReader("whole"))
	require.NoError(t, err)
	assert.Equal(t, "a.jpg", name)
	got, _ := os.ReadFile(filepath.Join(in, "a.jpg"))
	assert.Equal(t, "whole", string(got))

	_, err = d.Put(t.Context(), "../a.jpg", strings.NewReader("x"))
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"imageKey"}, ve.Fields())
	_, err = (&Direct{}).Put(t.Context(), "a.jpg", nil)
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"Client", "InputDir", "OutputDir", "src"}, ve.Fields())
}

type failingReader struct{ err error }

func (f *failingReader) Read([]byte) (int, error) { return 0, f.err }

// containerKey matches the name CorrectFile gives the source "shot 1.jpg"
// in /input (escaped in the request's path).
const containerKey = `pfc-[0-9a-f]{16}-1-shot%201\.jpg`

// TestDirectCorrectFile: the source reaches /input under a name of the
// call's own ending in its name, is corrected by that name, and is
// removed once corrected; a result left in /output is kept, one copied to
// dst is removed.
func TestDirectCorrectFile(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	in, out := t.TempDir(), t.TempDir()
	src := filepath.Join(t.TempDir(), "shot 1.jpg")
	require.NoError(t, os.WriteFile(src, []byte("jpeg"), 0o644))
	mt.RegisterRegexpResponder(http.MethodGet, regexp.MustCompile(`^`+regexp.QuoteMeta(testBase)+`/pfc/`+containerKey+`$`), func(r *http.Request) (*http.Response, error) {
		assert.Equal(t, "preserveInputFileName=true", r.URL.RawQuery, "sent unless the options say otherwise")
		key := path.Base(r.URL.Path)
		data, err := os.ReadFile(filepath.Join(in, key))
		require.NoError(t, err, "the file is in /input before the call")
		require.NoError(t, os.WriteFile(filepath.Join(out, key), append([]byte("corrected "), data...), 0o644))
		return jsonResp(200, `{"corrected_url":"http://localhost/output/`+url.PathEscape(key)+`","scene":1}`), nil
	})
	d := c.Direct(in, out)
	corr, err := d.CorrectFile(t.Context(), src, "", nil, nil)
	require.NoError(t, err)
	res := corr.Path
	assert.Equal(t, Scene(1), corr.Scene)
	assert.Equal(t, filepath.Join(out, corr.FileName()), res)
	assert.True(t, strings.HasSuffix(res, "-shot 1.jpg"), res)
	assertOnlyFiles(t, in)
	assertOnlyFiles(t, out, corr.FileName())

	dst := filepath.Join(t.TempDir(), "copy.jpg")
	copied, err := d.CorrectFile(t.Context(), src, dst, nil, nil)
	require.NoError(t, err)
	res = copied.Path
	assert.Equal(t, dst, res)
	got, _ := os.ReadFile(dst)
	assert.Equal(t, "corrected jpeg", string(got))
	assertOnlyFiles(t, in)
	assertOnlyFiles(t, out, corr.FileName())

	// An answer naming a file outside /output is refused.
	mt.RegisterResponder(http.MethodGet, testBase+"/pfc/shot%201.jpg",
		func(*http.Request) (*http.Response, error) {
			return jsonResp(200, `{"corrected_url":"http://localhost/output/..%2F..%2Fetc%2Fpasswd","scene":1}`), nil
		})
	_, err = d.GetCorrection(t.Context(), "shot 1.jpg", nil)
	assert.ErrorContains(t, err, "plain file")

	// Validation first: a bad option and no source.
	_, err = d.CorrectFile(t.Context(), "", "", &CorrectionOptions{OutputType: "gif"}, nil)
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"srcPath", "outputType"}, ve.Fields())
}

// TestRunNames: the names a run places in /input are unique, valid image
// keys within maxImageKeyLength that end in the source's name, cut on a
// character boundary (extension kept) where it is too long, and without
// it where it cannot be part of a key.
func TestRunNames(t *testing.T) {
	t.Parallel()
	a, b := newRunNames(), newRunNames()
	assert.NotEqual(t, a.prefix, b.prefix, "a token per run")
	assert.Regexp(t, `^pfc-[0-9a-f]{16}-$`, a.prefix)
	seen := map[string]bool{}
	for range 100 {
		for _, r := range []*runNames{a, b} {
			n := r.next("photo.jpg")
			assert.False(t, seen[n], n)
			seen[n] = true
		}
	}
	assert.Equal(t, a.prefix+"101-photo.jpg", a.next("photo.jpg"))

	long := strings.Repeat("é", 200) + ".jpeg" // 405 bytes
	for _, c := range []struct{ base, want string }{
		{".hidden.png", `\d+-\.hidden\.png$`},
		{"a:b.jpg", `\d+\.jpg$`},  // a colon, "..", control characters and
		{"a..b.PNG", `\d+\.PNG$`}, // invalid UTF-8 cannot be in a key
		{"ctl\x01.png", `\d+\.png$`},
		{"bad\xff.png", `\d+\.png$`},
		{"a:b.verylongextension", `\d+$`},
		{longName, `\d+-a+\.png$`},
		{long, `\d+-(é)+\.jpeg$`},
		{"x" + long, `\d+-x(é)+\.jpeg$`},
	} {
		n := a.next(c.base)
		require.NoError(t, ValidateImageKey(n), c.base)
		assert.Regexp(t, "^"+regexp.QuoteMeta(a.prefix)+c.want, n, c.base)
		assert.LessOrEqual(t, len(n), maxImageKeyLength, c.base)
		if len(c.base) > 200 {
			assert.GreaterOrEqual(t, len(n), maxImageKeyLength-1, "cut no more than needed: %s", c.base)
		}
	}
}

// TestNilContextIsAValidationError: a nil context is refused as a
// *pfc.ValidationError naming ctx by every call, Direct.Put included (it used
// to panic in its copy loop), before anything is written or sent.
func TestNilContextIsAValidationError(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	var nilCtx context.Context
	img := testPNG(t)
	in := t.TempDir()
	calls := map[string]func() error{
		"Upload":        func() error { _, err := c.Upload(nilCtx, bytes.NewReader(img), int64(len(img)), ""); return err },
		"GetCorrection": func() error { _, err := c.GetCorrection(nilCtx, "k.jpg", nil); return err },
		"Version":       func() error { _, err := c.Version(nilCtx); return err },
		"Download": func() error {
			_, err := c.Download(nilCtx, &Correction{CorrectedURL: testBase + "/output/a.jpg"}, io.Discard)
			return err
		},
		"Direct.Put": func() error {
			_, err := c.Direct(in, t.TempDir()).Put(nilCtx, "a.png", bytes.NewReader(img))
			return err
		},
		"Direct.Corr": func() error { _, err := c.Direct(in, t.TempDir()).GetCorrection(nilCtx, "a.png", nil); return err },
		"Correct": func() error {
			_, err := c.Correct(nilCtx, bytes.NewReader(img), int64(len(img)), nil, io.Discard, nil)
			return err
		},
		"CorrectFile": func() error {
			_, err := c.CorrectFile(nilCtx, filepath.Join(in, "a.png"), filepath.Join(t.TempDir(), "a.png"), nil, nil)
			return err
		},
		"DownloadFile": func() error {
			_, err := c.DownloadFile(nilCtx, &Correction{CorrectedURL: testBase + "/output/a.jpg"}, filepath.Join(t.TempDir(), "a.jpg"))
			return err
		},
	}
	for name, call := range calls {
		var ve *pfc.ValidationError
		require.ErrorAs(t, call(), &ve, name)
		assert.Contains(t, ve.Fields(), "ctx", name)
	}
	assert.Zero(t, mt.GetTotalCallCount())
	entries, _ := os.ReadDir(in)
	assert.Empty(t, entries)
}
