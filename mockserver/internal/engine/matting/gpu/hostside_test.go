//go:build cuda && linux

package gpu

import (
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// timedDriver is the emulator's driver with the time spent in device work
// (kernels and copies, which a GPU does instead) counted.
type timedDriver struct {
	*emuDriver
	device   atomic.Int64 // nanoseconds
	h2d, d2h atomic.Int64 // bytes copied each way
}

func (d *timedDriver) since(t time.Time) { d.device.Add(int64(time.Since(t))) }

func (d *timedDriver) LaunchKernel(fn handle, grid, block [3]uint32, shared uint32, stream handle, params []unsafe.Pointer) result {
	defer d.since(time.Now())
	return d.emuDriver.LaunchKernel(fn, grid, block, shared, stream, params)
}

func (d *timedDriver) MemcpyHtoDAsync(dst devicePtr, src unsafe.Pointer, size uint64, s handle) result {
	defer d.since(time.Now())
	d.h2d.Add(int64(size))
	return d.emuDriver.MemcpyHtoDAsync(dst, src, size, s)
}

func (d *timedDriver) MemcpyDtoHAsync(dst unsafe.Pointer, src devicePtr, size uint64, s handle) result {
	defer d.since(time.Now())
	d.d2h.Add(int64(size))
	return d.emuDriver.MemcpyDtoHAsync(dst, src, size, s)
}

// BenchmarkEmulatedHostSide12MP runs the 12 MP end-to-end benchmark of
// BenchmarkGPU12MP on the kernel emulator and reports the time outside
// device work (host-ms/op): the stages the GPU engine leaves on the CPU
// and its Go side. It is a floor of the GPU engine's time per image, known
// without a GPU; the ratio of BenchmarkCPU12MP's time to it bounds the
// speed-up the GPU engine can reach at the same GOMAXPROCS. The emulated
// device time (emulated-device-ms/op) says nothing of a GPU's. It also
// reports the bytes copied to and from the device per image (h2d-MB/op,
// d2h-MB/op), which a GPU moves over PCIe.
func BenchmarkEmulatedHostSide12MP(b *testing.B) {
	d := &timedDriver{emuDriver: newEmuDriver(b)}
	e, err := newEngine(d, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	benchEndToEnd(b, e)
	perOp := func(ns int64) float64 { return float64(ns) / float64(b.N) / 1e6 }
	device := d.device.Load()
	b.ReportMetric(perOp(b.Elapsed().Nanoseconds()-device), "host-ms/op")
	b.ReportMetric(perOp(device), "emulated-device-ms/op")
	b.ReportMetric(float64(d.h2d.Load())/float64(b.N)/1e6, "h2d-MB/op")
	b.ReportMetric(float64(d.d2h.Load())/float64(b.N)/1e6, "d2h-MB/op")
}

// BenchmarkReferenceCPU12MP is BenchmarkCPU12MP without a GPU: the CPU
// engine end to end at 12 MP, to set against the host side above.
func BenchmarkReferenceCPU12MP(b *testing.B) { benchEndToEnd(b, matting.NewCPU()) }
