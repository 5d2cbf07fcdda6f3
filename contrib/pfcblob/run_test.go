package pfcblob_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/contrib/pfcblob"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// tinyPNG is a distinct 24×16 PNG.
func tinyPNG(t *testing.T, seed int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 24, 16))
	for p := range 24 * 16 {
		img.Set(p%24, p/24, color.NRGBA{R: uint8(seed * 7), G: uint8(p), B: uint8(p * 3), A: 255})
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

// TestShardedBucketToBucket: three shards at once remove the
// backgrounds of a bucket's folder into another bucket, through the AWS
// SDK and an S3-compatible server, against a 3-replica fleet: every
// output is there once, equal to what the service makes of its input,
// and nothing else is; a rerun with SkipExisting and no manifest does
// nothing again.
func TestShardedBucketToBucket(t *testing.T) {
	t.Parallel()
	const n, shards = 24, 3
	s3 := startS3(t, "in", "out")
	in, out := openBucket(t, s3.URL, "in"), openBucket(t, s3.URL, "out")
	inputs := map[string][]byte{}
	for i := range n {
		key := fmt.Sprintf("shoot/%c/img%02d.png", 'a'+i%3, i)
		inputs[key] = tinyPNG(t, i)
		require.NoError(t, in.WriteAll(t.Context(), key, inputs[key], nil))
	}
	require.NoError(t, in.WriteAll(t.Context(), "shoot/notes.txt", []byte("not an image"), nil))
	fleet := bgmock.StartFleet(t, 3, &bgmock.Options{Activated: true})
	var urls []string
	for _, s := range fleet {
		urls = append(urls, s.URL)
	}
	c, err := bgcontainer.NewClient(bgmock.DefaultLicenseKey, pfc.WithReplicas(urls...))
	require.NoError(t, err)
	defer c.CloseIdleConnections()

	run := func(skip bool) (done, skipped int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range shards {
			wg.Go(func() {
				rep, err := c.RemoveDir(t.Context(), "shoot", "cut", nil, &pfc.BulkOptions[*bgcontainer.Result]{
					Source: pfcblob.Source(t.Context(), in), Sink: pfcblob.NewSink(out),
					Shard: pfc.Shard{Index: i, Count: shards}, SkipExisting: skip, Concurrency: 3,
				})
				assert.NoError(t, err)
				if rep != nil {
					assert.Zero(t, rep.Failed, "%+v", rep.Failures)
					mu.Lock()
					done, skipped = done+rep.Done, skipped+rep.Skipped
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return done, skipped
	}
	done, skipped := run(false)
	assert.Equal(t, n, done)
	assert.Zero(t, skipped)

	got := keys(t, out)
	require.Len(t, got, n)
	for key, data := range inputs {
		name := "cut/" + strings.TrimPrefix(key, "shoot/")
		assert.Contains(t, got, name)
		obj, err := out.ReadAll(t.Context(), name)
		require.NoError(t, err)
		var want bytes.Buffer
		_, err = fleet[0].Client.RemoveBackground(t.Context(), bytes.NewReader(data), int64(len(data)), nil, &want, nil)
		require.NoError(t, err)
		assert.Equal(t, want.Bytes(), obj, "%s is the service's output of %s", name, key)
	}

	done, skipped = run(true)
	assert.Zero(t, done)
	assert.Equal(t, n, skipped)
}
