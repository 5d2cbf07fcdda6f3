package hosted_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Correct a folder of photos, four at a time, with a resumable manifest:
// the second run finds everything done and sends nothing.
func ExampleClient_CorrectDir() {
	client, stop := startMock()
	defer stop()
	ctx := context.Background()

	in, err := os.MkdirTemp("", "photos")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(in)
	for _, name := range []string{"a.png", "b.png", "c.png"} {
		if err := os.WriteFile(filepath.Join(in, name), photo(), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	out := filepath.Join(in, "corrected") // left out of the input

	for run := 1; run <= 2; run++ {
		rep, err := client.CorrectDir(ctx, in, out, hosted.NewCorrection().WithLong(160), &pfc.BulkOptions[*hosted.Job]{
			Concurrency: 4,
			OnProgress: func(p pfc.BulkProgress) {
				// e.g. drive a progress bar: p.Done+p.Failed+p.Skipped of p.Total, p.ETA
			},
		})
		if err != nil {
			log.Fatal(err) // the run stopped: cancelled, or a bad option or folder
		}
		fmt.Printf("run %d: %d corrected, %d skipped, %d failed\n", run, rep.Done, rep.Skipped, rep.Failed)
		for _, f := range rep.Failures {
			fmt.Println(f.Item.ID, f.Kind, f.Err)
		}
	}
	// Output:
	// run 1: 3 corrected, 0 skipped, 0 failed
	// run 2: 0 corrected, 3 skipped, 0 failed
}
