package pfc_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// TestShardFlag: *Shard is a flag.Value reading "i/n", which String
// prints; anything else is a *ValidationError naming Shard (its value cut
// short) and leaves the shard as it was. A Shard still prints and encodes
// as the struct it is.
func TestShardFlag(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]pfc.Shard{"0/1": {0, 1}, "2/4": {2, 4}, "3/4": {3, 4}, "+1/2": {1, 2}} {
		var s pfc.Shard
		require.NoError(t, s.Set(v), v)
		assert.Equal(t, want, s, v)
		again := pfc.Shard{Index: 9, Count: 9}
		require.NoError(t, again.Set(s.String()), "String's output is read back")
		assert.Equal(t, want, again)
	}
	for _, v := range []string{"", "4", "/4", "4/", "4/4", "-1/4", "x/4", "1/x", "0/0", "1/2/3", " 1/2", "1/-2",
		strings.Repeat("9", 100) + "/4", "1/" + strings.Repeat("9", 100)} {
		s := pfc.Shard{Index: 1, Count: 3}
		err := s.Set(v)
		var ve *pfc.ValidationError
		require.ErrorAs(t, err, &ve, "%q", v)
		assert.Equal(t, []string{"Shard"}, ve.Fields())
		assert.Less(t, len(err.Error()), 200, "the value is cut short")
		assert.Equal(t, pfc.Shard{Index: 1, Count: 3}, s, "%q leaves the shard unchanged", v)
	}
	var none *pfc.Shard
	assert.Empty(t, none.String())
	assert.Empty(t, (&pfc.Shard{}).String(), "not sharded")

	fs := flag.NewFlagSet("batch", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var b pfc.BulkOptions[string]
	fs.Var(&b.Shard, "shard", "i/n")
	require.NoError(t, fs.Parse([]string{"-shard", "1/3"}))
	assert.Equal(t, pfc.Shard{Index: 1, Count: 3}, b.Shard)
	assert.Error(t, fs.Parse([]string{"-shard", "3/3"}))

	assert.Equal(t, "{1 3}", fmt.Sprint(b.Shard))
	js, err := json.Marshal(pfc.BulkReport[string]{Shard: b.Shard})
	require.NoError(t, err)
	assert.Contains(t, string(js), `"Shard":{"Index":1,"Count":3}`)
	var back pfc.BulkReport[string]
	require.NoError(t, json.Unmarshal(js, &back))
	assert.Equal(t, b.Shard, back.Shard)
}
