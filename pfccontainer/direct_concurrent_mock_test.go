package pfccontainer_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// Direct file mode shared by concurrent callers: one container, its /input
// and /output, several runs or calls at once with the same file names.
// The mock runs unlicensed, so a corrected file is its input unchanged and
// every output can be checked pixel by pixel against its own input.

// solid is a 64x64 PNG of one colour.
func solid(t testing.TB, c color.NRGBA) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

// colourOf is the colour of run's item: distinct for every pair.
func colourOf(run, item int) color.NRGBA {
	return color.NRGBA{R: uint8(20 + 25*run), G: uint8(4 + 7*item), B: uint8(255 - 9*run - 3*item), A: 255}
}

// wrongPixels counts the pixels of the PNG at path that are not want; all
// of them when the file is missing or no PNG.
func wrongPixels(t *testing.T, path string, want color.NRGBA) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return 64 * 64
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return 64 * 64
	}
	wrong := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.NRGBAModel.Convert(img.At(x, y)) != want {
				wrong++
			}
		}
	}
	return wrong
}

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestDirectConcurrentRunsKeepTheirImages: 8 Direct.CorrectDir runs at
// once on one container, each of 16 images under the same relative names
// (in other input and output trees), get every output from their own
// input; once done, none of their files is left in the container's
// folders, and a file there that is no run's own is left alone. (The name
// placed in /input depended on the relative path alone: runs swapped
// images.) 16 images a run, not 32: the runs' names collide all the same
// (runs sharing one name prefix fail at 8), and the test's time is file
// system calls.
func TestDirectConcurrentRunsKeepTheirImages(t *testing.T) {
	t.Parallel()
	const runs, items = 8, 16
	ts, c, _ := start(t, &pfcmock.Options{Unlicensed: true})
	d := c.Direct(ts.Mock.InputDir(), ts.Mock.OutputDir())
	const foreign = "photo00.png"
	require.NoError(t, os.WriteFile(filepath.Join(d.InputDir, foreign), solid(t, colourOf(0, 0)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(d.OutputDir, foreign), solid(t, colourOf(0, 0)), 0o644))

	rel := func(item int) string {
		return filepath.Join(fmt.Sprintf("set%d", item%4), fmt.Sprintf("photo%02d.png", item))
	}
	ins, outs := make([]string, runs), make([]string, runs)
	for r := range runs {
		ins[r], outs[r] = t.TempDir(), t.TempDir()
		for i := range items {
			p := filepath.Join(ins[r], rel(i))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, solid(t, colourOf(r, i)), 0o644))
		}
	}
	var wg sync.WaitGroup
	reps, errs := make([]*pfc.BulkReport[*pfccontainer.Correction], runs), make([]error, runs)
	for r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[r], errs[r] = d.CorrectDir(t.Context(), ins[r], outs[r], nil, &pfc.BulkOptions[*pfccontainer.Correction]{Concurrency: 4})
		}()
	}
	wg.Wait()

	swapped := 0
	for r := range runs {
		require.NoError(t, errs[r])
		assert.Equal(t, items, reps[r].Done, "run %d: %+v", r, reps[r].Failures)
		for i := range items {
			if n := wrongPixels(t, filepath.Join(outs[r], rel(i)), colourOf(r, i)); n > 0 {
				swapped++
				t.Logf("run %d, %s: %d of %d pixels are not its own", r, rel(i), n, 64*64)
			}
		}
	}
	assert.Zero(t, swapped, "outputs holding another item's image, of %d", runs*items)
	assert.Equal(t, []string{foreign}, entries(t, d.InputDir), "only what is no run's own is left in /input")
	assert.Equal(t, []string{foreign}, entries(t, d.OutputDir), "and in /output")
}

// TestDirectConcurrentCorrectFile: single-file calls at once with the same
// base name (CorrectFile with and without a destination, PutFile then
// Correct) each get their own image back.
func TestDirectConcurrentCorrectFile(t *testing.T) {
	t.Parallel()
	const calls = 8
	ts, c, _ := start(t, &pfcmock.Options{Unlicensed: true})
	d := c.Direct(ts.Mock.InputDir(), ts.Mock.OutputDir())
	srcs := make([]string, 3*calls)
	for i := range srcs {
		srcs[i] = filepath.Join(t.TempDir(), "photo.png")
		require.NoError(t, os.WriteFile(srcs[i], solid(t, colourOf(i%8, i)), 0o644))
	}
	got := make([]string, len(srcs))
	errs := make([]error, len(srcs))
	var wg sync.WaitGroup
	for i, src := range srcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i % 3 {
			case 0: // to a destination of its own
				got[i] = filepath.Join(t.TempDir(), "photo.png")
				_, errs[i] = d.CorrectFile(t.Context(), src, got[i], nil, nil)
			case 1: // the result left in /output
				corr, err := d.CorrectFile(t.Context(), src, "", nil, nil)
				got[i], errs[i] = pathOf(corr), err
			default:
				var name string
				if name, errs[i] = d.PutFile(t.Context(), src); errs[i] == nil {
					corr, err := d.GetCorrection(t.Context(), name, nil)
					got[i], errs[i] = pathOf(corr), err
				}
			}
		}()
	}
	wg.Wait()
	swapped := 0
	for i := range srcs {
		require.NoError(t, errs[i], i)
		if n := wrongPixels(t, got[i], colourOf(i%8, i)); n > 0 {
			swapped++
			t.Logf("call %d (%s): %d of %d pixels are not its own", i, got[i], n, 64*64)
		}
	}
	assert.Zero(t, swapped, "results holding another call's image, of %d", len(srcs))
	for _, name := range entries(t, d.OutputDir) {
		assert.True(t, strings.HasSuffix(name, "-photo.png"), "the output keeps the source's name at its end: %s", name)
	}
}

// TestDirectLongSourceNames: a source whose name is as long as a file
// name can be (255 bytes) is corrected by CorrectFile and CorrectDir: the
// name placed in /input is cut to fit, the destination keeps the full
// name, and nothing is left in the container's folders.
func TestDirectLongSourceNames(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("b", 255-len(".png")) + ".png"
	in := t.TempDir()
	if err := os.WriteFile(filepath.Join(in, long), solid(t, colourOf(1, 2)), 0o644); err != nil {
		t.Skipf("this file system takes no 255-byte names: %v", err)
	}
	ts, c, _ := start(t, &pfcmock.Options{Unlicensed: true})
	d := c.Direct(ts.Mock.InputDir(), ts.Mock.OutputDir())

	dst := filepath.Join(t.TempDir(), long)
	_, err := d.CorrectFile(t.Context(), filepath.Join(in, long), dst, nil, nil)
	require.NoError(t, err)
	assert.Zero(t, wrongPixels(t, dst, colourOf(1, 2)))

	out := t.TempDir()
	rep, err := d.CorrectDir(t.Context(), in, out, nil, nil)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Done, "%+v", rep.Failures)
	assert.Zero(t, wrongPixels(t, filepath.Join(out, long), colourOf(1, 2)))
	assert.Empty(t, entries(t, d.InputDir))
	assert.Empty(t, entries(t, d.OutputDir))
}
