package hosted

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pfcsdk/pfc-go/internal/bulk"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestBulkResultOfAWaitTimeout: a file whose wait ran out keeps its job's
// id (and last record) in its result: the job may still complete.
func TestBulkResultOfAWaitTimeout(t *testing.T) {
	t.Parallel()
	last := &Job{ID: "j1", Status: StatusProcessing}
	for name, te := range map[string]*pfc.WaitTimeoutError{
		"with a record":    {JobID: "j1", Last: last},
		"without a record": {JobID: "j1"},
	} {
		r := bulkResult(bulk.Result[*Job]{Item: bulk.Item{ID: "a.jpg"}, Err: errors.Join(te), Kind: "wait_timeout"})
		assert.Equal(t, "j1", r.JobID, name)
		if te.Last == nil {
			assert.Nil(t, r.Result, name)
		} else {
			assert.Same(t, last, r.Result, name)
		}
	}
}
