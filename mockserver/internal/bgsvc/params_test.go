package bgsvc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

func TestParseOptions(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	tests := []struct {
		name         string
		mode, config string
		pre, post    *string // nil: absent
		want         options
		badParam     string
	}{
		{name: "defaults", want: options{mode: matting.ModeGeneral}},
		{name: "portrait", mode: "portrait", want: options{mode: matting.ModePortrait}},
		{name: "flags", mode: "general", pre: flag("TRUE"), post: flag("true"),
			want: options{mode: matting.ModeGeneral, preprocessing: true, postprocessing: true}},
		{name: "false flags", pre: flag("false"), post: flag("False"), want: options{mode: matting.ModeGeneral}},
		{name: "config", pre: flag("true"), config: `{"denoise": false, "detect_faces": true, "other": [1]}`,
			want: options{mode: matting.ModeGeneral, preprocessing: true, pre: preConfig{Denoise: &no, DetectFaces: &yes}}},
		{name: "config null values", config: `{"denoise": null}`, want: options{mode: matting.ModeGeneral}},
		{name: "blank config", config: "  ", want: options{mode: matting.ModeGeneral}},
		{name: "bad mode", mode: "Portrait", badParam: ParamMode},
		{name: "bad pre", pre: flag("yes"), badParam: ParamPreprocessing},
		{name: "bad post", post: flag("1"), badParam: ParamPostprocessing},
		{name: "empty pre", pre: flag(""), badParam: ParamPreprocessing},
		{name: "empty post", post: flag(""), badParam: ParamPostprocessing},
		{name: "config not json", config: "{denoise", badParam: ParamPreprocessingConfig},
		{name: "config array", config: "[]", badParam: ParamPreprocessingConfig},
		{name: "config null", config: "null", badParam: ParamPreprocessingConfig},
		{name: "config wrong type", config: `{"denoise": "yes"}`, badParam: ParamPreprocessingConfig},
		{name: "config too long", config: `{"x":"` + strings.Repeat("a", MaxPreprocessingConfigBytes) + `"}`, badParam: ParamPreprocessingConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, e := parseOptions(tt.mode, tt.pre, tt.post, tt.config)
			if tt.badParam != "" {
				require.NotNil(t, e)
				assert.Equal(t, 400, e.Status)
				assert.Equal(t, tt.badParam, e.Parameter)
				assert.True(t, strings.HasPrefix(e.Message, tt.badParam+": "), e.Message)
				assert.Less(t, len(e.Message), 200)
				return
			}
			require.Nil(t, e)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestPreConfigDefaults(t *testing.T) {
	t.Parallel()
	var c preConfig
	assert.True(t, c.denoise())
	assert.True(t, c.detectFaces())
}

func TestUUID(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 100 {
		id := httpx.NewUUID()
		require.True(t, validUUID(id), id)
		require.Equal(t, byte('4'), id[14], id)
		require.Contains(t, "89ab", string(id[19]), id)
		require.Equal(t, strings.ToLower(id), id)
		require.False(t, seen[id])
		seen[id] = true
	}
	for _, bad := range []string{"", "x", "123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g",
		"{123e4567-e89b-12d3-a456-426614174000}", "123e4567-e89b-12d3-a456_426614174000"} {
		assert.False(t, validUUID(bad), bad)
	}
	assert.True(t, validUUID("123E4567-E89B-12D3-A456-426614174000"))
}
