package pfc_test

import (
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

	if testing.Short() {
		t.Skip("compiles a program")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	// The program lives in the module (through an overlay: nothing is
	// written to the source tree), so it builds against this code.
	dir := filepath.Join(root, "pfc", "internal", "optcheck")
	src := filepath.Join(t.TempDir(), "main.go")
	overlay := filepath.Join(t.TempDir(), "overlay.json")
	build := func(body string) (string, error) {
		prog := `package main

import (
	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

var _, _, _ = hosted.NewClient, bgcontainer.NewClient, pfccontainer.NewClient
var _ pfc.WaitOptions

func main() { ` + body + ` }
`
		require.NoError(t, os.WriteFile(src, []byte(prog), 0o600))
		require.NoError(t, os.WriteFile(overlay, []byte(`{"Replace":{"`+filepath.Join(dir, "main.go")+`":"`+src+`"}}`), 0o600))
		cmd := exec.Command(goBin, "build", "-overlay", overlay, "-o", os.DevNull, "./pfc/internal/optcheck")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := build(`_, _ = bgcontainer.NewClient("", pfc.WithBaseURL("u"), bgcontainer.WithPolling(pfc.WaitOptions{}))`)
	require.NoError(t, err, out)
	for _, bad := range []string{
		`_, _ = pfccontainer.NewClient(pfc.WithBaseURL("u"), hosted.WithPolling(pfc.WaitOptions{}))`,
		`_, _ = hosted.NewClient("k", bgcontainer.WithPolling(pfc.WaitOptions{}))`,
	} {
		out, err := build(bad)
		require.Error(t, err, bad)
		assert.True(t, strings.Contains(out, "cannot use"), out)
	}
}
