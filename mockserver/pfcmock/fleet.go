package pfcmock

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/mockserver/internal/testsrv"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// StartFleet starts n independent correction container mocks, a
// fleet of replicas as pfc-mockserver -container-replicas n serves: each
// is Start(tb, opts, clientOpts...) with its own mount tree
// (under opts.Root, its subdirectory replica-<i>), site URL and state,
// its JSON log lines (LogWriter) tagged with "replica": its index.
func StartFleet(tb testing.TB, n int, opts *Options, clientOpts ...pfccontainer.Option) []*TestServer {
	tb.Helper()
	return testsrv.Fleet(n, opts, func(o *Options, i int) {
		if o.LogWriter != nil {
			o.LogWriter = httpx.ReplicaLogWriter(o.LogWriter, i)
		}
		if o.Root != "" {
			o.Root = filepath.Join(o.Root, fmt.Sprintf("replica-%d", i))
		}
	}, func(o *Options) *TestServer { return Start(tb, o, clientOpts...) })
}
