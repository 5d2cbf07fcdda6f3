package gpu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"
)

// job is one unit of device work, run by the worker goroutine.
type job struct {
	ctx  context.Context
	fn   func(w *worker) error
	done chan error // buffered: the worker never blocks on it
}

// device is a CUDA context, the kernels' module and the buffer pool,
// served by workers: goroutines locked to their OS threads (the driver's
// current context is per thread), each with its own stream, so that
// several jobs are in flight on the device at once and one job's host
// work overlaps the others' device work. Work reaches them through jobs;
// device is safe for concurrent use.
type device struct {
	jobs chan job
	quit chan struct{}
	exit chan error // the workers' teardown result, once
	name string
	// host recycles the host slices of runs' results.
	host *hostPool
	// runs holds a slot per run between Begin and Close (a cap on the
	// runs whose buffers the device holds at once).
	runs chan struct{}
	// pool is the workers' buffer pool (for the tests' accounting).
	pool *bufferPool

	closeOnce sync.Once
	closeErr  error
}

// worker is the state a worker goroutine owns; the first worker set up
// the context, module, functions, tables and pool, which the others
// share (read-only but for the pool, which locks).
type worker struct {
	drv    driver
	dev    int32
	ctx    handle
	mod    handle
	stream handle
	fns    map[string]handle
	pool   *bufferPool
	// tables are the lookup tables on the device, uploaded once (see
	// deviceConfig.tables); an entry is zero where none was given.
	tables [numTables]buf
}

// The lookup tables uploaded at device open, by index: tabLin and tabCbrt
// are matting.ColourTables, tabGamma and tabSRGB8 matting.CompositeTables.
const (
	tabLin = iota
	tabCbrt
	tabGamma
	tabSRGB8
	numTables
)

// table returns lookup table i on the device.
func (w *worker) table(i int) devicePtr { return w.tables[i].p }

// deviceConfig is what openDevice needs besides the driver.
type deviceConfig struct {
	ordinal     int
	streams     int    // workers, each with a stream (at least 1)
	maxRuns     int    // runs holding device buffers at once (at least 1)
	maxIdle     uint64 // device bytes kept pooled (bufferPool)
	maxIdleHost uint64 // host bytes kept pooled (hostPool)
	ptx         string
	tables      [numTables][]float32 // lookup tables uploaded once (tab*; empty ones are skipped)
}

// openDevice starts the first worker goroutine, which locks its OS
// thread, loads the driver state (init, device, primary context, stream,
// module, functions, tables) and starts the other workers (each the
// context made current on its thread and a stream of its own); then they
// serve jobs until close. It returns once the setup finished; on failure
// the workers have undone what they did.
func openDevice(drv driver, cfg deviceConfig) (*device, error) {
	d := &device{jobs: make(chan job), quit: make(chan struct{}), exit: make(chan error, 1), host: newHostPool(cfg.maxIdleHost),
		runs: make(chan struct{}, max(1, cfg.maxRuns))}
	ready := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// The thread is unlocked (given back to the scheduler, not
		// destroyed) only after teardown, which leaves no context current
		// on it. Letting the goroutine exit locked would end the thread:
		// with cgo and a driver library that ran on it, the kernel
		// emulator's test process crashed intermittently at that point.
		defer runtime.UnlockOSThread()
		w := &worker{drv: drv, fns: map[string]handle{}}
		name, err := w.setup(cfg)
		var helpers []chan error
		// stop ends the started helpers (quit is closed), then the first
		// worker's state.
		stop := func() error {
			var first error
			for _, h := range helpers {
				if herr := <-h; herr != nil && first == nil {
					first = herr
				}
			}
			if terr := w.teardown(); terr != nil && first == nil {
				first = terr
			}
			return first
		}
		for i := 1; err == nil && i < cfg.streams; i++ {
			h := make(chan error, 1) // the helper's start, then its exit
			go w.helper(d, h)
			if err = <-h; err == nil {
				helpers = append(helpers, h)
			}
		}
		if err != nil {
			close(d.quit) // the device was never returned: nobody else closes it
			_ = stop()
			ready <- err
			return
		}
		d.name = name
		d.pool = w.pool
		ready <- nil
		d.serve(w)
		d.exit <- stop()
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	return d, nil
}

// serve runs jobs on w until quit.
func (d *device) serve(w *worker) {
	for {
		select {
		case j := <-d.jobs:
			if err := j.ctx.Err(); err != nil {
				j.done <- err
				continue
			}
			j.done <- w.run(j.fn)
		case <-d.quit:
			return
		}
	}
}

