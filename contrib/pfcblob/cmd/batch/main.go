// Command batch is examples/batch -api bg for object storage: it removes
// the backgrounds of the images under a bucket's prefix into another
// bucket's prefix, through a fleet of background-removal container
// replicas, as one shard of n. It is the worker of the Kubernetes Indexed
// Job in docs/kubernetes; it lives in this module so that the SDK's
// go.mod gains no cloud dependency.
//
//	PFC_BG_LICENSE_KEY=... batch -url http://bg-0.bg:8000,http://bg-1.bg:8000 \
//		-in 's3://photos?region=eu-west-1' -in-prefix shoot-17 \
//		-out 's3://cutouts?region=eu-west-1' -out-prefix shoot-17 -shard 8
//
// Buckets are gocloud.dev/blob URLs: s3:// (AWS or, with endpoint= and
// use_path_style=true, any S3-compatible store; credentials from the
// AWS SDK's default chain) or file://. -shard n takes the index from
// $JOB_COMPLETION_INDEX; -shard i/n names it. An output already in the
// output bucket is done (a pod's disk, and its manifest, do not outlive
// it): a rerun of a shard does what is missing. The exit status is 0
// when every image is done, 1 when some failed, 2 on a usage or setup
// error, 130 when interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/s3blob"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/contrib/pfcblob"
	"github.com/pfcsdk/pfc-go/pfc"
)

func main() {
	log.SetFlags(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	if err != nil {
		log.Printf("batch: %v", err)
	}
	os.Exit(code)
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("batch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	urls := fs.String("url", "", "replicas of the background-removal container, comma-separated (required)")
	inURL := fs.String("in", "", "input bucket URL (required)")
	inPrefix := fs.String("in-prefix", ".", "folder of the images in the input bucket")
	outURL := fs.String("out", "", "output bucket URL (required)")
	outPrefix := fs.String("out-prefix", ".", "folder of the results in the output bucket")
	shardFlag := fs.String("shard", "", "process only shard i of n: i/n, or n with i from $JOB_COMPLETION_INDEX")
	concurrency := fs.Int("concurrency", 8, "images in flight in this process")
	manifest := fs.String("manifest", "", "local manifest path (default: none; outputs in the bucket count as done)")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	if *urls == "" || *inURL == "" || *outURL == "" {
		return 2, errors.New("-url, -in and -out are required")
	}
	key := getenv("PFC_BG_LICENSE_KEY")
	if key == "" {
		return 2, errors.New("$PFC_BG_LICENSE_KEY is not set")
	}
	var shard pfc.Shard
	if *shardFlag != "" {
		var err error
		if shard, err = parseShard(*shardFlag, getenv("JOB_COMPLETION_INDEX")); err != nil {
			return 2, err
		}
	}
	in, err := blob.OpenBucket(ctx, *inURL)
	if err != nil {
		return 2, fmt.Errorf("-in: %w", err)
	}
	defer in.Close()
	out, err := blob.OpenBucket(ctx, *outURL)
	if err != nil {
		return 2, fmt.Errorf("-out: %w", err)
	}
	defer out.Close()
	c, err := bgcontainer.NewClient(key, pfc.WithReplicas(strings.Split(*urls, ",")...))
	if err != nil {
		return 2, err
	}
	defer c.CloseIdleConnections()
	rep, err := c.RemoveDir(ctx, *inPrefix, *outPrefix, nil, &pfc.BulkOptions[*bgcontainer.Result]{
		Concurrency: *concurrency, Manifest: *manifest, Shard: shard,
		Source: pfcblob.Source(ctx, in), Sink: pfcblob.NewSink(out), SkipExisting: true,
	})
	if rep == nil {
		return 2, err
	}
	fmt.Fprintf(stdout, "bg shard %d/%d: %d processed, %d already done, %d failed in %s\n",
		rep.Shard.Index, rep.Shard.Count, rep.Done, rep.Skipped, rep.Failed, rep.Elapsed)
	for _, f := range rep.Failures {
		fmt.Fprintf(stdout, "  failed %s (%s): %v\n", f.Item.ID, f.Kind, f.Err)
	}
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stdout, "interrupted: %d left; run the same shard again to resume\n", rep.Interrupted)
		return 130, nil
	case err != nil:
		return 2, err
	case rep.Failed > 0:
		return 1, nil
	}
	return 0, nil
}

// parseShard reads -shard: "i/n", or "n" (or "/n") with i from env.
func parseShard(v, env string) (pfc.Shard, error) {
	is, ns, hasIndex := strings.Cut(v, "/")
	if !hasIndex {
		is, ns = "", v
	}
	n, err := strconv.Atoi(ns)
	if err != nil || n < 1 {
		return pfc.Shard{}, fmt.Errorf("-shard %q: the shard count must be a positive integer", v)
	}
	if is == "" {
		if env == "" {
			return pfc.Shard{}, fmt.Errorf("-shard %q names no index and $JOB_COMPLETION_INDEX is not set", v)
		}
		is = env
	}
	i, err := strconv.Atoi(is)
	if err != nil || i < 0 || i >= n {
		return pfc.Shard{}, fmt.Errorf("-shard %q: the index %q must be an integer from 0 to %d", v, is, n-1)
	}
	return pfc.Shard{Index: i, Count: n}, nil
}
