package streamtest

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPatternReadsTheSameBytesAtAnyOffset(t *testing.T) {
	t.Parallel()
	src := Pattern{Size: 3 * patternLen}
	all, err := io.ReadAll(io.NewSectionReader(src, 0, src.Size))
	require.NoError(t, err)
	require.Len(t, all, int(src.Size))
	buf := make([]byte, 100)
	n, err := src.ReadAt(buf, 5000)
	require.NoError(t, err)
	assert.Equal(t, all[5000:5100], buf[:n])
	n, err = src.ReadAt(buf, src.Size-10)
	assert.Equal(t, io.EOF, err)
	assert.Equal(t, all[src.Size-10:], buf[:n])
}

func TestJPEGStartsWithItsSignature(t *testing.T) {
	t.Parallel()
	buf := make([]byte, 32)
	n, err := JPEG{Size: 32}.ReadAt(buf, 0)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(buf[:n], jpegHead))
	p := make([]byte, 32)
	_, _ = Pattern{Size: 32}.ReadAt(p, 0)
	assert.Equal(t, p[len(jpegHead):], buf[len(jpegHead):], "the pattern after the signature")
	n, _ = JPEG{Size: 32}.ReadAt(buf[:4], 2)
	assert.Equal(t, jpegHead[2:6], buf[:n])
}

func TestPeakGrowthSeesAnAllocation(t *testing.T) {
	// Not parallel: it measures the heap.
	var keep []byte
	growth := PeakGrowth(func() {
		keep = make([]byte, 16<<20)
		keep[len(keep)-1] = 1
	})
	// Less a little slack: a collection during fn may free garbage that
	// was live at the baseline (other packages' parallel tests allocate).
	assert.GreaterOrEqual(t, growth, int64(16<<20-64<<10))
	assert.Equal(t, byte(1), keep[len(keep)-1])
}
