package pfcdoc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCopyParams: the tagged fields reach the engine's fields of the same
// name, ",mock" ones and untagged ones do not, and a tagged field the
// engine lacks (or has with another type) is an error naming it.
func TestCopyParams(t *testing.T) {
	t.Parallel()
	type engineReq struct {
		Quality int
		Flag    bool
		Other   string
	}
	src := struct {
		Quality int    `param:"outputQuality"`
		Flag    bool   `param:"flag"`
		Record  bool   `param:"record,mock"`
		Other   string // not a plain parameter
	}{Quality: 55, Flag: true, Record: true, Other: "x"}
	var dst engineReq
	require.NoError(t, CopyParams(&dst, &src))
	assert.Equal(t, engineReq{Quality: 55, Flag: true}, dst)

	fs := Fields(&src)
	require.Len(t, fs, 3)
	assert.Equal(t, Field{Name: "record", Value: fs[2].Value, MockOnly: true, GoName: "Record"}, fs[2])

	missing := struct {
		Extra bool `param:"extra"`
	}{}
	assert.ErrorContains(t, CopyParams(&dst, &missing), "no field Extra bool for the parameter extra")
	typed := struct {
		Quality string `param:"outputQuality"`
	}{}
	assert.ErrorContains(t, CopyParams(&dst, &typed), "no field Quality string")
}
