package hostedmock

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/internal/hostedsvc"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// TestPublicTypesMatchTheService: the public types test authors decode
// answers into have exactly the wire shape the service writes.
func TestPublicTypesMatchTheService(t *testing.T) {
	t.Parallel()
	assert.EqualValues(t, hostedsvc.DefaultMemoryBudget, mockserver.DefaultMemoryBudget)
	assert.Equal(t, hostedsvc.BackgroundGenerative, BackgroundGenerative)
	assert.Equal(t, hostedsvc.BackgroundImage, BackgroundImage)
	assert.Equal(t, hostedsvc.BackgroundColor, BackgroundColor)
	assert.Equal(t, hostedsvc.BackgroundTransparent, BackgroundTransparent)

	// The preset answers are the service's own types, not copies kept in
	// step by hand.
	assert.Equal(t, reflect.TypeFor[hostedsvc.PresetRecord]().String(), reflect.TypeFor[PresetRecord]().String())
	assert.Equal(t, reflect.TypeFor[hostedsvc.PresetList]().String(), reflect.TypeFor[PresetList]().String())
	assert.Equal(t, reflect.TypeFor[hostedsvc.PresetDeleted]().String(), reflect.TypeFor[PresetDeleted]().String())

	ts := hostedsvc.Timestamp{Time: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	rec := hostedsvc.PresetRecord{PresetID: "p", Name: "n", Description: "d", Status: "ready", Size: 3, CreatedAt: ts, UpdatedAt: ts, UploadURL: "u"}
	for _, tc := range []struct {
		wire any
		into any
	}{
		{rec, &PresetRecord{}},
		{hostedsvc.PresetList{Presets: []hostedsvc.PresetRecord{rec}, Total: 1, Limit: 20}, &PresetList{}},
		{hostedsvc.PresetDeleted{PresetID: "p", Deleted: true}, &PresetDeleted{}},
		{httpx.ParamError(400, httpx.CodeInvalidParameter, "width", "bad"), &mockserver.ErrorBody{}},
		{httpx.Errorf(404, httpx.CodeNotFound, "gone"), &mockserver.ErrorBody{}},
	} {
		wire, err := httpx.Marshal(tc.wire)
		require.NoError(t, err)
		dec := json.NewDecoder(bytes.NewReader(wire))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(tc.into), string(wire))
		again, err := httpx.Marshal(tc.into)
		require.NoError(t, err)
		assert.Equal(t, string(wire), string(again))
	}
}

// TestRejectErrorText: RejectError, now the service's own type, reads as
// the public HostedRejectError did, with the mock's prefix, not the name
// of an internal package.
func TestRejectErrorText(t *testing.T) {
	t.Parallel()
	assert.EqualError(t, &RejectError{Reason: "too small"}, "mockserver: rejected: too small")
	assert.EqualError(t, &RejectError{Reason: "too small", Err: errors.New("33 px")}, "mockserver: rejected: too small: 33 px")
}

// TestEngineRequestTakesEveryParameter: every plain parameter of the
// request (a field tagged `param`) reaches the engine's field of its name.
func TestEngineRequestTakesEveryParameter(t *testing.T) {
	t.Parallel()
	er, err := engineRequest(JobRequest{Preset: "Pro", Quality: 55, RemoveGlares: true, PreserveMetadata: true,
		UpdateThumbnail: true, IncludeDetectionData: true})
	require.NoError(t, err)
	assert.Equal(t, 55, er.Quality)
	assert.True(t, er.RemoveGlares)
	assert.True(t, er.PreserveMetadata)
	assert.True(t, er.UpdateThumbnail)
}
