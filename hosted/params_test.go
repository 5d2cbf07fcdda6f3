package hosted

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pfcsdk/pfc-go/internal/pfcparams"
)

// TestCorrectionOptionsFollowTheSharedTable keeps the url tags of
// CorrectionOptions, in field order, equal to the shared parameter table
// (itself checked against the API documentation in package pfcparams).
func TestCorrectionOptionsFollowTheSharedTable(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeOf(CorrectionOptions{})
	var fields []string
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("url"), ",")
		if name != "" && name != "-" {
			fields = append(fields, name)
		}
	}
	assert.Equal(t, pfcparams.HostedNames(), fields)
}

// TestEnumsFollowTheSharedTable checks the documented value sets of the
// hosted enums against the shared table.
func TestEnumsFollowTheSharedTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		param string
		valid func(string) bool
	}{
		{"fileType", func(s string) bool { return FileType(s).Valid() }},
		{"outputType", func(s string) bool { return OutputType(s).Valid() }},
		{"resize", func(s string) bool { return ResizeMode(s).Valid() }},
		{"skip", func(s string) bool { return SkipMode(s).Valid() }},
		{"bgShadow", func(s string) bool { return Shadow(s).Valid() }},
	}
	for _, tc := range cases {
		p, ok := pfcparams.HostedParam(tc.param)
		if assert.True(t, ok, tc.param) {
			for _, v := range p.Values {
				assert.True(t, tc.valid(v), "%s=%s", tc.param, v)
			}
			assert.False(t, tc.valid("bogus"))
		}
	}
}
