package replicas

import (
	"testing"

	"github.com/pfcsdk/pfc-go/internal/poll"
)

// TestRecorded: a manifest's record of a job's replica holds for a list
// of one when it names no replica or that one (by its Key, as the clients
// record it), and for a fleet when it names one of its replicas (any
// spelling), then bound to the job's key; each other case says why not.
func TestRecorded(t *testing.T) {
	t.Parallel()
	one := static(t, poll.NewFakeClock(t0), nil, urls(1)...)
	fleet := static(t, poll.NewFakeClock(t0), nil, urls(3)...)
	for _, c := range []struct {
		l          *List[string]
		replica    string
		want       int // the replica's Index, -1 for none
		why        string
		wantsBound bool
	}{
		{one, "", -1, "", false},
		{one, "http://r0:8000", -1, "", false},
		{one, "http://r1:8000", -1, "recorded on another replica", false},
		{fleet, "", -1, "recorded by a client of one base URL", false},
		{fleet, "http://gone:8000", -1, "its replica is no longer in the fleet", false},
		{fleet, "HTTP://R2:8000/", 2, "", true},
	} {
		key := "job-" + c.replica
		r, why := c.l.Recorded(key, c.replica)
		if why != c.why {
			t.Errorf("%d replicas, %q: why %q, want %q", c.l.Len(), c.replica, why, c.why)
		}
		if r != nil && r.Index != c.want || r == nil && c.want != -1 {
			t.Errorf("%d replicas, %q: replica %v, want index %d", c.l.Len(), c.replica, r, c.want)
		}
		if b, ok := c.l.Lookup(key); ok != c.wantsBound || ok && b != r {
			t.Errorf("%d replicas, %q: bound %v (%v), want %v", c.l.Len(), c.replica, b, ok, c.wantsBound)
		}
	}
}
