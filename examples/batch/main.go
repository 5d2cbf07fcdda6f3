// Command batch corrects a folder of photos in bulk, several at once, with
// a terminal progress bar and a resumable manifest: Ctrl-C stops it
// cleanly, and running the same command again skips what is done.
//
// With no flags it generates a few sample photos in ./batch-in, starts the
// hosted API mock in-process (no keys, no network) and corrects them into
// ./batch-out, then exits 0 (a second run finds everything done):
//
//	go run ./examples/batch
//
// Choose the API with -api: hosted (the default), container (the
// correction container; add -direct for direct file mode) or bg (the
// background-removal container: PNGs with the background removed). Each
// runs against its in-process mock unless -url names a real service. The
// hosted API key comes from -api-key or $PFC_API_KEY, the licence key of
// the background-removal container from -license-key or
// $PFC_BG_LICENSE_KEY (the environment keeps them out of the process
// list):
//
//	PFC_API_KEY=... go run ./examples/batch -in ./photos -out ./corrected -url https://api.example.com/v2
//	go run ./examples/batch -api container -url http://localhost:80 -in ./photos -out ./corrected
//	go run ./examples/batch -api container -direct -url http://localhost:80 -input /srv/pfc/input -output /srv/pfc/output
//	PFC_BG_LICENSE_KEY=... go run ./examples/batch -api bg -url http://gpu-box:8000 -in ./photos -out ./cutouts
//
// For the two containers, -url may list several replicas, comma-separated
// (-url http://gpu1:8000,http://gpu2:8000,http://gpu3:8000): the photos are
// spread over them, each job stays on its replica, and a replica that dies
// during the run is named in the summary while its photos are done on the
// others. With -api bg a photo whose job was left on such a replica waits
// up to -cleanup-timeout (default 10s) for it to answer again, to remove
// that job.
//
// With -shard i/n the run processes only its shard of the photos (see
// pfc.Shard), keeping the manifest .pfc-bulk.shard-i-of-n.jsonl in -out;
// -shard n takes i from $JOB_COMPLETION_INDEX, which a Kubernetes Indexed
// Job sets, so n pods of one Job split a folder between them (see
// docs/kubernetes).
//
// The run ends with its cost report: the jobs it started, those it
// collected from a run that was killed (their jobs recorded in the
// manifest, never started twice), those redone because the service had
// forgotten them, and, for the hosted API, the sum of the jobs' usage
// counters. -max-starts N stops after N jobs (run again to go on);
// -dry-run sends nothing and lists what the run would do.
//
// The exit status is 0 when every photo is done, 1 when some failed (each
// is listed with its error), 3 when -max-starts stopped the run, 130 when
// interrupted.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/pfcsdk/pfc-go/pfc"
)

func main() {
	log.SetFlags(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	code, err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		log.Printf("batch: %v", err)
		if code == 0 {
			code = 2
		}
	}
	os.Exit(code)
}

// config is the command line.
type config struct {
	api, in, out, url, apiKey string
	licenseKey                string // -api bg
	direct                    bool
	input, output             string // container direct mode: mounted /input and /output
	concurrency, samples      int
	rate                      float64
	maxStarts                 int           // BulkOptions.MaxStarts
	dryRun                    bool          // BulkOptions.DryRun
	cleanup                   time.Duration // -api bg: FlowOptions.CleanupTimeout
	shard                     pfc.Shard     // -shard
}

// summary is what every API's bulk report says, for printing.
type summary struct {
	done, failed, skipped, interrupted int
	elapsed                            time.Duration
	failures                           []failure
	// The cost report: jobs started by this run, collected from an
	// earlier one, redone (forgotten by the service), files left by
	// -max-starts, and the hosted jobs' usage counters.
	started, collected, redone, notStarted int
	usage                                  map[string]float64
	// plan is a dry run's (nil otherwise).
	plan *pfc.BulkPlan[any]
	// lost are the replicas found down during the run.
	lost []string
}

type failure struct{ id, kind, err string }

// progress is every API's progress snapshot, for the bar.
type progress struct {
	total, finished int
}

