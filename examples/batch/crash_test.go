package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	_ "image/png"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// The child process of TestBatchSurvivesKills is this test binary, run
// with these variables: crashChildEnv its API, crashArgsEnv the batch's
// arguments (one per line), crashKillEnv the request it stops at,
// "<phase>:<n>" (the n-th request of the phase: upload, wait or
// download), where it prints "PHASE <phase> <n>" and hangs until killed.
const (
	crashChildEnv = "PFC_BATCH_CRASH_CHILD"
	crashArgsEnv  = "PFC_BATCH_CRASH_ARGS"
	crashKillEnv  = "PFC_BATCH_CRASH_KILL_AT"
)

// TestCrashChild is the child process of TestBatchSurvivesKills (skipped
// otherwise): the batch command over the parent's mock.
func TestCrashChild(t *testing.T) {
	api := os.Getenv(crashChildEnv)
	if api == "" {
		t.Skip("the child process of TestBatchSurvivesKills")
	}
	gate := &phaseGate{api: api, base: http.DefaultTransport}
	if at := os.Getenv(crashKillEnv); at != "" {
		phase, n, _ := strings.Cut(at, ":")
		gate.phase = phase
		gate.n, _ = strconv.ParseInt(n, 10, 64)
	}
	httpClient = &http.Client{Transport: gate} // polling fast: see TestMain
	code, err := run(context.Background(), strings.Split(os.Getenv(crashArgsEnv), "\n"), os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "batch:", err)
	}
	os.Exit(code)
}

// phaseGate is the child's transport: it stops at the n-th request of
// phase, printing "PHASE <phase> <n>", and hangs there until the parent
// kills the process. An upload stops before it is sent (a job start that
// reached the service but not the manifest is a window no client can
// close); a wait or a download after the service answered, before the
// client reads the answer.
type phaseGate struct {
	api, phase string
	n          int64
	seen       atomic.Int64
	base       http.RoundTripper
}

func (g *phaseGate) RoundTrip(req *http.Request) (*http.Response, error) {
	if g.phase == "" || phaseOf(g.api, req) != g.phase || g.seen.Add(1) != g.n {
		return g.base.RoundTrip(req)
	}
	if g.phase != "upload" {
		if resp, err := g.base.RoundTrip(req); err == nil {
			defer resp.Body.Close()
		}
	}
	fmt.Printf("PHASE %s %d\n", g.phase, g.n)
	time.Sleep(time.Hour) // parked until killed
	return nil, context.Canceled
}

// phaseOf classifies a request of api: "upload" (sending the image),
// "wait" (a status poll; the container's synchronous correction),
// "download" (fetching the result), or "".
func phaseOf(api string, req *http.Request) string {
	p := req.URL.Path
	switch api {
	case "hosted":
		switch {
		case req.Method == http.MethodPut:
			return "upload"
		case strings.Contains(p, "/status/"):
			return "wait"
		case req.Method == http.MethodGet && !strings.Contains(p, "/v2/"):
			return "download"
		}
	case "container":
		switch {
		case req.Method == http.MethodPut && p == "/pfc":
			return "upload"
		case strings.HasPrefix(p, "/pfc/"):
			return "wait"
		case req.Method == http.MethodGet && p != "/version":
			return "download"
		}
	case "bg":
		switch {
		case strings.HasPrefix(p, "/SubmitImage"):
			return "upload"
		case strings.HasPrefix(p, "/CheckImage/"):
			return "wait"
		case strings.HasPrefix(p, "/DownloadImage/"):
			return "download"
		}
	}
	return ""
}

// TestBatchSurvivesKills runs the batch command as a child process over
// 24 tiny images against each API's mock (in this process, so that it
// outlives the child), kills it with SIGKILL at random requests (at least
// 5 times: during an upload, while waiting, while downloading, and
// anywhere), then reruns it until it completes: the mock started exactly
// one job per image, and every output equals a clean run's pixel for
// pixel.
func TestBatchSurvivesKills(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs child processes")
	}
	if raceEnabled {
		// Its children are this binary, race detector included: minutes
		// of image work for what is a test of kills, not of races (the
		// runner's concurrency is raced in internal/bulk).
		t.Skip("not under the race detector")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	for _, api := range []string{"hosted", "container", "bg"} {
		t.Run(api, func(t *testing.T) {
			t.Parallel()
			testKills(t, api, rand.New(rand.NewPCG(seed, uint64(len(api)))))
		})
	}
}

// crashImages leaves room for every kill: a run killed at the 4th request
// of a phase has done 3 images at most, so the fifth kill still finds 4
// images to do after 15 (it was 40; the count is not the subject).
const crashImages = 24

// allDone is the error of a clean run (its report and error) that did not
// do all crashImages images.
func allDone[R any](rep *pfc.BulkReport[R], err error) error {
	if err == nil && rep.Done != crashImages {
		err = fmt.Errorf("%d of %d images done, %d failed", rep.Done, crashImages, rep.Failed)
	}
	return err
}

