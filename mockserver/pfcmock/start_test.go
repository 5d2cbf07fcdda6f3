package pfcmock_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// TestStartPFCContainer: the test server's ready client corrects and
// downloads at once (PFC_SITE_URL defaults to the server's URL), WaitIdle
// returns, and Advance runs the TTL sweeps on the fake clock.
func TestStartPFCContainer(t *testing.T) {
	t.Parallel()
	fake := clock.NewFake(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	ts := pfcmock.Start(t, &pfcmock.Options{Clock: fake, ImageTTL: 20 * time.Minute},
		pfc.WithUserAgent("start-test/1"))
	assert.Equal(t, ts.URL, ts.Mock.SiteURL())
	assert.Same(t, fake, ts.Clock())
	img := containerJPEG(t)
	key, err := ts.Client.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
	require.NoError(t, err)
	corr, err := ts.Client.GetCorrection(t.Context(), key, nil)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(corr.CorrectedURL, ts.URL+"/output/"), corr.CorrectedURL)
	var out bytes.Buffer
	_, err = ts.Client.Download(t.Context(), corr, &out)
	require.NoError(t, err)
	assert.NotZero(t, out.Len())
	ts.WaitIdle()

	ts.Advance(20 * time.Minute)
	_, err = os.Stat(filepath.Join(ts.Mock.InputDir(), key))
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = ts.Client.GetCorrection(t.Context(), key, nil)
	assert.ErrorIs(t, err, pfccontainer.ErrUnknownImageKey)
}

// TestStartPFCContainerKeepsAGivenSiteURL: a site URL the test cannot
// reach stays as given; the client rebases it.
func TestStartPFCContainerKeepsAGivenSiteURL(t *testing.T) {
	t.Parallel()
	ts := pfcmock.Start(t, &pfcmock.Options{SiteURL: "http://localhost"})
	img := containerJPEG(t)
	key, err := ts.Client.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
	require.NoError(t, err)
	corr, err := ts.Client.RebaseCorrectedURLs().GetCorrection(t.Context(), key, nil)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(corr.ReportedURL, "http://localhost/output/"))
	assert.True(t, strings.HasPrefix(corr.CorrectedURL, ts.URL+"/output/"))
}
