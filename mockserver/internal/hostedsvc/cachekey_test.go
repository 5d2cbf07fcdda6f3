package hostedsvc

import (
	"crypto/sha256"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyOf is the cache key of a job started with query (after fileKey=k)
// on the same file, background image and account.
func keyOf(t *testing.T, query string) string {
	t.Helper()
	q, err := url.ParseQuery("fileKey=k&" + query)
	require.NoError(t, err)
	pq, aerr := parsePFC(q)
	require.Nil(t, aerr, query)
	j := &job{account: "acct", q: pq, fileType: pq.fileType, upType: FileTypeImage, preset: pq.req.Preset}
	return cacheKey(j, sha256.Sum256([]byte("file")), sha256.Sum256([]byte("bg")))
}

// TestCacheKeyEqualRequests: requests that ask for the same output share
// a cache key whatever parameters the service ignores, whichever defaults
// are spelt out and whatever does not change the output (cache,
// includeDetectionData, webhookUrl); requests that differ in anything
// that reaches the processor do not.
func TestCacheKeyEqualRequests(t *testing.T) {
	t.Parallel()
	same := [][]string{
		{"", "outputQuality=90", "preserveMetadata=true", "removeGlares=false", "updateThumbnail=false",
			"preset=Universal", "skip=legacy", "cache=false", "includeDetectionData=true",
			"webhookUrl=https://example.com/hook", "bgColor=red", "resize=general", "autocropX=0.5",
			"removeBackground=false&bgShadow=soft", "fileType=image", "autocrop=false"},
		{"width=100", "width=100&scale=50", "width=100&resize=auto", "width=100&long=300"},
		{"preset=Pro", "preset=Pro&skip=clipart"},
		{"removeBackground=true", "removeBackground=true&bgColor=transparent", "removeBackground=true&bgShadow=hard"},
		{"removeBackground=true&bgGenerativePrompt=sky", "removeBackground=true&bgGenerativePrompt=sky&bgColor=red&bgFileKey=x"},
		{"autocrop=true&autocropX=0.5", "autocrop=true&autocropX=0.50"},
	}
	var keys []string
	for _, group := range same {
		want := keyOf(t, group[0])
		for _, q := range group[1:] {
			assert.Equal(t, want, keyOf(t, q), "%q and %q ask for the same output", group[0], q)
		}
		keys = append(keys, want)
	}
	for _, q := range []string{"outputQuality=50", "removeGlares=true", "width=200", "width=100&resize=general",
		"height=100", "autocrop=true", "autocrop=true&autocropDetectOnly=true", "outputType=png", "outputType=original",
		"outputType=jpg", "preserveMetadata=false", "updateThumbnail=true", "preset=none", "preset=Pro&skip=none",
		"removeBackground=true&bgColor=red", "removeBackground=true&bgColor=blue", "removeBackground=true&bgColor=red&bgShadow=soft",
		"removeBackground=true&bgFileKey=x", "removeBackground=true&bgGenerativePrompt=sea", "autocrop=true&autocropY=0.5"} {
		keys = append(keys, keyOf(t, q))
	}
	seen := map[string]int{}
	for i, k := range keys {
		if j, ok := seen[k]; ok {
			t.Errorf("requests %d and %d ask for different outputs and share a cache key", j, i)
		}
		seen[k] = i
	}
}
