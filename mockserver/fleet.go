package mockserver

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// StartBGContainers starts n independent background-removal container
// mocks, a fleet of replicas as pfc-mockserver -bg-replicas n serves:
// each is StartBGContainer(tb, opts, clientOpts...) with its own state,
// data directory and licence activation, the Logger's records tagged with
// "replica": its index. Stopping one replica's Server (its
// Listener.Close, then CloseClientConnections) simulates a host that
// died: new connections are refused.
func StartBGContainers(tb testing.TB, n int, opts *BGContainerOptions, clientOpts ...bgcontainer.Option) []*BGContainerTestServer {
	tb.Helper()
	fleet := make([]*BGContainerTestServer, n)
	for i := range fleet {
		var o BGContainerOptions
		if opts != nil {
			o = *opts
		}
		if o.Logger != nil {
			o.Logger = o.Logger.With("replica", i)
		}
		fleet[i] = StartBGContainer(tb, &o, clientOpts...)
	}
	return fleet
}

// StartPFCContainers starts n independent correction container mocks, a
// fleet of replicas as pfc-mockserver -container-replicas n serves: each
// is StartPFCContainer(tb, opts, clientOpts...) with its own mount tree
// (under opts.Root, its subdirectory replica-<i>), site URL and state,
// its JSON log lines (LogWriter) tagged with "replica": its index.
func StartPFCContainers(tb testing.TB, n int, opts *PFCContainerOptions, clientOpts ...pfccontainer.Option) []*PFCContainerTestServer {
	tb.Helper()
	fleet := make([]*PFCContainerTestServer, n)
	for i := range fleet {
		var o PFCContainerOptions
		if opts != nil {
			o = *opts
		}
		if o.LogWriter != nil {
			o.LogWriter = httpx.ReplicaLogWriter(o.LogWriter, i)
		}
		if o.Root != "" {
			o.Root = filepath.Join(o.Root, fmt.Sprintf("replica-%d", i))
		}
		fleet[i] = StartPFCContainer(tb, &o, clientOpts...)
	}
	return fleet
}
