package bgcontainer

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

func TestSubmitOptionsEncode(t *testing.T) {
	t.Parallel()
	type cfg struct {
		Denoise bool `json:"denoise"`
	}
	tests := []struct {
		name      string
		opts      *SubmitOptions
		query     url.Values
		fields    []formField
		badFields []string
	}{
		{name: "nil", query: url.Values{}},
		{name: "zero", opts: &SubmitOptions{}, query: url.Values{}},
		{name: "all", opts: &SubmitOptions{Mode: ModePortrait, Preprocessing: Bool(true), Postprocessing: Bool(false),
			PreprocessingConfig: cfg{Denoise: false}},
			query:  url.Values{"preprocessing": {"true"}, "postprocessing": {"false"}},
			fields: []formField{{"mode", "portrait"}, {"preprocessing_config", `{"denoise":false}`}}},
		{name: "map config", opts: &SubmitOptions{PreprocessingConfig: map[string]any{"detect_faces": true}},
			query: url.Values{}, fields: []formField{{"preprocessing_config", `{"detect_faces":true}`}}},
		{name: "raw config", opts: &SubmitOptions{Mode: ModeGeneral, PreprocessingConfigJSON: ` {"denoise": true} `},
			query: url.Values{}, fields: []formField{{"mode", "general"}, {"preprocessing_config", `{"denoise": true}`}}},
		{name: "nil map config", opts: &SubmitOptions{PreprocessingConfig: map[string]any(nil)}, query: url.Values{}},
		{name: "nil pointer config", opts: &SubmitOptions{PreprocessingConfig: (*cfg)(nil), PreprocessingConfigJSON: "{}"},
			query: url.Values{}, fields: []formField{{"preprocessing_config", "{}"}}},
		{name: "bad mode", opts: &SubmitOptions{Mode: "Portrait"}, badFields: []string{"mode"}},
		{name: "raw not json", opts: &SubmitOptions{PreprocessingConfigJSON: "{denoise"}, badFields: []string{"preprocessing_config"}},
		{name: "raw array", opts: &SubmitOptions{PreprocessingConfigJSON: "[1]"}, badFields: []string{"preprocessing_config"}},
		{name: "value not object", opts: &SubmitOptions{PreprocessingConfig: []int{1}}, badFields: []string{"preprocessing_config"}},
		{name: "value unmarshalable", opts: &SubmitOptions{PreprocessingConfig: map[string]any{"f": func() {}}}, badFields: []string{"preprocessing_config"}},
		{name: "both configs", opts: &SubmitOptions{PreprocessingConfig: cfg{}, PreprocessingConfigJSON: "{}"}, badFields: []string{"preprocessing_config"}},
		{name: "all bad at once", opts: &SubmitOptions{Mode: "x", PreprocessingConfigJSON: "1"}, badFields: []string{"mode", "preprocessing_config"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q, fields, err := tt.opts.encode()
			if tt.badFields != nil {
				var ve *pfc.ValidationError
				require.ErrorAs(t, err, &ve)
				assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
				var names []string
				for _, fe := range ve.Errors {
					names = append(names, fe.Field)
				}
				assert.Equal(t, tt.badFields, names)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.query, q)
			assert.Equal(t, tt.fields, fields)
		})
	}
}
