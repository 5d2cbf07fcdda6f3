//go:build cuda && linux

package gpu

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// countingDriver is the emulator's driver with every kernel launch and
// stream synchronisation counted per stage: the engine's method (of run,
// stages or Engine) on the calling stack, the job's closure included.
type countingDriver struct {
	*emuDriver
	mu       sync.Mutex
	launches map[string]int
	syncs    map[string]int
	kernels  map[string]int // launches per kernel
}

func newCountingDriver(t testing.TB) *countingDriver {
	return &countingDriver{emuDriver: newEmuDriver(t), launches: map[string]int{}, syncs: map[string]int{}, kernels: map[string]int{}}
}

// stageOf names the engine stage on the calling stack: the first frame
// of a method of run or stages (Analyse, FitBackground, ...), else of
// Engine, else "setup".
func stageOf() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		for _, recv := range []string{"gpu.(*run).", "gpu.stages.", "gpu.(*Engine)."} {
			if i := strings.Index(f.Function, recv); i >= 0 {
				name := f.Function[i+len(recv):]
				if j := strings.IndexByte(name, '.'); j >= 0 {
					name = name[:j] // a closure of the method
				}
				return name
			}
		}
		if !more {
			return "setup"
		}
	}
}

func (d *countingDriver) LaunchKernel(fn handle, grid, block [3]uint32, shared uint32, stream handle, params []unsafe.Pointer) result {
	stage := stageOf()
	d.emuDriver.mu.Lock()
	name := d.funcs[fn]
	d.emuDriver.mu.Unlock()
	d.mu.Lock()
	d.launches[stage]++
	d.kernels[name]++
	d.mu.Unlock()
	return d.emuDriver.LaunchKernel(fn, grid, block, shared, stream, params)
}

func (d *countingDriver) StreamSynchronize(s handle) result {
	stage := stageOf()
	d.mu.Lock()
	d.syncs[stage]++
	d.mu.Unlock()
	return d.emuDriver.StreamSynchronize(s)
}

// reset forgets the counts so far.
func (d *countingDriver) reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	clear(d.launches)
	clear(d.syncs)
	clear(d.kernels)
}

// table is the counts as text, a stage a line, and the totals.
func (d *countingDriver) table() (text string, launches, syncs int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	stages := map[string]bool{}
	for s := range d.launches {
		stages[s] = true
	}
	for s := range d.syncs {
		stages[s] = true
	}
	var names []string
	for s := range stages {
		names = append(names, s)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, s := range names {
		fmt.Fprintf(&b, "%-20s %4d launches %3d syncs\n", s, d.launches[s], d.syncs[s])
		launches += d.launches[s]
		syncs += d.syncs[s]
	}
	fmt.Fprintf(&b, "%-20s %4d launches %3d syncs\n", "total", launches, syncs)
	var ks []string
	for k, n := range d.kernels {
		ks = append(ks, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(ks)
	fmt.Fprintf(&b, "per kernel: %s\n", strings.Join(ks, ", "))
	return b.String(), launches, syncs
}

// perImage is the launches and synchronisations of each stage of one
// RemoveAndComposite (the package doc's table; the sequence does not
// depend on the image's size). Before the parallel radix select and the
// clean-up's tiles: FitBackground 190, FieldThreshold 33, Classify 222
// launches, 471 in all.
var perImage = map[string][2]int{
	"Begin":          {0, 1},
	"analyse":        {2, 1},
	"FitBackground":  {115, 2},
	"FieldGrid":      {3, 3},
	"FieldThreshold": {18, 3},
	"bgDistance":     {3, 3},
	"Classify":       {204, 3},
	"SamplePlate":    {8, 2},
	"PlanRefine":     {8, 2},
	"refineImages":   {1, 0},
	"CompositeRun":   {1, 1},
}

// TestLaunchesAndSyncsPerImage counts, on the emulator, the kernel
// launches and stream synchronisations of one removal with its
// composite as the mock servers call the engine (RemoveAndComposite,
// general mode, transparent background) of a 1200×900 product shot, per
// stage, logs them (run with -v) and checks them against perImage, so
// that a stage that gains a launch or a synchronisation shows here.
func TestLaunchesAndSyncsPerImage(t *testing.T) {
	t.Parallel()
	d := newCountingDriver(t)
	e, err := newEngine(d, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	img, _ := synth.Product(5, 1200, 900, synth.Gradient)
	ctx := context.Background()
	d.reset()
	_, _, err = e.RemoveAndComposite(ctx, img, matting.Options{}, matting.Background{})
	require.NoError(t, err)
	text, launches, syncs := d.table()
	t.Logf("per image (1200x900, general mode, transparent):\n%s", text)
	d.mu.Lock()
	got := map[string][2]int{}
	for s, n := range d.launches {
		got[s] = [2]int{n, d.syncs[s]}
	}
	for s, n := range d.syncs {
		got[s] = [2]int{d.launches[s], n}
	}
	d.mu.Unlock()
	require.Equal(t, perImage, got, "launches and synchronisations per stage")
	require.Equal(t, 363, launches)
	require.Equal(t, 21, syncs)
}
