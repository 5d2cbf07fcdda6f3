package main

import (
	"bytes"
	"context"
	"testing"
)

// TestRun: the example prints the flow's span, an attempt's span named
// after its route template, the request duration metric and log records
// with trace ids.
func TestRun(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Name": "hosted.Correct"`, `"Name": "GET /status/{jobID}"`,
		`"Name": "http.client.request.duration"`, `"Name": "pfc.jobs.finished"`, "trace_id=", "op=hosted.Correct", "COMPLETED"} {
		if !bytes.Contains(out.Bytes(), []byte(want)) {
			t.Errorf("the output lacks %s", want)
		}
	}
}
