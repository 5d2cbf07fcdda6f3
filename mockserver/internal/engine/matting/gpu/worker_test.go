//go:build linux

package gpu

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openFake(t *testing.T, f *fakeDriver) *device {
	t.Helper()
	d, err := openDevice(f, deviceConfig{ptx: kernelsPTX, tables: [numTables][]float32{{1, 2}, {3, 4}}})
	require.NoError(t, err)
	return d
}

func TestWorkerOneThread(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	d := openFake(t, f)
	assert.Equal(t, "Fake GPU", d.name)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := d.do(context.Background(), func(w *worker) error {
				p, err := w.uploadNew([]byte{1, 2, 3})
				if err != nil {
					return err
				}
				if err := w.launch(kMedian3, 10, p, p, 1, 1); err != nil {
					return err
				}
				got := make([]byte, 3)
				if err := w.download(got, p); err != nil {
					return err
				}
				if err := w.sync(); err != nil {
					return err
				}
				assert.Equal(t, []byte{1, 2, 3}, got)
				return w.release(p, 3)
			})
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	require.NoError(t, d.close())
	threads, live, retained, streams, modules := f.snapshot()
	assert.Equal(t, 1, threads, "every driver call on the worker's thread")
	assert.Zero(t, live, "every buffer freed at close")
	assert.Zero(t, retained)
	assert.Zero(t, streams)
	assert.Zero(t, modules)
	assert.Len(t, f.launches, 8)
	for _, l := range f.launches {
		assert.Equal(t, fakeLaunch{name: kMedian3, grid: [3]uint32{1, 1, 1}, block: [3]uint32{blockSize, 1, 1}, params: 4}, l)
	}
}

func TestWorkerCancelledBeforeStart(t *testing.T) {
	t.Parallel()
	d := openFake(t, newFakeDriver())
	defer func() { require.NoError(t, d.close()) }()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	err := d.do(ctx, func(*worker) error { ran = true; return nil })
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, ran)
}

func TestWorkerJobErrorAndPanic(t *testing.T) {
	t.Parallel()
	d := openFake(t, newFakeDriver())
	defer func() { require.NoError(t, d.close()) }()
	boom := errors.New("boom")
	require.ErrorIs(t, d.do(context.Background(), func(*worker) error { return boom }), boom)
	err := d.do(context.Background(), func(*worker) error { panic("kernel") })
	require.ErrorContains(t, err, "panicked: kernel")
	require.NoError(t, d.do(context.Background(), func(*worker) error { return nil }), "the worker survives")
}

func TestWorkerClosed(t *testing.T) {
	t.Parallel()
	d := openFake(t, newFakeDriver())
	require.NoError(t, d.close())
	require.NoError(t, d.close(), "idempotent")
	require.ErrorIs(t, d.do(context.Background(), func(*worker) error { return nil }), ErrClosed)
}

func TestWorkerDriverErrorsNamed(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	f.names[2] = "CUDA_ERROR_OUT_OF_MEMORY"
	d := openFake(t, f)
	defer func() { require.NoError(t, d.close()) }()
	f.mu.Lock()
	f.fail["cuMemAlloc"] = 2
	f.mu.Unlock()
	err := d.do(context.Background(), func(w *worker) error { _, err := w.alloc(10); return err })
	var de *DriverError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, DriverError{Op: "cuMemAlloc", Code: 2, Name: "CUDA_ERROR_OUT_OF_MEMORY"}, *de)
	assert.EqualError(t, err, "gpu: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2)")
}

func TestWorkerLaunchChecksArguments(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	d := openFake(t, f)
	defer func() { require.NoError(t, d.close()) }()
	err := d.do(context.Background(), func(w *worker) error { return w.launch(kMedian3, 10, devicePtr(1)) })
	require.ErrorContains(t, err, "takes 4 arguments, got 1")
	err = d.do(context.Background(), func(w *worker) error { return w.launch("nope", 10) })
	require.ErrorContains(t, err, `unknown kernel "nope"`)
	err = d.do(context.Background(), func(w *worker) error { return w.launch(kMedian3, 0, devicePtr(1), devicePtr(2), 0, 0) })
	require.NoError(t, err, "nothing to do: no launch")
	assert.Empty(t, f.launches)
}

func TestOpenDeviceFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		set    func(f *fakeDriver)
		is     error
		op     string
		code   int
		errMsg string
	}{
		{name: "no device count", set: func(f *fakeDriver) { f.devices = 0 }, is: ErrNoDevice},
		{name: "init no device", set: func(f *fakeDriver) { f.fail["cuInit"] = 100 }, is: ErrNoDevice, op: "cuInit", code: 100},
		{name: "init stub", set: func(f *fakeDriver) { f.fail["cuInit"] = 34 }, op: "cuInit", code: 34,
			errMsg: "gpu: cuInit: CUDA_ERROR_STUB_LIBRARY (34)"},
		{name: "bad ptx", set: func(f *fakeDriver) { f.fail["cuModuleLoadDataEx"] = 218 }, op: "cuModuleLoadDataEx", code: 218,
			errMsg: "gpu: cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (218): ptxas application ptx input, line 42; error   : Unknown symbol 'x'; ptxas fatal   : Ptx assembly aborted due to errors"},
		{name: "no function", set: func(f *fakeDriver) { f.fail["cuModuleGetFunction"] = 500 }, code: 500},
		{name: "tables oom", set: func(f *fakeDriver) { f.fail["cuMemAlloc"] = 2 }, op: "cuMemAlloc", code: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeDriver()
			c.set(f)
			_, err := openDevice(f, deviceConfig{ptx: kernelsPTX, tables: [numTables][]float32{{1}, {2}}})
			require.Error(t, err)
			if c.is != nil {
				assert.ErrorIs(t, err, c.is)
				assert.ErrorIs(t, err, ErrUnavailable)
			}
			if c.code != 0 {
				var de *DriverError
				require.ErrorAs(t, err, &de)
				assert.Equal(t, c.code, de.Code)
				if c.op != "" {
					assert.Equal(t, c.op, de.Op)
				}
			}
			if c.errMsg != "" {
				assert.EqualError(t, err, c.errMsg)
			}
			_, live, retained, streams, modules := f.snapshot()
			assert.Zero(t, live+retained+streams+modules, "setup undone")
		})
	}
}

func TestOpenDeviceBadOrdinal(t *testing.T) {
	t.Parallel()
	_, err := openDevice(newFakeDriver(), deviceConfig{ordinal: 3, ptx: kernelsPTX})
	require.ErrorIs(t, err, ErrNoDevice)
	assert.ErrorContains(t, err, "device 3 of 1")
}