// batchFunc runs one bulk run of an API over cfg.in → cfg.out.
type batchFunc func(ctx context.Context, cfg config, onProgress func(progress)) (summary, error)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var cfg config
	fs := flag.NewFlagSet("batch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.api, "api", "hosted", "API: hosted, container or bg")
	fs.StringVar(&cfg.in, "in", "", "folder of photos (default: ./batch-in with generated samples)")
	fs.StringVar(&cfg.out, "out", "", "folder for the results and the manifest .pfc-bulk.jsonl (default: ./batch-out/<api>)")
	fs.StringVar(&cfg.url, "url", "", "base URL of a real service (default: the in-process mock); for container and bg, several replicas comma-separated")
	// Keys default to "" and are read from the environment after Parse:
	// a flag's default is printed by -h.
	fs.StringVar(&cfg.apiKey, "api-key", "", "hosted API key (default $PFC_API_KEY)")
	fs.StringVar(&cfg.licenseKey, "license-key", "", "-api bg: licence key of the background-removal container (default $PFC_BG_LICENSE_KEY)")
	fs.BoolVar(&cfg.direct, "direct", false, "container: direct file mode (needs -input and -output with -url)")
	fs.StringVar(&cfg.input, "input", "", "container direct mode: host directory mounted as /input")
	fs.StringVar(&cfg.output, "output", "", "container direct mode: host directory mounted as /output")
	fs.IntVar(&cfg.concurrency, "concurrency", 8, "photos in flight")
	fs.Float64Var(&cfg.rate, "rate", 0, "at most this many photos started per second (0: no limit)")
	fs.IntVar(&cfg.maxStarts, "max-starts", 0, "start at most this many jobs, then stop; run again to go on (0: no cap)")
	fs.BoolVar(&cfg.dryRun, "dry-run", false, "send nothing: list what the run would do")
	fs.IntVar(&cfg.samples, "samples", 12, "how many sample photos to generate when -in is not given")
	shardFlag := fs.String("shard", "", "process only shard i of n: i/n, or n (or /n) with i from $JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)")
	fs.DurationVar(&cfg.cleanup, "cleanup-timeout", 0, "-api bg: how long a photo waits for a lost replica to answer again, to remove the job left there (0: 10s)")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	batch, ok := apis[cfg.api]
	if !ok {
		return 2, fmt.Errorf("unknown -api %q (hosted, container or bg)", cfg.api)
	}
	// Each key goes only to its own service.
	switch {
	case cfg.api == "bg" && flagSet(fs, "api-key"):
		return 2, errors.New("-api-key is the hosted API key; give the licence key of -api bg in -license-key (or $PFC_BG_LICENSE_KEY)")
	case cfg.api != "bg" && flagSet(fs, "license-key"):
		return 2, errors.New("-license-key is the licence key of -api bg")
	case cfg.api != "bg" && flagSet(fs, "cleanup-timeout"):
		return 2, errors.New("-cleanup-timeout applies to -api bg only")
	case cfg.cleanup < 0:
		return 2, fmt.Errorf("-cleanup-timeout must not be negative, got %s", cfg.cleanup)
	}
	if *shardFlag != "" {
		sh, err := parseShard(*shardFlag, os.Getenv("JOB_COMPLETION_INDEX"))
		if err != nil {
			return 2, err
		}
		cfg.shard = sh
	}
	if !flagSet(fs, "api-key") {
		cfg.apiKey = os.Getenv("PFC_API_KEY")
	}
	if !flagSet(fs, "license-key") {
		cfg.licenseKey = os.Getenv("PFC_BG_LICENSE_KEY")
	}
	if cfg.out == "" {
		cfg.out = filepath.Join("batch-out", cfg.api)
		if cfg.direct {
			cfg.out += "-direct"
		}
	}
	if cfg.in == "" {
		cfg.in = "batch-in"
		if err := writeSamples(cfg.in, cfg.samples); err != nil {
			return 2, err
		}
	}

	// The bar is made at the first snapshot, which knows the total (a
	// folder's size): progressbar's spinner mode, for an unknown total,
	// runs a goroutine of its own. Snapshots arrive one at a time.
	var bar *progressbar.ProgressBar
	s, err := batch(ctx, cfg, func(p progress) {
		if bar == nil {
			bar = progressbar.NewOptions(max(p.total, 0),
				progressbar.OptionSetWriter(stderr),
				progressbar.OptionSetDescription(cfg.api),
				progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(100*time.Millisecond),
			)
		}
		_ = bar.Set(p.finished)
	})
	if bar != nil {
		_ = bar.Exit()
	}
	fmt.Fprintln(stderr)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, pfc.ErrJobCapReached) {
		return 2, err
	}
	if s.plan != nil {
		printPlan(stdout, cfg, s.plan)
		return 0, nil
	}
	label := cfg.api
	if cfg.direct {
		label += " (direct file mode)"
	}
	if cfg.shard.Count > 0 {
		label += fmt.Sprintf(" shard %d/%d", cfg.shard.Index, cfg.shard.Count)
	}
	fmt.Fprintf(stdout, "%s: %d processed, %d already done, %d failed in %s; results in %s\n",
		label, s.done, s.skipped, s.failed, s.elapsed.Round(time.Millisecond), cfg.out)
	for _, f := range s.failures {
		fmt.Fprintf(stdout, "  failed %s (%s): %s\n", f.id, f.kind, f.err)
	}
	for _, u := range s.lost {
		fmt.Fprintf(stdout, "  replica down: %s (its photos were done on the others)\n", u)
	}
	printCost(stdout, s)
	switch {
	case errors.Is(err, pfc.ErrJobCapReached):
		fmt.Fprintf(stdout, "stopped at -max-starts %d: %d not started; run the same command again to go on\n", cfg.maxStarts, s.notStarted)
		return 3, nil
	case err != nil:
		fmt.Fprintf(stdout, "interrupted: %d left; run the same command again to resume\n", s.interrupted)
		return 130, nil
	case s.failed > 0:
		return 1, nil
	}
	return 0, nil
}