// helper is another worker sharing w's context, module, functions, tables
// and pool with a stream of its own: it reports its start on res, serves
// jobs until quit, and reports its teardown on res.
func (w *worker) helper(d *device, res chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	drv := w.drv
	h := &worker{drv: drv, dev: w.dev, mod: w.mod, fns: w.fns, pool: w.pool, tables: w.tables}
	if err := check(drv, "cuCtxSetCurrent", drv.CtxSetCurrent(w.ctx)); err != nil {
		res <- err
		return
	}
	if err := check(drv, "cuStreamCreate", drv.StreamCreate(&h.stream, 1 /* CU_STREAM_NON_BLOCKING */)); err != nil {
		_ = drv.CtxSetCurrent(0)
		res <- err
		return
	}
	res <- nil
	d.serve(h)
	err := check(drv, "cuStreamSynchronize", drv.StreamSynchronize(h.stream))
	if derr := check(drv, "cuStreamDestroy", drv.StreamDestroy(h.stream)); err == nil {
		err = derr
	}
	if cerr := check(drv, "cuCtxSetCurrent", drv.CtxSetCurrent(0)); err == nil {
		err = cerr
	}
	res <- err
}

// run calls fn, turning a panic into an error so that the worker survives.
func (w *worker) run(fn func(w *worker) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("gpu: device job panicked: %v", p)
		}
	}()
	return fn(w)
}

// do runs fn on the worker and returns its error. If ctx ends before the
// worker takes the job, fn does not run; once running, a job (a few
// kernels and copies) is waited for, so that its host buffers are not
// reused while the device writes them.
func (d *device) do(ctx context.Context, fn func(w *worker) error) error {
	j := job{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case d.jobs <- j:
	case <-ctx.Done():
		return ctx.Err()
	case <-d.quit:
		return ErrClosed
	}
	return <-j.done
}

// beginRun takes a run's slot, waiting while maxRuns runs hold one; the
// run gives it back with endRun at its Close.
func (d *device) beginRun(ctx context.Context) error {
	select {
	case d.runs <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-d.quit:
		return ErrClosed
	}
}

// endRun gives back a slot of beginRun.
func (d *device) endRun() { <-d.runs }

// close stops the workers after the jobs already taken and releases the
// device state. It is idempotent.
func (d *device) close() error {
	d.closeOnce.Do(func() {
		close(d.quit)
		d.closeErr = <-d.exit
		d.host.drain()
	})
	return d.closeErr
}

func (w *worker) setup(cfg deviceConfig) (string, error) {
	d := w.drv
	if err := check(d, "cuInit", d.Init(0)); err != nil {
		var de *DriverError
		if errors.As(err, &de) && result(de.Code) == cudaNoDevice {
			return "", fmt.Errorf("%w: %w", ErrNoDevice, err)
		}
		return "", err
	}
	var n int32
	if err := check(d, "cuDeviceGetCount", d.DeviceGetCount(&n)); err != nil {
		return "", err
	}
	if n == 0 {
		return "", ErrNoDevice
	}
	if cfg.ordinal < 0 || cfg.ordinal >= int(n) {
		return "", fmt.Errorf("%w: device %d of %d", ErrNoDevice, cfg.ordinal, n)
	}
	if err := check(d, "cuDeviceGet", d.DeviceGet(&w.dev, int32(cfg.ordinal))); err != nil {
		return "", err
	}
	nameBuf := make([]byte, 256)
	name := fmt.Sprintf("CUDA device %d", cfg.ordinal)
	if d.DeviceGetName(nameBuf, w.dev) == cudaSuccess {
		if i := indexByte(nameBuf, 0); i > 0 {
			name = string(nameBuf[:i])
		}
	}
	var ctx handle
	if err := check(d, "cuDevicePrimaryCtxRetain", d.DevicePrimaryCtxRetain(&ctx, w.dev)); err != nil {
		return "", err
	}
	w.ctx = ctx
	if err := check(d, "cuCtxSetCurrent", d.CtxSetCurrent(ctx)); err != nil {
		return "", err
	}
	if err := check(d, "cuStreamCreate", d.StreamCreate(&w.stream, 1 /* CU_STREAM_NON_BLOCKING */)); err != nil {
		return "", err
	}
	img := append([]byte(cfg.ptx), 0)
	jitLog := make([]byte, jitLogSize)
	if err := check(d, "cuModuleLoadDataEx", d.ModuleLoadData(&w.mod, img, jitLog)); err != nil {
		var de *DriverError
		if errors.As(err, &de) {
			de.Detail = jitMessages(jitLog)
		}
		return "", err
	}
	for k := range kernelSig {
		var fn handle
		if err := check(d, "cuModuleGetFunction("+k+")", d.ModuleGetFunction(&fn, w.mod, k)); err != nil {
			return "", err
		}
		w.fns[k] = fn
	}
	w.pool = newBufferPool(d, cfg.maxIdle)
	uploaded := false
	for i, t := range cfg.tables {
		if len(t) == 0 {
			continue
		}
		p, err := w.uploadNew(bytesOf(t))
		if err != nil {
			return "", err
		}
		w.tables[i] = buf{p, uint64(4 * len(t))}
		uploaded = true
	}
	if uploaded {
		if err := w.sync(); err != nil {
			return "", err
		}
	}
	return name, nil
}

