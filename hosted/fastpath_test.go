package hosted

import (
	"testing"

	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStartQueryMatchesQuery: the query StartJob sends, remembered or not,
// is byte for byte CorrectionOptions.Query, for a sequence of options that
// hits and misses the client's memo (same options with new file keys,
// equal *bool values behind other pointers, one field changed, errors).
func TestStartQueryMatchesQuery(t *testing.T) {
	t.Parallel()
	c, err := NewClient(testKey, pfc.WithBaseURL("https://x.test/v2"))
	require.NoError(t, err)
	f, tr := false, true
	f2 := false
	base := NewCorrection().WithCache(false).WithPreset("School and Sports").WithOutput(pfc.OutputJPEG, 85).WithLong(1200)
	steps := []*CorrectionOptions{
		base.Clone().WithFileKey("k1"),
		base.Clone().WithFileKey("k2 with space+plus&amp"),
		{FileKey: "k3", Cache: &f2, Preset: "School and Sports", OutputType: pfc.OutputJPEG, OutputQuality: 85, Long: 1200},
		base.Clone().WithFileKey("k4").WithPreserveMetadata(false),
		base.Clone().WithFileKey("k5").WithPreserveMetadata(true),
		{FileKey: "k6", Cache: &tr, PreserveMetadata: &f},
		{FileKey: "k7"},
		{FileKey: "k8", RemoveBackground: true, BgColor: "#ff00aa", BgShadow: ShadowSoft, WebhookURL: "https://hooks.test/p?token=s3cr3t-token-value"},
		{FileKey: "k9", RemoveBackground: true, BgColor: "#ff00aa", BgShadow: ShadowSoft, WebhookURL: "https://hooks.test/p?token=s3cr3t-token-value"},
		{FileKey: "k10", Autocrop: true, AutocropSize: "1.25", AutocropX: "0.5", Skip: pfc.SkipLegacy, RemoveGlares: true, UpdateThumbnail: true, IncludeDetectionData: true},
		{Preset: "x"},                   // no file key: invalid
		{FileKey: "k11", Width: 5},      // out of range
		base.Clone().WithFileKey("k12"), // back to the first options
		base.Clone(),                    // remembered options, no file key: invalid
		base.Clone().WithFileKey(" \t"), // remembered options, a blank file key: invalid
		base.Clone().WithFileKey("k13"),
	}
	encoded := 0
	for i, o := range steps {
		want, wantErr := o.Query()
		got, gotErr := c.startQuery(o)
		if wantErr != nil {
			require.Error(t, gotErr, "step %d", i)
			assert.Equal(t, wantErr.Error(), gotErr.Error(), "step %d", i)
			continue
		}
		require.NoError(t, gotErr, "step %d", i)
		assert.Equal(t, want, got, "step %d", i)
		encoded++
	}
	assert.Equal(t, len(steps)-4, encoded, "every step but the four invalid ones encoded")
}

// TestStartQueryAllocs: with the options remembered, the query for a new
// file key costs one allocation, the string itself (a key that needs no
// escaping). Not parallel: AllocsPerRun counts the whole process's
// allocations.
func TestStartQueryAllocs(t *testing.T) {
	c, err := NewClient(testKey, pfc.WithBaseURL("https://x.test/v2"))
	require.NoError(t, err)
	o := NewCorrection().WithCache(false).WithPreset("School and Sports").WithOutput(pfc.OutputJPEG, 85).WithLong(1200).WithFileKey("k1")
	_, err = c.startQuery(o)
	require.NoError(t, err)
	got := testing.AllocsPerRun(200, func() {
		if _, err := c.startQuery(o); err != nil {
			t.Fatal(err)
		}
	})
	assert.LessOrEqual(t, got, 1.0, "allocations per startQuery")
}

// TestValidateForUploadRemembered: options equal to those StartJob last
// encoded (file key aside) skip the check, and any other options get it.
func TestValidateForUploadRemembered(t *testing.T) {
	t.Parallel()
	c, err := NewClient(testKey, pfc.WithBaseURL("https://x.test/v2"))
	require.NoError(t, err)
	good := NewCorrection().WithPreset("School and Sports").WithLong(1200)
	bad := good.Clone().WithLong(1)
	require.Error(t, c.validateForUpload(bad))
	require.NoError(t, c.validateForUpload(good))
	_, err = c.startQuery(good.Clone().WithFileKey("k1"))
	require.NoError(t, err)
	assert.NoError(t, c.validateForUpload(good.Clone().WithFileKey("other")))
	assert.Equal(t, bad.ValidateForUpload(), c.validateForUpload(bad), "options the memo does not hold are checked")
	assert.NoError(t, c.validateForUpload(nil))
}
