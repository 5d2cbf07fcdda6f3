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

// engineHost is a mock that removes backgrounds with a BGEngine: a
// BGContainer or a Hosted.
type engineHost struct {
	engine func() BGEngine
	close  func() error
}

// engineHosts open each kind of mock with engine e; the choice of engine
// behaves the same in both.
var engineHosts = map[string]func(t *testing.T, e BGEngine, log *slog.Logger) (*engineHost, error){
	"bg": func(t *testing.T, e BGEngine, log *slog.Logger) (*engineHost, error) {
		b, err := NewBGContainer(BGContainerOptions{DataDir: t.TempDir(), Engine: e, Logger: log})
		if err != nil {
			return nil, err
		}
		return &engineHost{engine: b.Engine, close: b.Close}, nil
	},
	"hosted": func(t *testing.T, e BGEngine, log *slog.Logger) (*engineHost, error) {
		h, err := NewHosted(HostedOptions{DataDir: t.TempDir(), BGEngine: e, Logger: log})
		if err != nil {
			return nil, err
		}
		return &engineHost{engine: h.BGEngine, close: h.Close}, nil
	},
}

func TestBGEngineDefaultIsCPU(t *testing.T) {
	t.Parallel()
	for name, open := range engineHosts {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			log, buf := logBuffer()
			m, err := open(t, "", log)
			require.NoError(t, err)
			assert.Equal(t, BGEngineCPU, m.engine())
			require.NoError(t, m.close())
			require.NoError(t, m.close(), "idempotent")
			assert.Contains(t, buf.String(), `"msg":"background-removal engine","engine":"cpu"`)
		})
	}
}

func TestBGEngineUnknown(t *testing.T) {
	t.Parallel()
	for name, open := range engineHosts {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := open(t, "tpu", slog.New(slog.DiscardHandler))
			require.ErrorIs(t, err, ErrInvalidOptions)
			assert.ErrorContains(t, err, `unknown background-removal engine "tpu" (want cpu, cuda or auto)`)
		})
	}
}

func TestBGEngineCUDA(t *testing.T) {
	t.Parallel()
	for name, open := range engineHosts {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			log, buf := logBuffer()
			m, err := open(t, BGEngineCUDA, log)
			if err == nil {
				// a cuda build on a GPU machine
				require.True(t, CUDAEngineCompiled)
				assert.Equal(t, BGEngineCUDA, m.engine())
				assert.Contains(t, buf.String(), `"engine":"cuda"`)
				require.NoError(t, m.close())
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
		})
	}
}

func TestBGEngineAuto(t *testing.T) {
	t.Parallel()
	for name, open := range engineHosts {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			log, buf := logBuffer()
			m, err := open(t, BGEngineAuto, log)
			require.NoError(t, err)
			defer func() { require.NoError(t, m.close()) }()
			if m.engine() == BGEngineCUDA {
				assert.Contains(t, buf.String(), `"engine":"cuda","requested":"auto"`)
				return
			}
			assert.Equal(t, BGEngineCPU, m.engine())
			assert.Contains(t, buf.String(), `"engine":"cpu","requested":"auto","gpu_unavailable":`)
			assert.Equal(t, 1, bytes.Count(buf.Bytes(), []byte("background-removal engine")), "one log line")
			t.Logf("auto chose the CPU: %s", buf.String())
		})
	}
}
