package fakeclock

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestAdvanceToNext: the clock jumps to each deadline in turn, runs the
// timers due then (a zero-delay one too), and reports when none is left.
func TestAdvanceToNext(t *testing.T) {
	t.Parallel()
	c := New(t0)
	var at []time.Duration
	rec := func() { at = append(at, c.Now().Sub(t0)) }
	c.AfterFunc(2*time.Second, rec)
	c.AfterFunc(time.Second, rec)
	require.True(t, c.AdvanceToNext())
	assert.Equal(t, []time.Duration{time.Second}, at)
	c.AfterFunc(0, rec)
	require.True(t, c.AdvanceToNext())
	assert.Equal(t, []time.Duration{time.Second, time.Second}, at)
	require.True(t, c.AdvanceToNext())
	assert.Equal(t, []time.Duration{time.Second, time.Second, 2 * time.Second}, at)
	assert.False(t, c.AdvanceToNext())
	assert.Equal(t, t0.Add(2*time.Second), c.Now())
}

// TestChanged: the channel taken before a timer is scheduled is closed by
// it, and a stopped timer does not run.
func TestChanged(t *testing.T) {
	t.Parallel()
	c := New(t0)
	ch := c.Changed()
	select {
	case <-ch:
		t.Fatal("closed before any timer")
	default:
	}
	tm := c.AfterFunc(time.Minute, func() { t.Error("stopped timer ran") })
	<-ch
	assert.Equal(t, 1, c.Pending())
	assert.True(t, tm.Stop())
	assert.False(t, tm.Stop())
	c.Advance(time.Hour)
	assert.Equal(t, 0, c.Pending())
}
