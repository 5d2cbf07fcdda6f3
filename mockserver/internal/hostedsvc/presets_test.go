package hostedsvc

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newPreset creates a preset named name in account and returns its id, or
// the error.
func newPreset(s *Service, account, name string) (string, error) {
	rec, aerr := s.CreatePreset(account, strings.NewReader(`{"name":"`+name+`"}`), "http://mock.test")
	if aerr != nil {
		return "", aerr
	}
	return rec.PresetID, nil
}

// listIDs lists account's presets with query q and returns their ids and
// the total.
func listIDs(t *testing.T, s *Service, account, q string) ([]string, int) {
	t.Helper()
	v, err := url.ParseQuery(q)
	require.NoError(t, err)
	l, aerr := s.ListPresets(account, v)
	require.Nil(t, aerr)
	ids := []string{}
	for _, p := range l.Presets {
		ids = append(ids, p.PresetID)
	}
	return ids, l.Total
}

// TestPresetCapPerAccount: an account holds at most MaxPresets presets;
// one more is 409 conflict saying so, without blaming a parameter; other
// accounts are not affected, and deleting one makes room again.
func TestPresetCapPerAccount(t *testing.T) {
	t.Parallel()
	s, _ := newServiceWith(t, func(c *settings) { c.APIKeys = []string{"k", "k2"}; c.MaxPresets = 3 })
	var ids []string
	for i := range 3 {
		id, err := newPreset(s, "k", fmt.Sprint("p", i))
		require.NoError(t, err)
		ids = append(ids, id)
	}
	_, aerr := s.CreatePreset("k", strings.NewReader(`{"name":"p3"}`), "http://mock.test")
	require.NotNil(t, aerr, "a fourth preset was created beyond MaxPresets=3")
	assert.Equal(t, http.StatusConflict, aerr.Status)
	assert.Empty(t, aerr.Parameter)
	assert.Contains(t, aerr.Message, "holds 3 presets, the most it may hold")

	_, err := newPreset(s, "k2", "p0")
	require.NoError(t, err, "another account has its own cap")

	_, aerr = s.DeletePreset("k", ids[1])
	require.Nil(t, aerr)
	_, err = newPreset(s, "k", "p3")
	require.NoError(t, err)
	got, total := listIDs(t, s, "k", "")
	assert.Equal(t, 3, total)
	assert.Equal(t, []string{ids[0], ids[2]}, got[:2])
}

// TestPresetCapDefault: the cap defaults to DefaultMaxPresets; a negative
// one is an invalid config.
func TestPresetCapDefault(t *testing.T) {
	t.Parallel()
	s, _ := newServiceWith(t, nil)
	assert.Equal(t, DefaultMaxPresets, s.cfg.MaxPresets)
	_, err := New(Config{APIKeys: []string{"k"}, MaxPresets: -1},
		Deps{WorkDir: t.TempDir(), WebhookSigner: s.cfg.WebhookSigner})
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "MaxPresets")
}

// TestPresetListingAfterDeletes: pages follow creation order, skip deleted
// presets and report the remaining total; an offset past the end is an
// empty page; an account without presets lists none.
func TestPresetListingAfterDeletes(t *testing.T) {
	t.Parallel()
	s, _ := newServiceWith(t, func(c *settings) { c.APIKeys = []string{"k", "k2"} })
	var ids []string
	for i := range 10 {
		id, err := newPreset(s, "k", fmt.Sprint("p", i))
		require.NoError(t, err)
		ids = append(ids, id)
	}
	for _, i := range []int{0, 4, 9} {
		_, aerr := s.DeletePreset("k", ids[i])
		require.Nil(t, aerr)
		_, aerr = s.GetPreset("k", ids[i])
		require.NotNil(t, aerr)
		assert.Equal(t, http.StatusNotFound, aerr.Status)
	}
	_, aerr := s.DeletePreset("k", ids[0])
	require.NotNil(t, aerr, "a second delete is 404")

	got, total := listIDs(t, s, "k", "limit=3&offset=2")
	assert.Equal(t, 7, total)
	assert.Equal(t, []string{ids[3], ids[5], ids[6]}, got)
	got, _ = listIDs(t, s, "k", "offset=7")
	assert.Empty(t, got)
	got, total = listIDs(t, s, "k2", "")
	assert.Empty(t, got)
	assert.Zero(t, total)
	_, aerr = s.GetPreset("k2", ids[1])
	require.NotNil(t, aerr, "another account's preset is 404")

	// A name freed by a delete can be taken again; it lists last.
	id, err := newPreset(s, "k", "p4")
	require.NoError(t, err)
	got, total = listIDs(t, s, "k", "offset=6")
	assert.Equal(t, 8, total)
	assert.Equal(t, []string{ids[8], id}, got)
}

// TestPresetsConcurrentAccounts: creating, listing, getting, uploading
// and deleting presets of two accounts at once keeps every account's
// list whole and in order (run with -race).
func TestPresetsConcurrentAccounts(t *testing.T) {
	t.Parallel()
	s, _ := newServiceWith(t, func(c *settings) { c.APIKeys = []string{"k", "k2"} })
	var wg sync.WaitGroup
	for _, account := range []string{"k", "k2"} {
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 25 {
					rec, aerr := s.CreatePreset(account, strings.NewReader(fmt.Sprintf(`{"name":"w%d-%d"}`, w, i)), "http://mock.test")
					if !assert.Nil(t, aerr) {
						return
					}
					if i%5 == 0 {
						id, q := signedQuery(t, rec.UploadURL)
						assert.Nil(t, s.ReceivePreset(id, q, strings.NewReader("x"), 1))
					}
					_, aerr = s.ListPresets(account, url.Values{"offset": {fmt.Sprint(i)}})
					assert.Nil(t, aerr)
					_, aerr = s.GetPreset(account, rec.PresetID)
					assert.Nil(t, aerr)
					if i%2 == 1 {
						_, aerr = s.DeletePreset(account, rec.PresetID)
						assert.Nil(t, aerr)
					}
				}
			}()
		}
	}
	wg.Wait()
	for _, account := range []string{"k", "k2"} {
		l, aerr := s.ListPresets(account, url.Values{"limit": {"100"}})
		require.Nil(t, aerr)
		assert.Equal(t, 4*13, l.Total)
		require.Len(t, l.Presets, 4*13)
		last := map[int]int{} // each worker's presets list in the order it created them
		for _, p := range l.Presets {
			var w, i int
			_, err := fmt.Sscanf(p.Name, "w%d-%d", &w, &i)
			require.NoError(t, err)
			if prev, ok := last[w]; ok {
				assert.Less(t, prev, i, "presets of worker %d out of order", w)
			}
			last[w] = i
		}
	}
}

// TestPresetCallsDoNotTakeTheServiceLock: the preset endpoints work while
// the Service's mu is held (by an upload, a job start ...): one account's
// presets cannot delay the rest of the service.
func TestPresetCallsDoNotTakeTheServiceLock(t *testing.T) {
	t.Parallel()
	s, _ := newServiceWith(t, nil)
	id, err := newPreset(s, "k", "warm")
	require.NoError(t, err)
	s.mu.Lock()
	defer s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, aerr := s.ListPresets("k", url.Values{})
		assert.Nil(t, aerr)
		_, aerr = s.GetPreset("k", id)
		assert.Nil(t, aerr)
		_, err := newPreset(s, "k", "cool")
		assert.NoError(t, err)
		_, aerr = s.DeletePreset("k", id)
		assert.Nil(t, aerr)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the preset calls waited for the Service's mu")
	}
}