// teardown releases what setup acquired, in reverse, and returns the
// first error.
func (w *worker) teardown() error {
	d := w.drv
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if w.stream != 0 {
		add(check(d, "cuStreamSynchronize", d.StreamSynchronize(w.stream)))
	}
	if w.pool != nil {
		for _, t := range w.tables {
			if t.p != 0 {
				add(w.pool.put(t.p, t.n))
			}
		}
		add(w.pool.drain())
		if w.pool.live != 0 {
			add(fmt.Errorf("gpu: %d device buffers still in use at close", w.pool.live))
		}
	}
	if w.mod != 0 {
		add(check(d, "cuModuleUnload", d.ModuleUnload(w.mod)))
	}
	if w.stream != 0 {
		add(check(d, "cuStreamDestroy", d.StreamDestroy(w.stream)))
	}
	if w.ctx != 0 {
		add(check(d, "cuCtxSetCurrent", d.CtxSetCurrent(0)))
		add(check(d, "cuDevicePrimaryCtxRelease", d.DevicePrimaryCtxRelease(w.dev)))
	}
	if len(errs) == 0 {
		return nil
	}
	return errs[0]
}

// alloc returns a pooled device buffer of at least n bytes.
func (w *worker) alloc(n uint64) (devicePtr, error) { return w.pool.get(n) }

// release returns a buffer from alloc(n) to the pool.
func (w *worker) release(p devicePtr, n uint64) error { return w.pool.put(p, n) }

// upload queues a copy of src to dst on the stream.
func (w *worker) upload(dst devicePtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	r := w.drv.MemcpyHtoDAsync(dst, unsafe.Pointer(&src[0]), uint64(len(src)), w.stream)
	runtime.KeepAlive(src)
	return check(w.drv, "cuMemcpyHtoDAsync", r)
}

// uploadNew allocates a buffer for src and uploads it.
func (w *worker) uploadNew(src []byte) (devicePtr, error) {
	p, err := w.alloc(uint64(len(src)))
	if err != nil {
		return 0, err
	}
	if err := w.upload(p, src); err != nil {
		_ = w.release(p, uint64(len(src)))
		return 0, err
	}
	return p, nil
}

// download queues a copy of src to dst on the stream; dst must stay
// untouched until sync.
func (w *worker) download(dst []byte, src devicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	r := w.drv.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), src, uint64(len(dst)), w.stream)
	runtime.KeepAlive(dst)
	return check(w.drv, "cuMemcpyDtoHAsync", r)
}

// sync waits for the stream.
func (w *worker) sync() error {
	return check(w.drv, "cuStreamSynchronize", w.drv.StreamSynchronize(w.stream))
}

// launch queues kernel name over n elements with args, each a devicePtr,
// int, int32, uint32, float32 or bool, checked against the kernel's
// parameter count.
func (w *worker) launch(name string, n int64, args ...any) error {
	sig, ok := kernelSig[name]
	if !ok {
		return fmt.Errorf("gpu: unknown kernel %q", name)
	}
	if len(args) != len(sig) {
		return fmt.Errorf("gpu: kernel %s takes %d arguments, got %d", name, len(sig), len(args))
	}
	grid, block := launchConfig(n)
	if grid == 0 {
		return nil
	}
	slots, err := packArgs(sig, args)
	if err != nil {
		return fmt.Errorf("gpu: kernel %s: %w", name, err)
	}
	params := make([]unsafe.Pointer, len(slots))
	for i := range slots {
		params[i] = unsafe.Pointer(&slots[i])
	}
	r := w.drv.LaunchKernel(w.fns[name], [3]uint32{grid, 1, 1}, [3]uint32{block, 1, 1}, 0, w.stream, params)
	runtime.KeepAlive(slots)
	return check(w.drv, "cuLaunchKernel("+name+")", r)
}

// packArgs stores each kernel argument in an 8-byte little-endian slot
// (the driver reads as many bytes as the kernel's parameter has), checking
// its type against the signature letter (see kernelSig).
func packArgs(sig string, args []any) ([]uint64, error) {
	slots := make([]uint64, len(args))
	for i, a := range args {
		var kind byte
		switch a.(type) {
		case devicePtr:
			kind = 'p'
		case float32:
			kind = 'f'
		default:
			kind = 'i'
		}
		if kind != sig[i] {
			return nil, fmt.Errorf("argument %d is %T, the kernel expects %q", i, a, sig[i])
		}
		switch v := a.(type) {
		case devicePtr:
			slots[i] = uint64(v)
		case int:
			if v < math.MinInt32 || v > math.MaxInt32 {
				return nil, fmt.Errorf("argument %d (%d) overflows int32", i, v)
			}
			slots[i] = uint64(uint32(int32(v)))
		case int32:
			slots[i] = uint64(uint32(v))
		case uint32:
			slots[i] = uint64(v)
		case float32:
			slots[i] = uint64(math.Float32bits(v))
		case bool:
			if v {
				slots[i] = 1
			}
		default:
			return nil, fmt.Errorf("argument %d has unsupported type %T", i, a)
		}
	}
	return slots, nil
}

// bytesOf views a slice of plain values as bytes.
func bytesOf[T uint8 | int32 | int64 | float32 | float64 | bool](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

func indexByte(b []byte, c byte) int {
	for i, v := range b {
		if v == c {
			return i
		}
	}
	return -1
}
