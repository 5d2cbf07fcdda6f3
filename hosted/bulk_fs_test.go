package hosted_test

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/pfc"
)

// bufSink is a pfc.Sink in memory, publishing complete writes only.
type bufSink struct {
	mu   sync.Mutex
	objs map[string][]byte
}

func (s *bufSink) Put(ctx context.Context, name string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.objs == nil {
		s.objs = map[string][]byte{}
	}
	s.objs[name] = buf.Bytes()
	return nil
}

func (s *bufSink) Exists(_ context.Context, name string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.objs[name]
	return ok, nil
}

// TestCorrectDirFSToSink: an fs.FS into a Sink, sharded: the two shards
// publish every image once between them, without a manifest.
func TestCorrectDirFSToSink(t *testing.T) {
	t.Parallel()
	_, c, _ := startInstantMock(t)
	src := fstest.MapFS{}
	for i := range 8 {
		src["p/"+string(rune('a'+i))+".jpg"] = &fstest.MapFile{Data: smallJPEG(t, i, 64, 48)}
	}
	sink := &bufSink{}
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
	require.Len(t, sink.objs, 8)
	for name, b := range sink.objs {
		assert.Equal(t, []byte{0xff, 0xd8}, b[:2], name)
	}
}
