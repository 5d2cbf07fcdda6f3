package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pfcsdk/pfc-go/mockserver"
)

func TestBGEngineFlag(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, engine, msg string
		skip              bool
	}{
		{name: "unknown", engine: "tpu", msg: `unknown background-removal engine \"tpu\" (want cpu, cuda or auto)`},
		{name: "cuda without the tag", engine: "cuda", skip: mockserver.CUDAEngineCompiled,
			msg: "background-removal engine unavailable: cuda: this build has only the CPU engine: rebuild with -tags cuda (Linux) for the GPU engine"},
	}
	// -bg-engine reaches both backends that remove backgrounds.
	backends := map[string][]string{
		"bg":     {"-hosted-addr", "", "-container-addr", "", "-bg-addr", "127.0.0.1:0"},
		"hosted": {"-hosted-addr", "127.0.0.1:0", "-container-addr", "", "-bg-addr", ""},
	}
	for _, c := range cases {
		for name, addrs := range backends {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				if c.skip {
					t.Skip("a cuda build")
				}
				var stdout, stderr bytes.Buffer
				args := append(append([]string(nil), addrs...), "-data-dir", t.TempDir(), "-bg-engine", c.engine)
				code := run(context.Background(), args, &stdout, &stderr)
				assert.Equal(t, 2, code, "fails at startup")
				assert.Empty(t, stdout.String(), "nothing served")
				assert.Contains(t, stderr.String(), c.msg)
			})
		}
	}
}

func TestBGEngineFlagDefault(t *testing.T) {
	t.Parallel()
	want := "cpu"
	if mockserver.CUDAEngineCompiled {
		want = "auto"
	}
	assert.Equal(t, want, defaultBGEngine())
}
