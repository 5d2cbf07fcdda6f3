package containersvc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
)

func TestSweepDeletesFilesPastTTLOnTheClock(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.ImageTTL = 30 * time.Minute })
	m := f.svc.Mounts()
	up, herr := f.svc.Upload(t.Context(), "image/jpeg", bytes.NewReader(jpegBytes(t, 64, 48)))
	require.Nil(t, herr)
	res, herr := f.svc.Correct(t.Context(), up.ImageKey, nil)
	require.Nil(t, herr)
	out := filepath.Join(m.Output, outputName(t, res.CorrectedURL))

	f.clock.Advance(10 * time.Minute) // first sweep finds a direct-mode file
	f.placeInput(t, "direct.jpg", jpegBytes(t, 64, 48))
	f.clock.Advance(10 * time.Minute) // sweep 2: direct.jpg first seen at 20 min
	f.clock.Advance(9 * time.Minute)
	assert.FileExists(t, filepath.Join(m.Input, up.ImageKey))
	assert.FileExists(t, out)

	f.clock.Advance(time.Minute) // sweep 3 at 30 min: the upload and its output are 30 min old
	assert.NoFileExists(t, filepath.Join(m.Input, up.ImageKey))
	assert.NoFileExists(t, out)
	assert.FileExists(t, filepath.Join(m.Input, "direct.jpg"))

	f.clock.Advance(20 * time.Minute) // sweep 5 at 50 min: direct.jpg is 30 min old
	assert.NoFileExists(t, filepath.Join(m.Input, "direct.jpg"))
	assert.NotNil(t, f.logs.find(t, MsgCleanedUp))
	assert.Equal(t, 1, f.clock.Pending(), "the sweep keeps rescheduling itself")
}

// replaceInput deletes input/name and places data under that name again,
// as a user replacing a file in direct file mode does.
func (f *fixture) replaceInput(t *testing.T, name string, data []byte) {
	t.Helper()
	require.NoError(t, os.Remove(filepath.Join(f.svc.Mounts().Input, name)))
	f.placeInput(t, name, data)
}

// TestSweepAgesAReplacedFileAnew: a direct-mode file deleted and placed
// again under the same name between two sweeps is a new file, whose age
// starts when the next sweep sees it; it inherited the old file's age and
// was deleted early.
func TestSweepAgesAReplacedFileAnew(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.ImageTTL = 30 * time.Minute })
	in := filepath.Join(f.svc.Mounts().Input, "direct.jpg")
	f.placeInput(t, "direct.jpg", jpegBytes(t, 64, 48))
	f.clock.Advance(10 * time.Minute) // sweep 1: first seen at 10 min
	f.clock.Advance(10 * time.Minute) // sweep 2
	f.replaceInput(t, "direct.jpg", jpegBytes(t, 80, 48))
	f.clock.Advance(10 * time.Minute) // sweep 3: the new file, first seen at 30 min
	f.clock.Advance(10 * time.Minute) // sweep 4 at 40 min: the old file would be 30 min old
	assert.FileExists(t, in)
	f.clock.Advance(20 * time.Minute) // sweep 6 at 60 min: the new file is 30 min old
	assert.NoFileExists(t, in)
}

// TestSweepAgesAReplacedCorrectedFileAnew: a correction of a file placed
// again under a name corrected before starts the new file's age.
func TestSweepAgesAReplacedCorrectedFileAnew(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.ImageTTL = 60 * time.Minute })
	in := filepath.Join(f.svc.Mounts().Input, "a.jpg")
	f.placeInput(t, "a.jpg", jpegBytes(t, 64, 48))
	_, herr := f.svc.Correct(t.Context(), "a.jpg", nil) // first seen at 0
	require.Nil(t, herr)
	f.clock.Advance(55 * time.Minute)
	f.replaceInput(t, "a.jpg", jpegBytes(t, 80, 48))
	_, herr = f.svc.Correct(t.Context(), "a.jpg", nil) // the new file, first seen at 55 min
	require.Nil(t, herr)
	f.clock.Advance(5 * time.Minute) // sweep at 60 min: the old file would be 60 min old
	assert.FileExists(t, in)
	f.clock.Advance(60 * time.Minute) // sweep at 120 min: the new file is 65 min old
	assert.NoFileExists(t, in)
}

// TestSweepScalesTheTTL: with -time-scale the TTL is a scaled duration
// like the sweep interval, so ages are measured with clock.Since; they were
// wall time, and a file lived a thousand times too long at 0.001.
func TestSweepScalesTheTTL(t *testing.T) {
	t.Parallel()
	scaled, err := clock.NewScaled(1e-4) // a minute of TTL is 6 ms of wall time
	require.NoError(t, err)
	f := newFixture(t, func(c *Config) { c.ImageTTL, c.Clock = time.Minute, scaled })
	f.placeInput(t, "direct.jpg", []byte("x"))
	f.svc.Sweep()                     // first seen now, unless a scheduled sweep saw it first
	time.Sleep(10 * time.Millisecond) // at least 100 s on the clock
	f.svc.Sweep()
	assert.NoFileExists(t, filepath.Join(f.svc.Mounts().Input, "direct.jpg"))
}

func TestSweepLogsFilesItCannotDelete(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.ImageTTL = time.Minute })
	f.svc.remove = func(string) error { return errors.New("read-only file system") }
	f.placeInput(t, "stuck.jpg", []byte("x"))
	f.clock.Advance(SweepInterval) // first seen
	f.clock.Advance(SweepInterval) // due, deletion fails
	line := f.logs.find(t, MsgCleanUpFile)
	require.NotNil(t, line)
	assert.Equal(t, "info", line["level"])
	assert.Equal(t, "input/stuck.jpg", line["file"])
	assert.FileExists(t, filepath.Join(f.svc.Mounts().Input, "stuck.jpg"))
}

func TestSweepLeavesTemporariesAndStopsOnClose(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.ImageTTL = time.Minute })
	tmp := filepath.Join(f.svc.Mounts().Input, ".upload-1")
	require.NoError(t, os.WriteFile(tmp, nil, 0o644))
	assert.Empty(t, f.svc.Sweep())
	f.clock.Advance(time.Hour)
	assert.FileExists(t, tmp)
	f.svc.Close()
	f.svc.Close()
	assert.Equal(t, 0, f.clock.Pending())
}

func TestVersionDocument(t *testing.T) {
	t.Parallel()
	comp := false
	f := newFixture(t, func(c *Config) {
		c.SiteURL, c.ImageTTL, c.EnableComposite = "https://pfc.example", 90*time.Minute, &comp
		c.SkipEXIFSoftware = []string{"A", "B"}
	})
	v := f.svc.Version()
	assert.Equal(t, BuildLabel, v.Version)
	assert.True(t, v.License.Valid)
	assert.NotContains(t, v.Features, "composite")
	assert.Contains(t, v.Features, "ai-scene-detection")
	assert.Equal(t, map[string]string{
		EnvSiteURL: "https://pfc.example", EnvLogLevel: "debug", EnvImageCacheTTL: "90", EnvAVX: "auto",
		EnvUseFastFAE: "false", EnvSkipMode: "clipart", EnvSkipEXIFSoftware: "A,B",
		EnvPreserveInputFileName: "false", EnvEnableComposite: "false", EnvUseAIServer: "true",
	}, v.Settings)
	assert.Len(t, v.Settings, len(EnvNames()))
}
