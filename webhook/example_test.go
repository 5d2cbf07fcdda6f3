package webhook_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/pfcsdk/pfc-go/webhook"
)

func ExampleMiddleware() {
	apiKey := []byte("test-api-key-123")
	sent := time.Unix(1763800000, 0)
	body := []byte(`{"_id":"6651f0c2a1b2c3d4e5f60718","status":"COMPLETED","statusText":"","code":0,` +
		`"correctedFile":"https://files.example.test/out/6651f0c2a1b2c3d4e5f60718.jpg"}`)

	// A fixed clock keeps the example deterministic; servers use the default.
	v, err := webhook.NewVerifier([][]byte{apiKey}, webhook.WithClock(func() time.Time { return sent.Add(2 * time.Second) }))
	if err != nil {
		panic(err)
	}
	store := webhook.NewMemoryStore(webhook.MemoryStoreOptions{})
	handler := webhook.Middleware(v, webhook.WithIdempotency(store))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		job, _ := webhook.JobFromContext(r.Context())
		fmt.Println("handling", job.ID, job.Status, job.CorrectedFile)
		w.WriteHeader(http.StatusNoContent)
	}))

	deliver := func(h http.Header) int {
		req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
		for k, vs := range h {
			req.Header[k] = vs
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		return rec.Code
	}
	fmt.Println("first delivery:", deliver(webhook.Sign(apiKey, "evt_6651f0c2a1b2c3d4e5f60718", sent, body)))
	fmt.Println("retry:", deliver(webhook.Sign(apiKey, "evt_6651f0c2a1b2c3d4e5f60718", sent.Add(time.Second), body)))
	fmt.Println("forged:", deliver(webhook.Sign([]byte("guessed-key"), "evt_x", sent, body)))
	fmt.Println("replayed an hour later:", deliver(webhook.Sign(apiKey, "evt_y", sent.Add(-time.Hour), body)))
	// Output:
	// handling 6651f0c2a1b2c3d4e5f60718 COMPLETED https://files.example.test/out/6651f0c2a1b2c3d4e5f60718.jpg
	// first delivery: 204
	// retry: 200
	// forged: 401
	// replayed an hour later: 401
}

func ExampleVerifier_Verify() {
	apiKey := []byte("test-api-key-123")
	sent := time.Unix(1763800000, 0)
	body := []byte(`{"_id":"6651f0c2a1b2c3d4e5f60718","status":"FAILED","statusText":"unsupported file","code":415}`)
	h := webhook.Sign(apiKey, "evt_6651f0c2a1b2c3d4e5f60718", sent, body)

	// During a key rotation, list both keys.
	v, err := webhook.NewVerifier([][]byte{[]byte("new-api-key"), apiKey},
		webhook.WithClock(func() time.Time { return sent.Add(10 * time.Minute) }))
	if err != nil {
		panic(err)
	}
	err = v.Verify(h, body)
	fmt.Println(errors.Is(err, webhook.ErrTimestampOutOfTolerance), err)

	v, _ = webhook.NewVerifier([][]byte{apiKey}, webhook.WithClock(func() time.Time { return sent }))
	fmt.Println(v.Verify(h, body))
	fmt.Println(v.Verify(h, append(body, '\n')))
	job, err := v.VerifyJob(h, body)
	fmt.Println(job.ID, job.Status, job.Code, err)
	// Output:
	// true webhook: timestamp outside the tolerance: 600 s in the past by the receiver's clock, tolerance 5m0s
	// <nil>
	// webhook: no valid signature: no v1 entry matches
	// 6651f0c2a1b2c3d4e5f60718 FAILED 415 <nil>
}

func ExampleSign() {
	h := webhook.Sign([]byte("test-api-key-123"), "evt_6651f0c2a1b2c3d4e5f60718", time.Unix(1763800000, 0),
		[]byte(`{"_id":"6651f0c2a1b2c3d4e5f60718","status":"COMPLETED","statusText":"","code":0,"correctedFile":"https://files.example.test/out/6651f0c2a1b2c3d4e5f60718.jpg"}`))
	fmt.Println(h.Get("webhook-id"))
	fmt.Println(h.Get("webhook-timestamp"))
	fmt.Println(h.Get("webhook-signature"))
	// Output:
	// evt_6651f0c2a1b2c3d4e5f60718
	// 1763800000
	// v1,7GntiURZCFejxmEq11bpym9IUYhwPxsbDHXwZO629mY=
}
