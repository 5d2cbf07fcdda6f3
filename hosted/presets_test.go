package hosted

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
		page, err := decodePresetPage(json.RawMessage(body), nil)
		require.NoError(t, err, body)
		require.Len(t, page.Presets, 2, body)
		assert.Equal(t, "b", page.Presets[1].ID)
	}
	_, err := decodePresetPage(json.RawMessage(`"nope"`), nil)
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
	// A nil *strings.Reader is no file: refused before the preset is created.
	_, err = c.Presets.Create(context.Background(), CreatePresetRequest{Name: "Warm", FileName: "w.pcp"}, (*strings.Reader)(nil), 1)
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"file"}, ve.Fields())
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
	require.ErrorIs(t, lastErr, pfc.ErrInvalidResponse)
	assert.ErrorContains(t, lastErr, "only presets already listed")
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

// walkPresets collects the ids All yields and its error; it fails the
// test past stopAfter presets, where an unbounded walk would go on.
func walkPresets(t *testing.T, c *Client, pageSize, stopAfter int) ([]string, error) {
	t.Helper()
	var ids []string
	for p, err := range c.Presets.All(context.Background(), pageSize) {
		if err != nil {
			return ids, err
		}
		ids = append(ids, p.ID)
		if len(ids) > stopAfter {
			t.Fatalf("All yielded more than %d presets and goes on", stopAfter)
		}
	}
	return ids, nil
}

// presetRecords is n preset records with ids prefix0 …, each with a
// pre-signed uploadUrl signed afresh (sig) on every answer.
func presetRecords(prefix string, n int, sig int64) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		id := prefix + strconv.Itoa(i)
		out[i] = map[string]any{"presetId": id, "name": id, "uploadUrl": "https://store.test/presets/" + id + "?sig=" + strconv.FormatInt(sig, 10)}
	}
	return out
}

// TestPresetsAllEndsAgainstAServiceThatLoops: services that ignore offset
// (their records changing on every answer, or their pages alternating),
// or whose total keeps moving, end the walk with an
// *pfc.ResponseError once nothing new arrives or the total
// cannot hold, after every real preset was yielded once.
func TestPresetsAllEndsAgainstAServiceThatLoops(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		field string
		want  int // presets yielded before the error
		page  func(n int64, offset int) any
	}{
		{"offset ignored, uploadUrl signed afresh", "presets", 20, func(n int64, _ int) any {
			return presetRecords("p", 20, n)
		}},
		{"offset ignored, pages alternate", "presets", 40, func(n int64, _ int) any {
			if n%2 == 1 {
				return map[string]any{"presets": presetRecords("a", 20, n)}
			}
			return map[string]any{"presets": presetRecords("b", 20, n)}
		}},
		{"offset ignored, total reported", "presets", 20, func(n int64, _ int) any {
			return map[string]any{"presets": presetRecords("p", 20, n), "total": 1000}
		}},
		{"new presets on every page, the total growing with them", "total", 120, func(n int64, offset int) any {
			return map[string]any{"presets": presetRecords("p"+strconv.FormatInt(n, 10)+"-", 20, n), "total": offset + 40}
		}},
		{"more presets than the total", "presets", 0, func(n int64, _ int) any {
			return map[string]any{"presets": presetRecords("p", 200, n), "total": 30}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := mockClient(t)
			var n atomic.Int64
			mt.RegisterResponder("GET", `=~/v2/presets`, func(r *http.Request) (*http.Response, error) {
				off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
				return httpmock.NewJsonResponse(200, tc.page(n.Add(1), off))
			})
			ids, err := walkPresets(t, c, 20, 10_000)
			require.ErrorIs(t, err, pfc.ErrInvalidResponse)
			var ie *pfc.ResponseError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tc.field, ie.Field, err.Error())
			assert.Len(t, ids, tc.want)
		})
	}
}

