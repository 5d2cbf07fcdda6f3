package bgcontainer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/internal/redact/redacttest"
	"github.com/pfcsdk/pfc-go/pfc"
)

// A client of several replicas prints them all, with their weights, and
// redacted (it printed the first one only, a licence key in its path
// whole); a nil *Client logs as "<nil>" (LogValue panicked, and slog
// logged the panic's stack).
func TestClientPrintsItsReplicasRedacted(t *testing.T) {
	t.Parallel()
	key := "Lic-7f3A9b2C4d5E6f7A8b9C"
	c, err := bgcontainer.NewClient(key, pfc.WithReplicas("http://a.test:1/"+key, "http://b.test:2"), pfc.WithReplicaWeight("http://b.test:2", 3))
	require.NoError(t, err)
	var nilClient *bgcontainer.Client
	redacttest.AssertHidden(t, key, c, *c, nilClient)
	for how, s := range redacttest.Printings(c) {
		assert.Contains(t, s, "http://a.test:1/", how)
		assert.Contains(t, s, "http://b.test:2 (weight 3)", how)
	}
	for how, s := range redacttest.Printings(nilClient) {
		assert.NotContains(t, s, "panic", how)
	}
}
