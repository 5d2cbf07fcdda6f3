package hosted

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/pfc"
)

// BenchmarkWaitDetection measures the hosted waiter (Client.Wait's loop,
// GetJob over HTTP included) with the default delays (500 ms doubling to
// 15 s, equal jitter) on a fake clock, for jobs that complete 1 s, 10 s
// and 60 s after the wait starts. Per job it reports the mean and worst
// detection latency (completion to the waiter returning, on the fake
// clock) and status calls, next to the goals: latency at most
// max(10% of the duration, 100 ms), calls at most 1 + log2(duration/min
// delay) + duration/max delay. Nothing sleeps: a 60 s job takes
// microseconds.
//
//	go test ./hosted -run '^$' -bench BenchmarkWaitDetection -benchtime 2000x
//
// The "tuned" runs set the delays from the expected duration instead
// (MinDelay = duration/100, MaxDelay = duration/10, the advice of the
// package doc for known job lengths): with fixed defaults no delay
// schedule meets both goals for every duration, since a latency of 10%
// needs a delay of at most 10% of the duration near its end, and the call
// bound allows only duration/MaxDelay calls there.
func BenchmarkWaitDetection(b *testing.B) {
	for _, tuned := range []bool{false, true} {
		for _, dur := range []time.Duration{time.Second, 10 * time.Second, time.Minute} {
			name := fmt.Sprint(dur)
			minD, maxD := defaultMinPollDelay, defaultMaxPollDelay
			if tuned {
				name, minD, maxD = "tuned/"+name, dur/100, dur/10
			}
			b.Run(name, func(b *testing.B) { benchmarkWaitDetection(b, dur, minD, maxD) })
		}
	}
}

func benchmarkWaitDetection(b *testing.B, dur, minD, maxD time.Duration) {
	{
		{
			var clk atomic.Pointer[poll.FakeClock]
			var end atomic.Int64 // completion time, unix nanos on the fake clock
			var calls atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header().Set("Content-Type", "application/json")
				if clk.Load().Now().UnixNano() >= end.Load() {
					fmt.Fprint(w, `{"_id":"j1","status":"COMPLETED","correctedFile":"https://files.example/j1.jpg"}`)
					return
				}
				fmt.Fprint(w, `{"_id":"j1","status":"PROCESSING"}`)
			}))
			defer srv.Close()
			c, err := NewClient(testKey, pfc.WithBaseURL(srv.URL+"/v2"))
			if err != nil {
				b.Fatal(err)
			}
			var sumLat, maxLat time.Duration
			var sumCalls, maxCalls int64
			for b.Loop() {
				t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
				fc := poll.NewFakeClock(t0)
				clk.Store(fc)
				end.Store(t0.Add(dur).UnixNano())
				calls.Store(0)
				if _, err := poll.Drive(fc, func() (*Job, error) {
					return c.wait(context.Background(), "j1", poll.Options{MinDelay: minD, MaxDelay: maxD, Clock: fc})
				}); err != nil {
					b.Fatal(err)
				}
				lat := fc.Now().Sub(t0.Add(dur))
				sumLat += lat
				maxLat = max(maxLat, lat)
				n := calls.Load()
				sumCalls += n
				maxCalls = max(maxCalls, n)
			}
			b.ReportMetric(float64(sumLat.Milliseconds())/float64(b.N), "mean-latency-ms")
			b.ReportMetric(float64(maxLat.Milliseconds()), "max-latency-ms")
			b.ReportMetric(float64(max(dur/10, 100*time.Millisecond).Milliseconds()), "goal-latency-ms")
			b.ReportMetric(float64(sumCalls)/float64(b.N), "mean-calls")
			b.ReportMetric(float64(maxCalls), "max-calls")
			b.ReportMetric(1+math.Log2(float64(dur)/float64(minD))+float64(dur)/float64(maxD), "goal-calls")
		}
	}
}
