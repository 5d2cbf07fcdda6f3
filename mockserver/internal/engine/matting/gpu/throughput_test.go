//go:build cuda && linux

package gpu

import (
	"bufio"
	"bytes"
	"context"
	"image/jpeg"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/pfc"
)

// throughputJobs is how many SubmitImage jobs each engine serves, unless
// PFC_THROUGHPUT_JOBS says otherwise (.ci/gpu-device all runs fewer).
const throughputJobs = 100

// jobsToRun is throughputJobs or PFC_THROUGHPUT_JOBS.
func jobsToRun(t *testing.T) int {
	v := os.Getenv("PFC_THROUGHPUT_JOBS")
	if v == "" {
		return throughputJobs
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "PFC_THROUGHPUT_JOBS")
	require.Positive(t, n, "PFC_THROUGHPUT_JOBS")
	return n
}

// TestStandaloneThroughput runs the pfc-mockserver binary at
// PFC_MOCKSERVER_BIN (built with -tags cuda) twice, with -bg-engine=cuda
// and with -bg-engine=cpu, and logs the throughput of 100 background
// removals of a 12 MP JPEG through the bgcontainer client (submit, poll,
// download, remove; 16 at a time). It asserts only that every job
// succeeds: the figures are for the note.
func TestStandaloneThroughput(t *testing.T) {
	bin := os.Getenv("PFC_MOCKSERVER_BIN")
	if bin == "" {
		t.Skip("skipping: set PFC_MOCKSERVER_BIN to a pfc-mockserver built with -tags cuda")
	}
	openGPU(t) // skips without a GPU
	total := jobsToRun(t)
	var jpg bytes.Buffer
	require.NoError(t, jpeg.Encode(&jpg, bigProduct(), &jpeg.Options{Quality: 90}))
	data := jpg.Bytes()
	rate := map[string]float64{}
	for _, engine := range []string{"cuda", "cpu"} {
		url := startMockserver(t, bin, engine)
		c, err := bgcontainer.NewClient("test-license-key", pfc.WithBaseURL(url),
			bgcontainer.WithPolling(pfc.WaitOptions{MinDelay: 10 * time.Millisecond, MaxDelay: 100 * time.Millisecond}))
		require.NoError(t, err)
		jobs := make(chan int)
		var wg sync.WaitGroup
		start := time.Now()
		for w := 0; w < 16; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range jobs {
					_, err := c.RemoveBackground(context.Background(), bytes.NewReader(data), int64(len(data)), nil, io.Discard)
					assert.NoError(t, err)
				}
			}()
		}
		for i := 0; i < total; i++ {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		el := time.Since(start)
		rate[engine] = float64(total) / el.Seconds()
		t.Logf("-bg-engine=%s: %d jobs of 12 MP in %v: %.2f jobs/s", engine, total, el.Round(time.Millisecond), rate[engine])
	}
	t.Logf("cuda/cpu throughput: %.2f×", rate["cuda"]/rate["cpu"])
}

// startMockserver starts bin serving only the background-removal mock
// with the engine and returns its URL; the process is stopped (SIGTERM)
// at the end of the test.
func startMockserver(t *testing.T, bin, engine string) string {
	t.Helper()
	cmd := exec.Command(bin, "-hosted-addr=", "-container-addr=", "-bg-addr=127.0.0.1:0", "-bg-engine="+engine)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		for _, l := range strings.Split(stderr.String(), "\n") {
			if strings.Contains(l, "engine") {
				t.Logf("-bg-engine=%s log: %s", engine, l)
			}
		}
	})
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "bg: "); ok {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return u
		}
	}
	t.Fatalf("pfc-mockserver -bg-engine=%s did not start: %s", engine, stderr.String())
	return ""
}
