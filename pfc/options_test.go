package pfc_test

import (
	"log/slog"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// TestSharedOptionsConfigureEveryClient: every option of package pfc is
// accepted by the three clients' NewClient.
func TestSharedOptionsConfigureEveryClient(t *testing.T) {
	t.Parallel()
	shared := []pfc.Option{
		pfc.WithHTTPClient(&http.Client{}), pfc.WithLogger(slog.Default()),
		pfc.WithRetries(1, time.Millisecond, time.Second), pfc.WithMaxRetryAfter(time.Second),
		pfc.WithUserAgent("app/1"), pfc.WithResponseHeaderTimeout(time.Minute), pfc.WithMaxDownloadSize(1 << 20),
		pfc.WithRateLimit(100, 10),
	}
	var ho []hosted.Option
	var po []pfccontainer.Option
	var bo []bgcontainer.Option
	for _, o := range shared {
		ho, po, bo = append(ho, o), append(po, o), append(bo, o)
	}
	_, err := hosted.NewClient("key", append(ho, pfc.WithBaseURL("http://x.test/v2"), hosted.WithPolling(pfc.WaitOptions{MaxWait: time.Minute}))...)
	require.NoError(t, err)
	_, err = pfccontainer.NewClient(append(po, pfc.WithBaseURL("http://x.test"))...)
	require.NoError(t, err)
	_, err = bgcontainer.NewClient("", append(bo, pfc.WithBaseURL("http://x.test"), bgcontainer.WithPolling(pfc.WaitOptions{MaxWait: time.Minute}))...)
	require.NoError(t, err)
}

// TestReplicaOptionsRefusedByHosted: the replica options are shared
// options of the container clients; the hosted client names each one
// given (it named WithReplicas for WithReplicaHost and WithReplicaWeight).
func TestReplicaOptionsRefusedByHosted(t *testing.T) {
	t.Parallel()
	for name, o := range map[string]pfc.Option{
		"WithReplicas":      pfc.WithReplicas("https://a.test/v2", "https://b.test/v2"),
		"WithReplicaHost":   pfc.WithReplicaHost("https://h.test/v2"),
		"WithReplicaWeight": pfc.WithReplicaWeight("https://a.test/v2", 2),
	} {
		_, err := hosted.NewClient("k", pfc.WithBaseURL("https://x.test/v2"), o)
		var ve *pfc.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, []string{name}, ve.Fields())
	}
}

// TestOptionOfAnotherClientIsRefused: an option of one client given to
// another does not compile; forced through a conversion, NewClient names
// it.
func TestOptionOfAnotherClientIsRefused(t *testing.T) {
	t.Parallel()
	forced := pfccontainer.Option(hosted.WithPolling(pfc.WaitOptions{}))
	_, err := pfccontainer.NewClient(pfc.WithBaseURL("http://x.test"), forced)
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"WithPolling"}, ve.Fields())

	// Does not compile: the compiler's assignability rule, which
	// reflect.Type.AssignableTo implements (a named option type takes a
	// value of its own type or of pfc.Option's unnamed one, nothing else),
	// checked without building a program.
	option := func(v any) reflect.Type { return reflect.TypeOf(v) }
	assert.True(t, option(bgcontainer.WithPolling(pfc.WaitOptions{})).AssignableTo(reflect.TypeFor[bgcontainer.Option]()))
	for _, c := range []reflect.Type{reflect.TypeFor[hosted.Option](), reflect.TypeFor[pfccontainer.Option](), reflect.TypeFor[bgcontainer.Option]()} {
		assert.True(t, option(pfc.WithBaseURL("u")).AssignableTo(c), "pfc.Option to %v", c)
	}
	assert.False(t, option(hosted.WithPolling(pfc.WaitOptions{})).AssignableTo(reflect.TypeFor[pfccontainer.Option]()))
	assert.False(t, option(bgcontainer.WithPolling(pfc.WaitOptions{})).AssignableTo(reflect.TypeFor[hosted.Option]()))
}
