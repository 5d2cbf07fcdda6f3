package gpu

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

// namer is a driver that only answers cuGetErrorName.
type namer struct {
	driver
	names map[result]string
}

func (n namer) GetErrorName(r result) (string, bool) {
	s, ok := n.names[r]
	return s, ok
}

func TestErrorName(t *testing.T) {
	t.Parallel()
	d := namer{names: map[result]string{2: "CUDA_ERROR_OUT_OF_MEMORY", 9999: "CUDA_ERROR_FUTURE"}}
	assert.Equal(t, "CUDA_ERROR_OUT_OF_MEMORY", errorName(d, 2), "the driver's name")
	assert.Equal(t, "CUDA_ERROR_FUTURE", errorName(d, 9999))
	assert.Equal(t, "CUDA_ERROR_INVALID_PTX", errorName(d, 218), "the headers' name")
	assert.Equal(t, "CUDA_ERROR_NO_DEVICE", errorName(nil, 100))
	assert.Equal(t, "CUresult(12345)", errorName(d, 12345))
	assert.NoError(t, check(d, "cuInit", 0))
	assert.EqualError(t, check(d, "cuLaunchKernel(refine)", 719), "gpu: cuLaunchKernel(refine): CUDA_ERROR_LAUNCH_FAILED (719)")
}

func TestErrorsMatch(t *testing.T) {
	t.Parallel()
	le := &LoadError{Library: "libcuda.so.1", Err: errors.New("cannot open shared object file")}
	assert.ErrorIs(t, le, ErrNoDriver)
	assert.ErrorIs(t, le, ErrUnavailable)
	assert.EqualError(t, le, "gpu: engine unavailable: CUDA driver not found: loading libcuda.so.1: cannot open shared object file")
	ls := &LoadError{Library: "libcuda.so.1", Symbol: "cuLaunchKernel", Err: errors.New("undefined symbol")}
	assert.EqualError(t, ls, "gpu: engine unavailable: CUDA driver not found: libcuda.so.1 has no cuLaunchKernel: undefined symbol")
	assert.ErrorIs(t, ErrNotCompiled, ErrUnavailable)
	assert.ErrorIs(t, ErrNoDevice, ErrUnavailable)
	assert.NotErrorIs(t, ErrClosed, ErrUnavailable)
}

func TestJITMessages(t *testing.T) {
	t.Parallel()
	assert.Empty(t, jitMessages(make([]byte, 16)), "nothing logged")
	assert.Equal(t, "a; b", jitMessages([]byte("a\n\n  b  \n\x00garbage")))
	assert.Equal(t, "cut", jitMessages([]byte("cut")), "a full buffer has no NUL")
}
