package hosted

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

func TestPresetsWire(t *testing.T) {
	t.Parallel()
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
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
}

func TestPresetPageShapes(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", `=~/v2/presets`, 401, map[string]any{"message": "bad key"})
	var errs []error
	for p, err := range c.Presets.All(context.Background(), 0) {
		assert.Nil(t, p)
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], pfc.ErrUnauthorized)
}

func TestPresetCreateTwoSteps(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	c, mt := mockClient(t)
	_, err := c.Presets.Create(context.Background(), CreatePresetRequest{Name: "", FileName: "warm.txt"}, strings.NewReader("x"), 1)
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.ElementsMatch(t, []string{"name", "fileName"}, ve.Fields())
	_, err = c.Presets.CreateFromFile(context.Background(), "n", "", "/does/not/exist/preset.xmp")
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"fileName"}, ve.Fields())

	// A directory with a preset's extension is refused before the preset
	// is created, and a missing file keeps its cause.
	dir := filepath.Join(t.TempDir(), "warm.pcp")
	require.NoError(t, os.Mkdir(dir, 0o700))
	_, err = c.Presets.CreateFromFile(context.Background(), "n", "", dir)
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
	assert.ErrorContains(t, err, "path")
	_, err = c.Presets.CreateFromFile(context.Background(), "n", "", filepath.Join(dir, "missing.pcp"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Zero(t, mt.GetTotalCallCount())
}

func TestPresetCreateUploadFailureRemovesPreset(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	expectAPI(t, mt, "POST", "https://api.example.test/v2/presets/", 200, map[string]string{"presetId": "p9", "uploadUrl": "https://store.test/p9"})
	expectExternal(t, mt, "PUT", "https://store.test/p9", func(r *http.Request) (*http.Response, error) {
		return httpmock.NewStringResponse(403, "expired"), nil
	})
	expectAPI(t, mt, "DELETE", "https://api.example.test/v2/presets/p9", 200, map[string]any{})
	_, err := c.Presets.Create(context.Background(), CreatePresetRequest{Name: "Warm", FileName: "w.pcp"}, strings.NewReader("x"), 1)
	assert.ErrorIs(t, err, pfc.ErrUnauthorized)
	assert.ErrorContains(t, err, "p9 removed")
	assert.Equal(t, 1, mt.GetCallCountInfo()["DELETE https://api.example.test/v2/presets/p9"])
}

func TestPresetCreateClearsUploadURL(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestPresetDeleteNotFoundAfterRetry: a 404 on a retry after an attempt
// that may have removed the preset (its answer lost in a 500, 502 or 504)
// is success. A 404 on the first attempt, or after attempts the service
// refused (503, 429), is pfc.ErrNotFound.
func TestPresetDeleteNotFoundAfterRetry(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		statuses []int
		notFound bool
	}{
		{"404 after a 502", []int{502, 404}, false},
		{"404 on the third attempt", []int{503, 500, 404}, false},
		{"404 at once", []int{404}, true},
		{"404 after refusals", []int{503, 429, 404}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := mockClient(t)
			var responses []*http.Response
			for _, st := range tc.statuses {
				responses = append(responses, httpmock.NewStringResponse(st, `{"message":"x"}`))
			}
			mt.RegisterResponder("DELETE", "https://api.example.test/v2/presets/p1", httpmock.ResponderFromMultipleResponses(responses))
			err := c.Presets.Delete(context.Background(), "p1")
			assert.Equal(t, len(tc.statuses), mt.GetCallCountInfo()["DELETE https://api.example.test/v2/presets/p1"])
			if !tc.notFound {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, pfc.ErrNotFound)
			var ae *pfc.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, len(tc.statuses), ae.Attempts)
		})
	}
}

// TestPresetsAllPagesItemsWithoutPresetID: items that carry their id
// under another name (the list body is not documented) all have an empty
// ID; the repeated-page guard compares whole records, so every page is
// read.
func TestPresetsAllPagesItemsWithoutPresetID(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	all := []map[string]any{{"_id": "a"}, {"_id": "b"}, {"_id": "c"}, {"_id": "d"}, {"_id": "e"}}
	mt.RegisterResponder("GET", `=~/v2/presets`, func(r *http.Request) (*http.Response, error) {
		off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		lim, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		page := all[min(off, len(all)):min(off+lim, len(all))]
		return httpmock.NewJsonResponse(200, map[string]any{"presets": page})
	})
	var ids []string
	for p, err := range c.Presets.All(context.Background(), 2) {
		require.NoError(t, err)
		ids = append(ids, string(p.Extra["_id"]))
	}
	assert.Equal(t, []string{`"a"`, `"b"`, `"c"`, `"d"`, `"e"`}, ids)
}

// TestPresetsAllFollowsTheTotal: a service that caps its pages below the
// limit asked for reports a total; the listing goes on until it is
// reached, not to the first short page.
func TestPresetsAllFollowsTheTotal(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	var all []map[string]any
	for i := range 25 {
		all = append(all, map[string]any{"presetId": strconv.Itoa(i)})
	}
	mt.RegisterResponder("GET", `=~/v2/presets`, func(r *http.Request) (*http.Response, error) {
		off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		page := all[min(off, len(all)):min(off+10, len(all))] // at most 10, whatever the limit
		return httpmock.NewJsonResponse(200, map[string]any{"presets": page, "total": len(all)})
	})
	n := 0
	for _, err := range c.Presets.All(context.Background(), 0) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 25, n)
}
