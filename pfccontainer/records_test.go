package pfccontainer

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeRecordsFromHandWrittenJSON(t *testing.T) {
	t.Parallel()
	var up UploadResponse
	require.NoError(t, json.Unmarshal([]byte(`{"imageKey":"abc.jpg"}`), &up))
	assert.Equal(t, "abc.jpg", up.ImageKey)

	var c Correction
	require.NoError(t, json.Unmarshal([]byte(`{"corrected_url":"http://localhost/output/holiday%20photo.jpg","scene":-1}`), &c))
	assert.Equal(t, "http://localhost/output/holiday%20photo.jpg", c.CorrectedURL)
	assert.Equal(t, SceneUnknown, c.Scene)
	assert.False(t, c.Scene.Known())
	assert.Equal(t, "holiday photo.jpg", c.FileName())
	assert.True(t, Scene(2).Known())
}

func TestDecodeVersionShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		doc      string
		version  string
		features []string
	}{
		{`{"version":"10.7.2.1269","features":["pfc","composite"],"settings":{"PFC_AVX":"auto"}}`, "10.7.2.1269", []string{"pfc", "composite"}},
		{`{"sdkVersion":"10.7.2.1269","version":"api-1","features":{"faceBeautify":true,"composite":false,"ai":true}}`, "10.7.2.1269", []string{"ai", "faceBeautify"}},
		{`{"sdk_version":"9.0"}`, "9.0", nil},
		{`{"build":"10.7.2.1269"}`, "10.7.2.1269", nil},
		{`{}`, "", nil},
	} {
		v, err := decodeVersion([]byte(tc.doc))
		require.NoError(t, err, tc.doc)
		assert.Equal(t, tc.version, v.SDKVersion, tc.doc)
		assert.Equal(t, tc.features, v.Features, tc.doc)
		assert.JSONEq(t, tc.doc, string(v.Raw))
	}
	v, _ := decodeVersion([]byte(`{"features":["PFC"]}`))
	assert.True(t, v.HasFeature("pfc"))
	assert.False(t, v.HasFeature("composite"))

	for _, bad := range []string{`[]`, `nope`, `{"features":7}`} {
		_, err := decodeVersion([]byte(bad))
		assert.Error(t, err, bad)
	}
}

// A printed Version shows the document it was read from as JSON text, not
// as a list of bytes, under %v and %+v; %+v names every field.
func TestVersionPrintsRawAsText(t *testing.T) {
	t.Parallel()
	v, err := decodeVersion([]byte("{\n  \"version\": \"10.7.2.1269\",\n  \"features\": [\"autocrop\"]\n}\n"))
	require.NoError(t, err)
	assert.Equal(t, `{10.7.2.1269 [autocrop] {"version":"10.7.2.1269","features":["autocrop"]}}`, fmt.Sprintf("%v", v))
	plus := fmt.Sprintf("%+v", *v)
	assert.Equal(t, `{SDKVersion:10.7.2.1269 Features:[autocrop] Raw:{"version":"10.7.2.1269","features":["autocrop"]}}`, plus)
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Version]()) {
		assert.Regexp(t, `[{ ]`+f.Name+`:`, plus, "a field Format leaves out")
	}
	assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", v), `pfccontainer.Version{SDKVersion:"10.7.2.1269",`), fmt.Sprintf("%#v", v))
}
