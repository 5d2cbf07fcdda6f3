package mockserver_test

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
)

// logBuffer is a JSON logger writing to a buffer.
func logBuffer() (*slog.Logger, *bytes.Buffer) {
	var b bytes.Buffer
	return slog.New(slog.NewJSONHandler(&b, nil)), &b
}

// engineHost is a mock that removes backgrounds with a BGEngine: a
// bgmock.Server or a Hosted.
type engineHost struct {
	engine func() mockserver.BGEngine
	close  func() error
}

// engineHosts open each kind of mock with engine e; the choice of engine
// behaves the same in both.
var engineHosts = map[string]func(t *testing.T, e mockserver.BGEngine, log *slog.Logger) (*engineHost, error){
	"bg": func(t *testing.T, e mockserver.BGEngine, log *slog.Logger) (*engineHost, error) {
		b, err := bgmock.New(bgmock.Options{DataDir: t.TempDir(), Engine: e, Logger: log})
		if err != nil {
			return nil, err
		}
		return &engineHost{engine: b.Engine, close: b.Close}, nil
	},
	"hosted": func(t *testing.T, e mockserver.BGEngine, log *slog.Logger) (*engineHost, error) {
		h, err := hostedmock.New(hostedmock.Options{DataDir: t.TempDir(), BGEngine: e, Logger: log})
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
			assert.Equal(t, mockserver.BGEngineCPU, m.engine())
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
			require.ErrorIs(t, err, mockserver.ErrInvalidOptions)
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
			m, err := open(t, mockserver.BGEngineCUDA, log)
			if err == nil {
				// a cuda build on a GPU machine
				require.True(t, mockserver.CUDAEngineCompiled)
				assert.Equal(t, mockserver.BGEngineCUDA, m.engine())
				assert.Contains(t, buf.String(), `"engine":"cuda"`)
				require.NoError(t, m.close())
				return
			}
			require.ErrorIs(t, err, mockserver.ErrEngineUnavailable)
			var ue *mockserver.EngineUnavailableError
			require.ErrorAs(t, err, &ue)
			assert.Equal(t, mockserver.BGEngineCUDA, ue.Engine)
			if !mockserver.CUDAEngineCompiled {
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
			m, err := open(t, mockserver.BGEngineAuto, log)
			require.NoError(t, err)
			defer func() { require.NoError(t, m.close()) }()
			if m.engine() == mockserver.BGEngineCUDA {
				assert.Contains(t, buf.String(), `"engine":"cuda","requested":"auto"`)
				return
			}
			assert.Equal(t, mockserver.BGEngineCPU, m.engine())
			assert.Contains(t, buf.String(), `"engine":"cpu","requested":"auto","gpu_unavailable":`)
			assert.Equal(t, 1, bytes.Count(buf.Bytes(), []byte("background-removal engine")), "one log line")
			t.Logf("auto chose the CPU: %s", buf.String())
		})
	}
}
