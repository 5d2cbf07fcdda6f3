package mockserver_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/testimage"
	"github.com/pfcsdk/pfc-go/pfc"
)

// ExampleParseFaults fails /pfc requests of a hosted mock, half of them,
// before the handler runs, with a 503 or a reset connection; the client's
// retries absorb the faults. Requests sent one at a time meet the same
// faults on every run.
func ExampleParseFaults() {
	spec, err := mockserver.ParseFaults("hosted:rate=0.5,kinds=503|reset,routes=pfc,seed=7")
	if err != nil {
		fmt.Println(err)
		return
	}
	var requests, faulted atomic.Int32
	spec.Observe = func(e mockserver.FaultEvent) {
		if e.Route == "pfc" {
			requests.Add(1)
			if e.Kind != "" {
				faulted.Add(1)
			}
		}
	}
	h, err := hostedmock.New(hostedmock.Options{Faults: spec, Processor: chaosProcessor})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(h)
	defer h.Close()
	defer srv.Close()
	c, err := hosted.NewClient(hostedmock.DefaultAPIKey, pfc.WithBaseURL(srv.URL+"/v2"),
		pfc.WithRetries(8, time.Millisecond, 10*time.Millisecond),
		hosted.WithPolling(pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}))
	if err != nil {
		fmt.Println(err)
		return
	}
	img, err := testimage.Chaos(1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 3 {
		var out bytes.Buffer
		job, err := c.Correct(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &out, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(job.Status)
	}
	srv.Close() // waits for the handlers, and so for Observe (Close is idempotent)
	fmt.Printf("/pfc: %d requests, %d faulted\n", requests.Load(), faulted.Load())

	_, err = mockserver.ParseFaults("rate=0.2,kinds=503|teapot")
	fmt.Println(errors.Is(err, mockserver.ErrInvalidFaultSpec))
	// Output:
	// COMPLETED
	// COMPLETED
	// COMPLETED
	// /pfc: 6 requests, 3 faulted
	// true
}