func testKills(t *testing.T, api string, rng *rand.Rand) {
	in, ref, out := t.TempDir(), t.TempDir(), t.TempDir()
	writeTinyImages(t, in, crashImages)

	// The clean run, in process, gives the expected outputs.
	var url string
	var env []string
	var jobs func() int
	ctx := context.Background()
	switch api {
	case "hosted":
		ts := hostedmock.Start(t, nil)
		require.NoError(t, allDone(ts.Client.CorrectDir(ctx, in, ref, hosted.NewCorrection(), nil)))
		url, jobs = ts.URL, ts.Mock.JobsStarted
		env = append(env, "PFC_API_KEY="+ts.APIKey)
	case "container":
		ts := pfcmock.Start(t, nil)
		require.NoError(t, allDone(ts.Client.CorrectDir(ctx, in, ref, nil, nil)))
		url, jobs = ts.URL, ts.Mock.JobsStarted
	case "bg":
		ts := bgmock.Start(t, nil)
		require.NoError(t, allDone(ts.Client.RemoveDir(ctx, in, ref, nil, nil)))
		url, jobs = ts.URL, ts.Mock.JobsStarted
		env = append(env, "PFC_BG_LICENSE_KEY="+ts.LicenseKey)
	}
	before := jobs()
	args := strings.Join([]string{"-api", api, "-url", url, "-in", in, "-out", out, "-concurrency", "1"}, "\n")
	env = append(os.Environ(), append(env, crashChildEnv+"="+api, crashArgsEnv+"="+args)...)

	// Five kills at least: one per phase, then two anywhere, each at one
	// of the first few requests of its phase, so that the run is not over
	// before.
	phases := []string{"upload", "wait", "download"}
	rng.Shuffle(len(phases), func(i, j int) { phases[i], phases[j] = phases[j], phases[i] })
	phases = append(phases, phases[rng.IntN(3)], phases[rng.IntN(3)])
	killed := map[string]int{}
	for _, phase := range phases {
		at := fmt.Sprintf("%s:%d", phase, 1+rng.IntN(4))
		if killChild(t, env, at) {
			killed[phase]++
		}
	}
	t.Logf("%s: kills %v", api, killed)
	for _, phase := range []string{"upload", "wait", "download"} {
		assert.Positive(t, killed[phase], "killed while in %s", phase)
	}

	var last string
	for try := 0; ; try++ {
		require.Less(t, try, 3, "the reruns complete")
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		last = string(b)
		if err == nil {
			break
		}
		t.Logf("rerun %d: %v\n%s%s", try, err, b, stderr.Bytes())
	}
	t.Logf("%s: last run:\n%s", api, last)
	assert.Equal(t, crashImages, jobs()-before, "one job per image, over %d kills and the reruns", len(phases))
	assertSameImages(t, ref, out)
}

// killChild runs the child with crashKillEnv at, and kills it with
// SIGKILL once it prints its PHASE line. It reports whether it did (false:
// the run ended first).
func killChild(t *testing.T, env []string, at string) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	cmd.Env = append(env, crashKillEnv+"="+at)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "PHASE ") {
			require.NoError(t, cmd.Process.Kill()) // SIGKILL
			_ = cmd.Wait()
			return true
		}
	}
	err = cmd.Wait()
	t.Logf("the run at %s ended before its kill: %v\n%s", at, err, stderr.Bytes())
	return false
}

// tinySide is the side of the test images: the smallest the services
// take (the hosted API corrects no side under 33 px).
const tinySide = 40

// writeTinyImages writes n tinySide x tinySide JPEGs of different colours into dir.
func writeTinyImages(t *testing.T, dir string, n int) {
	t.Helper()
	for i := range n {
		img := image.NewNRGBA(image.Rect(0, 0, tinySide, tinySide))
		for y := range tinySide {
			for x := range tinySide {
				img.Set(x, y, color.NRGBA{R: uint8(40 + 5*i), G: uint8(60 + 4*x), B: uint8(90 + 4*y), A: 255})
			}
		}
		var buf bytes.Buffer
		require.NoError(t, jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}))
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("img%02d.jpg", i)), buf.Bytes(), 0o644))
	}
}

// assertSameImages checks that every image of ref is in got, with the
// same pixels, and that got has no other image.
func assertSameImages(t *testing.T, ref, got string) {
	t.Helper()
	refs, err := filepath.Glob(filepath.Join(ref, "img*"))
	require.NoError(t, err)
	gots, err := filepath.Glob(filepath.Join(got, "img*"))
	require.NoError(t, err)
	assert.Len(t, gots, len(refs))
	require.Len(t, refs, crashImages)
	for _, r := range refs {
		name := filepath.Base(r)
		a, b := decode(t, r), decode(t, filepath.Join(got, name))
		if a == nil || b == nil {
			continue
		}
		require.Equal(t, a.Bounds(), b.Bounds(), name)
		for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
			for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
				if a.At(x, y) != b.At(x, y) {
					t.Errorf("%s: pixel (%d,%d) %v, the clean run's %v", name, x, y, b.At(x, y), a.At(x, y))
					return
				}
			}
		}
	}
}

func decode(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if !assert.NoError(t, err) {
		return nil
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	assert.NoError(t, err, path)
	return img
}
