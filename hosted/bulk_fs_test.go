package hosted_test

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/internal/bulk/bulktest"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestCorrectDirFSToSink: an fs.FS into a Sink, sharded: the two shards
// publish every image once between them, without a manifest.
func TestCorrectDirFSToSink(t *testing.T) {
	t.Parallel()
	_, c, _ := startInstantMock(t)
	src := fstest.MapFS{}
	for i := range 8 {
		src["p/"+string(rune('a'+i))+".jpg"] = &fstest.MapFile{Data: smallJPEG(t, i, 64, 48)}
	}
	sink := &bulktest.MemSink{}
	done := 0
	for i := range 2 {
		rep, err := c.CorrectDir(t.Context(), "p", "out", hosted.NewCorrection(), &pfc.BulkOptions[*hosted.Job]{
			Source: src, Sink: sink, Shard: pfc.Shard{Index: i, Count: 2},
		})
		require.NoError(t, err)
		assert.Equal(t, pfc.Shard{Index: i, Count: 2}, rep.Shard)
		assert.Zero(t, rep.Failed, "%+v", rep.Failures)
		done += rep.Done
	}
	assert.Equal(t, 8, done)
	objs := sink.Objects()
	require.Len(t, objs, 8)
	for name, b := range objs {
		assert.Equal(t, []byte{0xff, 0xd8}, b[:2], name)
	}
}
