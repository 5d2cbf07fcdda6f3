package activity_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func TestWaitIdleWaitsForRunningWorkNotTimers(t *testing.T) {
	clk := clock.NewFake(t0)
	tr := activity.New(clk)
	assert.Same(t, clk, tr.Clock())
	require.NoError(t, tr.WaitIdle(context.Background()), "idle when new")

	release := make(chan struct{})
	var done atomic.Bool
	require.True(t, tr.Go(func() {
		<-release
		done.Store(true)
	}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, tr.WaitIdle(ctx), context.Canceled, "busy")
	close(release)
	require.NoError(t, tr.WaitIdle(context.Background()))
	assert.True(t, done.Load())

	var fired atomic.Int32
	tm := tr.AfterFunc(time.Minute, func() { fired.Add(1) })
	require.NotNil(t, tm)
	require.NoError(t, tr.WaitIdle(context.Background()), "a pending timer is not running work")
	clk.Advance(time.Minute)
	assert.Equal(t, int32(1), fired.Load())
	assert.False(t, tm.Stop(), "already fired")

	tm = tr.AfterFunc(time.Minute, func() { fired.Add(1) })
	assert.True(t, tm.Stop())
	clk.Advance(time.Hour)
	assert.Equal(t, int32(1), fired.Load())
	var nilTimer *activity.Timer
	assert.False(t, nilTimer.Stop())
	tr.Close()
}

func TestCloseStopsTimersAndRefusesWork(t *testing.T) {
	clk := clock.NewFake(t0)
	tr := activity.New(clk)
	var fired atomic.Int32
	tr.AfterFunc(time.Minute, func() { fired.Add(1) })
	release := make(chan struct{})
	require.True(t, tr.Go(func() { <-release }))
	closed := make(chan struct{})
	go func() {
		tr.Close()
		close(closed)
	}()
	close(release)
	<-closed
	assert.True(t, tr.Closed())
	assert.Equal(t, 0, clk.Pending(), "timers stopped")
	clk.Advance(time.Hour)
	assert.Equal(t, int32(0), fired.Load())
	assert.False(t, tr.Go(func() { t.Error("ran after Close") }))
	assert.False(t, tr.Begin())
	assert.Nil(t, tr.AfterFunc(time.Second, func() {}))
	tr.Close() // idempotent
}
