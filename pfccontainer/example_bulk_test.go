package pfccontainer_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// Correct a folder, four images at a time, over HTTP and then in direct
// file mode; each run keeps its resumable manifest in its output folder,
// so running it again skips what is done.
func ExampleClient_CorrectDir() {
	url, mock, stop := exampleContainer()
	defer stop()
	c, err := pfccontainer.NewClient(pfc.WithBaseURL(url))
	if err != nil {
		log.Fatal(err)
	}
	defer c.CloseIdleConnections()

	root, err := os.MkdirTemp("", "photos")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	in := filepath.Join(root, "in")
	if err := os.Mkdir(in, 0o755); err != nil {
		log.Fatal(err)
	}
	photo := exampleJPEG(in, 160, 120)
	for _, name := range []string{"a.jpg", "b.jpg"} {
		if err := os.Link(photo, filepath.Join(in, name)); err != nil {
			log.Fatal(err)
		}
	}
	ctx := context.Background()
	opts := pfccontainer.NewCorrection().WithOutput(pfc.OutputPNG, 0)
	bulk := &pfc.BulkOptions[*pfccontainer.Correction]{Concurrency: 4}

	rep, err := c.CorrectDir(ctx, in, filepath.Join(root, "http"), opts, bulk)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http: %d corrected, %d failed\n", rep.Done, rep.Failed)

	d := c.Direct(mock.InputDir(), mock.OutputDir())
	rep, err = d.CorrectDir(ctx, in, filepath.Join(root, "direct"), opts, bulk)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("direct: %d corrected, %d failed\n", rep.Done, rep.Failed)
	rep, err = d.CorrectDir(ctx, in, filepath.Join(root, "direct"), opts, bulk)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("again: %d corrected, %d skipped\n", rep.Done, rep.Skipped)
	printImage(filepath.Join(root, "direct", "a.png"))
	// Output:
	// http: 3 corrected, 0 failed
	// direct: 3 corrected, 0 failed
	// again: 0 corrected, 3 skipped
	// png 160x120
}
