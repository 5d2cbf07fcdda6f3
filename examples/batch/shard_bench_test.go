package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
)

// BenchmarkShards compares, over 200 tiny images and a 3-replica fleet
// (each mock running one engine at a time), 4 shard processes of
// -concurrency 4 with one process of -concurrency 16: the wall time of a
// whole run (ns/op) and the replicas' busy share, the mean over replicas
// of the time holding at least one job (SubmitImage to RemoveImage) over
// the wall time.
func BenchmarkShards(b *testing.B) {
	const images = 200
	in := b.TempDir()
	writeShardImages(b, in, images)
	fleet := startCountingFleet(b, 3)
	key := "PFC_BG_LICENSE_KEY=" + bgmock.DefaultLicenseKey
	for _, mode := range []struct {
		name               string
		procs, concurrency int
	}{{"4-shards-x4", 4, 4}, {"1-process-x16", 1, 16}} {
		b.Run(mode.name, func(b *testing.B) {
			for _, m := range fleet.busy {
				m.take()
			}
			var wall time.Duration
			for b.Loop() {
				out := filepath.Join(b.TempDir(), "out")
				start := time.Now()
				var cmds []*exec.Cmd
				var outs []*bytes.Buffer
				for i := range mode.procs {
					args := []string{"-api", "bg", "-url", strings.Join(fleet.urls, ","), "-in", in, "-out", out,
						"-concurrency", fmt.Sprint(mode.concurrency)}
					if mode.procs > 1 {
						args = append(args, "-shard", fmt.Sprintf("%d/%d", i, mode.procs))
					}
					cmd := child(b.Context(), args, key)
					var buf bytes.Buffer
					cmd.Stdout, cmd.Stderr = &buf, &buf
					if err := cmd.Start(); err != nil {
						b.Fatal(err)
					}
					cmds, outs = append(cmds, cmd), append(outs, &buf)
				}
				for i, cmd := range cmds {
					if err := cmd.Wait(); err != nil {
						b.Fatalf("%v: %s", err, outs[i])
					}
				}
				wall += time.Since(start)
			}
			var busy time.Duration
			for _, m := range fleet.busy {
				busy += m.take()
			}
			b.ReportMetric(100*float64(busy)/float64(len(fleet.busy))/float64(wall), "busy-%")
		})
	}
}
