package bgmock

import (
	"testing"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/mockserver/internal/testsrv"
)

// StartFleet starts n independent background-removal container
// mocks, a fleet of replicas as pfc-mockserver -bg-replicas n serves:
// each is Start(tb, opts, clientOpts...) with its own state,
// data directory and licence activation, the Logger's records tagged with
// "replica": its index. Stopping one replica's Server (its
// Listener.Close, then CloseClientConnections) simulates a host that
// died: new connections are refused.
func StartFleet(tb testing.TB, n int, opts *Options, clientOpts ...bgcontainer.Option) []*TestServer {
	tb.Helper()
	return testsrv.Fleet(n, opts, func(o *Options, i int) {
		if o.Logger != nil {
			o.Logger = o.Logger.With("replica", i)
		}
	}, func(o *Options) *TestServer { return Start(tb, o, clientOpts...) })
}
