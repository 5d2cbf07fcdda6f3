package pfccontainer_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

func fleetClient(t *testing.T, fleet []*mockserver.PFCContainerTestServer) *pfccontainer.Client {
	t.Helper()
	var urls []string
	for _, s := range fleet {
		urls = append(urls, s.URL)
	}
	c, err := pfccontainer.NewClient(pfc.WithReplicas(urls...),
		pfc.WithRetries(4, time.Millisecond, 5*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func killPFC(s *mockserver.PFCContainerTestServer) {
	_ = s.Server.Listener.Close()
	s.Server.CloseClientConnections()
}

// The correction of an imageKey goes to the replica that accepted its
// upload (the others do not know the key); a client that did not upload
// it finds the replica holding it.
func TestReplicasImageKeyAffinity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fleet := mockserver.StartPFCContainers(t, 3, nil)
	c := fleetClient(t, fleet)
	other := fleetClient(t, fleet)
	for i := range 6 {
		img := jpegOf(t, 48, 40, i)
		key, err := c.Upload(ctx, bytes.NewReader(img), int64(len(img)), "")
		require.NoError(t, err)
		corr, err := c.Correct(ctx, key, nil)
		require.NoError(t, err)
		var out bytes.Buffer
		_, err = c.Download(ctx, corr, &out)
		require.NoError(t, err)
		_, err = other.Correct(ctx, key, nil)
		require.NoError(t, err, "a client that did not upload the key did not find its replica")
	}
	c2 := fleetClient(t, fleet)
	_, err := c2.Correct(ctx, "no-such-key.jpg", nil)
	assert.ErrorIs(t, err, pfccontainer.ErrUnknownImageKey)
}

// Killing one replica in the middle of a CorrectDir run loses nothing and
// duplicates no output; the results name the replica lost, and the
// uploads skip it afterwards.
func TestReplicasCorrectDirSurvivesAKilledReplica(t *testing.T) {
	t.Parallel()
	const n = 45
	fleet := mockserver.StartPFCContainers(t, 3, nil)
	c := fleetClient(t, fleet)
	in, out := t.TempDir(), t.TempDir()
	writeImages(t, in, n)
	var (
		once   sync.Once
		done   atomic.Int32
		mu     sync.Mutex
		byRepl = map[string]int{}
		lost   = map[string]bool{}
	)
	rep, err := c.CorrectDir(context.Background(), in, out, nil, &pfc.BulkOptions{
		Concurrency: 6,
		OnResult: func(r pfc.BulkResult) {
			if done.Add(1) == n/3 {
				once.Do(func() { killPFC(fleet[1]) })
			}
			if corr, ok := r.Result.(*pfccontainer.Correction); ok && corr != nil {
				mu.Lock()
				byRepl[corr.Replica]++
				for _, l := range corr.LostReplicas {
					lost[l] = true
				}
				mu.Unlock()
			}
		},
	})
	require.NoError(t, err)
	require.Empty(t, rep.Failures)
	assert.Equal(t, n, rep.Done)
	files := 0
	require.NoError(t, filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) != ".jsonl" {
			files++
		}
		return err
	}))
	assert.Equal(t, n, files)
	for _, s := range fleet {
		assert.Positive(t, byRepl[s.URL], "replica %s took no work", s.URL)
	}
	for l := range lost {
		assert.Equal(t, fleet[1].URL, l)
	}
}
