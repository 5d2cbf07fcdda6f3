package containersvc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigFromEnvDefaults(t *testing.T) {
	t.Parallel()
	c, err := ConfigFromEnv(env(nil))
	require.NoError(t, err)
	assert.Equal(t, DefaultSiteURL, c.SiteURL)
	assert.Equal(t, DefaultImageTTL, c.ImageTTL)
	assert.Equal(t, "auto", c.AVX)
	assert.Equal(t, "clipart", c.SkipMode)
	assert.False(t, c.PreserveInputFileName)
	assert.False(t, c.UseFastFAE)
	assert.Empty(t, c.SkipEXIFSoftware)
	require.NotNil(t, c.EnableComposite)
	assert.True(t, *c.EnableComposite)
	require.NotNil(t, c.UseAIServer)
	assert.True(t, *c.UseAIServer)
}

func TestConfigFromEnvValues(t *testing.T) {
	t.Parallel()
	c, err := ConfigFromEnv(env(map[string]string{
		EnvSiteURL: "http://pfc.local:8080/", EnvLogLevel: "DEBUG", EnvImageCacheTTL: "15",
		EnvAVX: "OFF", EnvUseFastFAE: "true", EnvSkipMode: "legacy",
		EnvSkipEXIFSoftware: " Lightroom, ,Photoshop ", EnvPreserveInputFileName: "TRUE",
		EnvEnableComposite: "false", EnvUseAIServer: "false",
	}))
	require.NoError(t, err)
	assert.Equal(t, "http://pfc.local:8080", c.SiteURL)
	assert.Equal(t, "DEBUG", c.LogLevel)
	assert.Equal(t, 15*time.Minute, c.ImageTTL)
	assert.Equal(t, "off", c.AVX)
	assert.True(t, c.UseFastFAE)
	assert.Equal(t, "legacy", c.SkipMode)
	assert.Equal(t, []string{"Lightroom", "Photoshop"}, c.SkipEXIFSoftware)
	assert.True(t, c.PreserveInputFileName)
	assert.False(t, *c.EnableComposite)
	assert.False(t, *c.UseAIServer)
}

func TestConfigFromEnvErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, value string }{
		{EnvSiteURL, "localhost"},
		{EnvSiteURL, "ftp://x"},
		{EnvImageCacheTTL, "ten"},
		{EnvImageCacheTTL, "0"},
		{EnvAVX, "maybe"},
		{EnvUseFastFAE, "yes"},
		{EnvSkipMode, "photos"},
		{EnvPreserveInputFileName, "1"},
		{EnvEnableComposite, "on"},
		{EnvUseAIServer, "off"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			t.Parallel()
			_, err := ConfigFromEnv(env(map[string]string{tc.name: tc.value}))
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), tc.name)
		})
	}
}

func TestNewRequiresRoot(t *testing.T) {
	t.Parallel()
	_, err := New(Config{}, Deps{})
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), "Root")
}

func TestLogLevelFilterAndFallback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		level     string
		wantDebug bool
		wantWarn  bool // the unknownLogLevelMessage line
	}{
		{"debug", true, false},
		{"Info", false, false},
		{"", false, false},
		{"verbose", false, true},
		{"error", false, false},
	} {
		t.Run(tc.level, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, func(c *Config) { c.LogLevel = tc.level })
			_, herr := f.svc.Correct(t.Context(), "", nil) // noIdMessage is debug
			require.NotNil(t, herr)
			assert.Equal(t, tc.wantDebug, f.logs.find(t, MsgNoID) != nil)
			warn := f.logs.find(t, MsgUnknownLogLevel)
			assert.Equal(t, tc.wantWarn, warn != nil)
			if warn != nil {
				assert.Equal(t, "warning", warn["level"])
				assert.Equal(t, "info", f.svc.Settings()[EnvLogLevel])
			}
		})
	}
}

func TestPrepareRoot(t *testing.T) {
	t.Parallel()
	root := t.TempDir() + "/c"
	m, created, err := PrepareRoot(root)
	require.NoError(t, err)
	assert.True(t, created)
	for _, d := range []string{m.License, m.Presets, m.Addons, m.Input, m.Output, m.Scene} {
		assert.DirExists(t, d)
	}
	_, created, err = PrepareRoot(root)
	require.NoError(t, err)
	assert.False(t, created)
}

// TestNewOwnsItsConfig: a caller that edits the slice or the booleans of
// its Config (pfcmock.Options) after New does not change the running
// mock's defaults.
func TestNewOwnsItsConfig(t *testing.T) {
	t.Parallel()
	on := true
	cfg := Config{Root: t.TempDir(), SkipEXIFSoftware: []string{"Editor"}, EnableComposite: &on, UseAIServer: &on}
	svc, err := New(cfg, Deps{Engine: testEngine(t)})
	require.NoError(t, err)
	t.Cleanup(svc.Close)
	cfg.SkipEXIFSoftware[0], on = "changed", false
	assert.Equal(t, []string{"Editor"}, svc.cfg.SkipEXIFSoftware)
	assert.True(t, *svc.cfg.EnableComposite)
	assert.True(t, *svc.cfg.UseAIServer)
}
