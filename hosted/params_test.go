package hosted

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/pfcparams"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestCorrectionOptionsFollowTheTable: CorrectionOptions binds to the
// declaration table, and its url tags are in the table's order.
func TestCorrectionOptionsFollowTheTable(t *testing.T) {
	t.Parallel()
	_, err := pfcparams.Bind(pfcparams.Hosted, CorrectionOptions{})
	require.NoError(t, err)
	typ := reflect.TypeOf(CorrectionOptions{})
	var fields []string
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("url"), ",")
		if name != "" && name != "-" {
			fields = append(fields, name)
		}
	}
	assert.Equal(t, pfcparams.Names(pfcparams.Hosted), fields)
}

// TestEnumsFollowTheTable: the Go constants of each enum are the values
// the table declares, in its order.
func TestEnumsFollowTheTable(t *testing.T) {
	t.Parallel()
	for param, consts := range map[string][]string{
		"fileType":   {string(FileTypeImage), string(FileTypeVideo)},
		"outputType": {string(pfc.OutputJPEG), string(pfc.OutputPNG), string(pfc.OutputOriginal)},
		"resize":     {string(ResizeAuto), string(ResizeGeneral), string(ResizeSmallDetails)},
		"skip":       {string(pfc.SkipClipart), string(pfc.SkipLegacy), string(pfc.SkipNone)},
		"bgShadow":   {string(ShadowSoft), string(ShadowHard), string(ShadowFloating)},
	} {
		p, ok := pfcparams.Lookup(param)
		require.True(t, ok, param)
		assert.Equal(t, p.Values, consts, param)
	}
	assert.True(t, FileTypeVideo.Valid())
	assert.False(t, FileType("bogus").Valid())
	assert.True(t, ResizeSmallDetails.Valid())
	assert.False(t, Shadow("bogus").Valid())
}
