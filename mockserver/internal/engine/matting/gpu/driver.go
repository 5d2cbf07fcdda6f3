package gpu

import "unsafe"

// devicePtr is a CUdeviceptr.
type devicePtr uint64

// handle is a CUcontext, CUmodule, CUfunction or CUstream.
type handle uintptr

// driver is the part of the CUDA driver API the engine uses: one method
// per entry point, returning the raw CUresult. driver_cuda.go binds it to
// libcuda.so.1 with purego (build tag cuda); the tests use a fake. Methods
// other than GetErrorName are only called from the engine's worker
// goroutine, locked to its OS thread.
type driver interface {
	Init(flags uint32) result
	DeviceGetCount(count *int32) result
	DeviceGet(dev *int32, ordinal int32) result
	DeviceGetName(name []byte, dev int32) result
	DevicePrimaryCtxRetain(ctx *handle, dev int32) result
	DevicePrimaryCtxRelease(dev int32) result
	CtxSetCurrent(ctx handle) result
	// ModuleLoadData loads a NUL-terminated PTX image (cuModuleLoadDataEx);
	// where the JIT compiler fails, it writes its messages into errLog
	// (NUL-terminated, cut to the buffer).
	ModuleLoadData(mod *handle, image, errLog []byte) result
	ModuleUnload(mod handle) result
	ModuleGetFunction(fn *handle, mod handle, name string) result
	MemAlloc(ptr *devicePtr, size uint64) result
	MemFree(ptr devicePtr) result
	MemcpyHtoDAsync(dst devicePtr, src unsafe.Pointer, size uint64, stream handle) result
	MemcpyDtoHAsync(dst unsafe.Pointer, src devicePtr, size uint64, stream handle) result
	// LaunchKernel launches fn; params points at each argument's value.
	LaunchKernel(fn handle, grid, block [3]uint32, sharedMem uint32, stream handle, params []unsafe.Pointer) result
	StreamCreate(stream *handle, flags uint32) result
	StreamSynchronize(stream handle) result
	StreamDestroy(stream handle) result
	// GetErrorName is cuGetErrorName; ok is false when the driver does
	// not know r.
	GetErrorName(r result) (name string, ok bool)
}
