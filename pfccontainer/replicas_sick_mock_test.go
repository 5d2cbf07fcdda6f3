package pfccontainer_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/replicatest"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// Every replica sick (503, hung, refused): Version, Health and CorrectFile
// end with a typed error, each asking every replica at most once.
func TestReplicasEverySick(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) { replicasEverySick(t, replicatest.NewNet(t)) })
}

// replicasEverySick is TestReplicasEverySick in a synctest bubble, on nw.
func replicasEverySick(t *testing.T, nw *replicatest.Net) {
	urls, _ := nw.EverySick(t, "")
	c, err := pfccontainer.NewClient(append(replicatest.SickClientOptions[pfccontainer.Option](urls...), pfc.WithHTTPClient(nw.Client()))...)
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	ctx := replicatest.HangGuard(t)
	for range 2 {
		_, err := c.Version(ctx)
		t.Log(err)
		require.Error(t, err)
		require.Error(t, c.Health(ctx))
	}
	in, out := t.TempDir(), t.TempDir()
	rels := writeImages(t, in, 2)
	for _, rel := range rels {
		_, err := c.CorrectFile(ctx, filepath.Join(in, rel), filepath.Join(out, filepath.Base(rel)), nil, nil)
		t.Log(err)
		require.Error(t, err)
	}
	require.NoError(t, ctx.Err(), "hung")
}

// A replica answering 200 with garbage to the lookup of an image key is
// passed over, and the key found on the replica holding it (the garbage
// replica got the key bound to it: 3 of 3 Correct failed).
func TestReplicasLookupPassesOverGarbage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fleet := pfcmock.StartFleet(t, 1, nil)
	img := jpegOf(t, 48, 40, 3)
	key, err := fleetClient(t, fleet).Upload(ctx, bytes.NewReader(img), int64(len(img)), "")
	require.NoError(t, err)
	c := sickFleetClient(t, replicatest.Junk(t), fleet) // a fresh client: no binding
	for range 3 {
		corr, err := c.GetCorrection(ctx, key, nil)
		if assert.NoError(t, err) {
			assert.NotEmpty(t, corr.CorrectedURL)
		}
	}
}

// A replica answering 503 to everything: the image whose step it failed,
// its retries spent, is done again on another replica (3 of 9 CorrectFile
// failed with "PUT …/pfc: 503 (3 attempts)" before it was set aside).
func TestReplicas503ReplicaRedone(t *testing.T) {
	t.Parallel()
	const n = 9
	fleet := pfcmock.StartFleet(t, 2, nil)
	sick := sickReplica(t, nil, false)
	c := sickFleetClient(t, sick, fleet, pfc.WithRetries(2, time.Millisecond, 5*time.Millisecond))
	in, out := t.TempDir(), t.TempDir()
	var failed, moved int
	for _, rel := range writeImages(t, in, n) {
		corr, err := c.CorrectFile(context.Background(), filepath.Join(in, rel), filepath.Join(out, filepath.Base(rel)), nil, nil)
		if err != nil {
			failed++
			t.Log(err)
			continue
		}
		assert.NotEqual(t, sick, corr.Replica)
		if len(corr.LostReplicas) > 0 {
			assert.Equal(t, []string{sick}, corr.LostReplicas)
			moved++
		}
	}
	assert.Zero(t, failed, "%d of %d files failed", failed, n)
	assert.Positive(t, moved, "no file was done again elsewhere: the sick replica took no work")
}

// The lookup's check keeps the answer's defaults: a correction without a
// scene, found past a garbage replica, reads as SceneUnknown, not scene 0.
func TestReplicasLookupKeepsDefaults(t *testing.T) {
	t.Parallel()
	holder := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"corrected_url":"http://localhost/output/x.jpg"}`))
	}))
	t.Cleanup(holder.Close)
	c, err := pfccontainer.NewClient(pfc.WithReplicas(replicatest.Junk(t), holder.URL), pfc.WithRetries(-1, 0, 0))
	require.NoError(t, err)
	corr, err := c.GetCorrection(context.Background(), "00000000-0000-4000-8000-000000000000", nil)
	require.NoError(t, err)
	assert.Equal(t, pfccontainer.SceneUnknown, corr.Scene)
}