// TestPresetsAllWhilePresetsAreCreated: presets created during the walk,
// at the end of the list (creation order) or at its start (newest
// first, which shifts what was listed into later pages), neither end the
// walk nor show a preset twice; every preset present at the start is
// listed.
func TestPresetsAllWhilePresetsAreCreated(t *testing.T) {
	t.Parallel()
	for _, front := range []bool{false, true} {
		t.Run(fmt.Sprintf("front=%v", front), func(t *testing.T) {
			t.Parallel()
			c, mt := mockClient(t)
			var mu sync.Mutex
			all := presetRecords("old", 95, 0)
			created := 0
			mt.RegisterResponder("GET", `=~/v2/presets`, func(r *http.Request) (*http.Response, error) {
				mu.Lock()
				defer mu.Unlock()
				off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
				lim, _ := strconv.Atoi(r.URL.Query().Get("limit"))
				page := all[min(off, len(all)):min(off+lim, len(all))]
				resp, err := httpmock.NewJsonResponse(200, map[string]any{"presets": page, "total": len(all)})
				// Three presets are created after each answer.
				for range 3 {
					p := presetRecords("new"+strconv.Itoa(created)+"-", 1, 0)[0]
					created++
					if front {
						all = append([]map[string]any{p}, all...)
					} else {
						all = append(all, p)
					}
				}
				return resp, err
			})
			ids, err := walkPresets(t, c, 10, 1000)
			require.NoError(t, err)
			seen := map[string]bool{}
			for _, id := range ids {
				assert.False(t, seen[id], "preset %s listed twice", id)
				seen[id] = true
			}
			for i := range 95 {
				assert.True(t, seen["old"+strconv.Itoa(i)], "old%d not listed", i)
			}
		})
	}
}

// TestPresetsAllOddTotals: a negative total is refused (read as no total,
// it lifted the walk's bound: a service paging fresh ids ran forever),
// and a total near the largest int is followed (its drift overflowed,
// refusing the first page as "went from N to N").
func TestPresetsAllOddTotals(t *testing.T) {
	t.Parallel()
	for total, wantErr := range map[string]bool{"-5": true, strconv.Itoa(math.MaxInt): false} {
		c, mt := mockClient(t)
		mt.RegisterResponder("GET", `=~/v2/presets`, func(r *http.Request) (*http.Response, error) {
			off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
			var items []string
			for i := range 20 {
				if off < 40 {
					items = append(items, fmt.Sprintf(`{"presetId":"p%d"}`, off+i))
				}
			}
			return httpmock.NewStringResponse(200, `{"presets":[`+strings.Join(items, ",")+`],"total":`+total+`}`), nil
		})
		n := 0
		var last error
		for p, err := range c.Presets.All(context.Background(), 20) {
			if err != nil {
				last = err
				break
			}
			require.NotNil(t, p)
			if n++; n > 100 {
				break
			}
		}
		if wantErr {
			var ie *pfc.ResponseError
			require.ErrorAs(t, last, &ie, total)
			assert.Equal(t, "total", ie.Field)
			assert.Zero(t, n)
			continue
		}
		require.NoError(t, last, total)
		assert.Equal(t, 40, n, total)
	}
}

// A printed Preset shows its undocumented fields as the JSON text they
// are, not as lists of bytes, under %v and %+v, also inside a PresetPage;
// %+v names every field of Preset.
func TestPresetPrintsExtraAsText(t *testing.T) {
	t.Parallel()
	p := Preset{ID: "p1", Name: "Warm", Description: "d", UploadURL: "https://store.test/p1",
		Extra: map[string]json.RawMessage{"status": json.RawMessage(`"awaiting_upload"`), "n": json.RawMessage("\n 3 ")}}
	assert.Equal(t, `{p1 Warm d https://store.test/p1 map[n:3 status:"awaiting_upload"]}`, fmt.Sprintf("%v", p))
	plus := fmt.Sprintf("%+v", p)
	assert.Equal(t, `{ID:p1 Name:Warm Description:d UploadURL:https://store.test/p1 Extra:map[n:3 status:"awaiting_upload"]}`, plus)
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Preset]()) {
		assert.Regexp(t, `[{ ]`+f.Name+`:`, plus, "a field Format leaves out")
	}
	assert.Equal(t, plus, fmt.Sprintf("%+v", &p))
	assert.Contains(t, fmt.Sprintf("%v", PresetPage{Presets: []Preset{p}, Total: 1}), `map[n:3 status:"awaiting_upload"]`)
	assert.Equal(t, `{p1 Warm   map[]}`, fmt.Sprintf("%v", Preset{ID: "p1", Name: "Warm"}))
	assert.Equal(t, `{p1    map[x:not JSON]}`, fmt.Sprintf("%v", Preset{ID: "p1", Extra: map[string]json.RawMessage{"x": json.RawMessage("not JSON")}}))

	// %#v stays Go syntax, of the type Preset.
	assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", p), `hosted.Preset{ID:"p1", Name:"Warm", Description:"d",`), fmt.Sprintf("%#v", p))
}
