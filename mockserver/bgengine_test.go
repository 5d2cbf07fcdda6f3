package mockserver

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logBuffer is a JSON logger writing to a buffer.
func logBuffer() (*slog.Logger, *bytes.Buffer) {
	var b bytes.Buffer
	return slog.New(slog.NewJSONHandler(&b, nil)), &b
}

func TestBGEngineDefaultIsCPU(t *testing.T) {
	t.Parallel()
	log, buf := logBuffer()
	b, err := NewBGContainer(BGContainerOptions{DataDir: t.TempDir(), Logger: log})
	require.NoError(t, err)
	assert.Equal(t, BGEngineCPU, b.Engine())
	require.NoError(t, b.Close())
	require.NoError(t, b.Close(), "idempotent")
	assert.Contains(t, buf.String(), `"msg":"background-removal engine","engine":"cpu"`)
}

func TestBGEngineUnknown(t *testing.T) {
	t.Parallel()
	_, err := NewBGContainer(BGContainerOptions{DataDir: t.TempDir(), Engine: "tpu"})
	require.ErrorIs(t, err, ErrInvalidOptions)
	assert.ErrorContains(t, err, `unknown background-removal engine "tpu" (want cpu, cuda or auto)`)
}

func TestBGEngineCUDA(t *testing.T) {
	t.Parallel()
	log, buf := logBuffer()
	b, err := NewBGContainer(BGContainerOptions{DataDir: t.TempDir(), Engine: BGEngineCUDA, Logger: log})
	if err == nil {
		// a cuda build on a GPU machine
		require.True(t, CUDAEngineCompiled)
		assert.Equal(t, BGEngineCUDA, b.Engine())
		assert.Contains(t, buf.String(), `"engine":"cuda"`)
		require.NoError(t, b.Close())
		return
	}
	require.ErrorIs(t, err, ErrEngineUnavailable)
	var ue *EngineUnavailableError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, BGEngineCUDA, ue.Engine)
	if !CUDAEngineCompiled {
		assert.EqualError(t, err, "mockserver: background-removal engine unavailable: cuda: "+
			"this build has only the CPU engine: rebuild with -tags cuda (Linux) for the GPU engine")
	}
	t.Logf("cuda unavailable here: %v", err)
}

func TestBGEngineAuto(t *testing.T) {
	t.Parallel()
	log, buf := logBuffer()
	b, err := NewBGContainer(BGContainerOptions{DataDir: t.TempDir(), Engine: BGEngineAuto, Logger: log})
	require.NoError(t, err)
	defer func() { require.NoError(t, b.Close()) }()
	if b.Engine() == BGEngineCUDA {
		assert.Contains(t, buf.String(), `"engine":"cuda","requested":"auto"`)
		return
	}
	assert.Equal(t, BGEngineCPU, b.Engine())
	assert.Contains(t, buf.String(), `"engine":"cpu","requested":"auto","gpu_unavailable":`)
	assert.Equal(t, 1, bytes.Count(buf.Bytes(), []byte("background-removal engine")), "one log line")
	t.Logf("auto chose the CPU: %s", buf.String())
}