// parseShard reads -shard: "i/n", or "n" or "/n" with i from
// $JOB_COMPLETION_INDEX (env), which a Kubernetes Indexed Job sets.
func parseShard(v, env string) (pfc.Shard, error) {
	is, ns, hasIndex := strings.Cut(v, "/")
	if !hasIndex {
		is, ns = "", v
	}
	n, err := strconv.Atoi(ns)
	if err != nil || n < 1 {
		return pfc.Shard{}, fmt.Errorf("-shard %q: the shard count must be a positive integer (i/n, or n with $JOB_COMPLETION_INDEX)", v)
	}
	if is == "" {
		if env == "" {
			return pfc.Shard{}, fmt.Errorf("-shard %q names no index and $JOB_COMPLETION_INDEX is not set (give i/n)", v)
		}
		is = env
	}
	i, err := strconv.Atoi(is)
	if err != nil || i < 0 || i >= n {
		return pfc.Shard{}, fmt.Errorf("-shard %q: the index %q must be an integer from 0 to %d", v, is, n-1)
	}
	return pfc.Shard{Index: i, Count: n}, nil
}

// printCost prints the run's cost report: jobs started, collected and
// redone, and the usage counters of the hosted jobs.
func printCost(w io.Writer, s summary) {
	fmt.Fprintf(w, "jobs: %d started, %d collected from an earlier run, %d redone (forgotten by the service)\n",
		s.started, s.collected, s.redone)
	if len(s.usage) > 0 {
		names := slices.Sorted(maps.Keys(s.usage))
		fmt.Fprint(w, "usage:")
		for _, k := range names {
			fmt.Fprintf(w, " %s=%g", k, s.usage[k])
		}
		fmt.Fprintln(w)
	}
}

// printPlan prints a dry run's plan.
func printPlan(w io.Writer, cfg config, p *pfc.BulkPlan[any]) {
	fmt.Fprintf(w, "dry run (%s), nothing sent: %d to process, %d already done, %d in flight to collect, %d refused\n",
		cfg.api, len(p.Process), len(p.Done), len(p.Collect), len(p.Refused))
	for _, it := range p.Collect {
		fmt.Fprintf(w, "  collect %s\n", it.ID)
	}
	for _, it := range p.Process {
		fmt.Fprintf(w, "  process %s\n", it.ID)
	}
	for _, r := range p.Refused {
		fmt.Fprintf(w, "  refused %s (%s): %v\n", r.Item.ID, r.Kind, r.Err)
	}
}

// flagSet reports whether the command line set the flag name (to any
// value, "" included).
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// apis maps -api to its bulk run.
var apis = map[string]batchFunc{
	"hosted":    runHosted,
	"container": runContainer,
	"bg":        runBG,
}

// serveMock serves h on a loopback port and returns its base URL and a
// shutdown function.
func serveMock(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}

// writeSamples writes n generated photos into dir, keeping those already
// there (so a rerun resumes on the same inputs).
func writeSamples(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range n {
		name := filepath.Join(dir, fmt.Sprintf("sample%03d.jpg", i))
		if _, err := os.Stat(name); err == nil {
			continue
		}
		img := image.NewNRGBA(image.Rect(0, 0, 320+8*i, 240))
		b := img.Bounds()
		for y := range b.Dy() {
			for x := range b.Dx() {
				img.Set(x, y, color.NRGBA{R: uint8(60 + 150*x/b.Dx()), G: uint8(50 + 120*y/b.Dy() + 7*i), B: uint8(80 + (x*y+i)%23), A: 255})
			}
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 88}); err != nil {
			return err
		}
		if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
