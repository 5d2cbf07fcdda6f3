package bgcontainer_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Remove the backgrounds of a folder, four images at a time, into PNGs at
// the same relative paths; the manifest in the output folder makes a
// second run skip what is done, and every job is removed from the
// container as it finishes.
func ExampleClient_RemoveDir() {
	bg, err := bgmock.New(bgmock.Options{})
	if err != nil {
		panic(err)
	}
	defer bg.Close()
	srv := httptest.NewServer(bg)
	defer srv.Close()
	c, err := bgcontainer.NewClient(bgmock.DefaultLicenseKey, pfc.WithBaseURL(srv.URL))
	if err != nil {
		panic(err)
	}
	defer c.CloseIdleConnections()

	root, err := os.MkdirTemp("", "cutouts")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	in, out := filepath.Join(root, "in"), filepath.Join(root, "out")
	for _, name := range []string{"a.png", "b.png", "sub/c.png"} {
		p := filepath.Join(in, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(p, sample(), 0o644); err != nil {
			panic(err)
		}
	}
	for run := 1; run <= 2; run++ {
		rep, err := c.RemoveDir(context.Background(), in, out, nil, &pfc.BulkOptions[*bgcontainer.Result]{Concurrency: 4})
		if err != nil {
			panic(err)
		}
		fmt.Printf("run %d: %d done, %d skipped, %d failed\n", run, rep.Done, rep.Skipped, rep.Failed)
	}
	_, err = os.Stat(filepath.Join(out, "sub", "c.png"))
	fmt.Println("sub/c.png written:", err == nil)
	fmt.Println("jobs left:", bg.JobCount())
	// Output:
	// run 1: 3 done, 0 skipped, 0 failed
	// run 2: 0 done, 3 skipped, 0 failed
	// sub/c.png written: true
	// jobs left: 0
}
