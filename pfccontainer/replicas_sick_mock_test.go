package pfccontainer_test

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// refusedURL is the URL of a port nothing listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	u := "http://" + l.Addr().String()
	require.NoError(t, l.Close())
	return u
}

// Every replica sick (503, hung, refused): Version, Health and CorrectFile
// end with a typed error, each asking every replica at most once.
func TestReplicasEverySick(t *testing.T) {
	t.Parallel()
	c, err := pfccontainer.NewClient(pfc.WithReplicas(sickReplica(t, false), sickReplica(t, true), refusedURL(t)),
		pfc.WithRetries(-1, 0, 0), pfc.WithResponseHeaderTimeout(300*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
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
