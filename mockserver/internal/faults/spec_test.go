package faults

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testBackends are two backends shaped like the mocks': one without and
// one with a route that answers a final 102.
var testBackends = []Backend{
	{Name: "hosted", Routes: []Route{{Name: "pfc"}, {Name: "status"}, {Name: "other"}}, Classify: classifyByPath},
	{Name: "bg", Routes: []Route{{Name: "submit"}, {Name: "download", Final102: true}, {Name: "other"}}, Classify: classifyByPath},
}

func classifyByPath(_, path string) string {
	switch name := strings.TrimPrefix(path, "/"); name {
	case "pfc", "status", "submit", "download":
		return name
	}
	return "other"
}

func TestParseValid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec   string
		hosted *Config // nil: no faults
		bg     *Config
	}{
		{spec: "", hosted: nil, bg: nil},
		{spec: "   ", hosted: nil, bg: nil},
		{
			spec:   "rate=0.2,kinds=503|429|reset|latency,seed=7",
			hosted: &Config{Rate: 0.2, Kinds: []Kind{Status503, Status429, Reset, Latency}, Seed: 7, Latency: DefaultLatency, RetryAfter: DefaultRetryAfter},
			bg:     &Config{Rate: 0.2, Kinds: []Kind{Status503, Status429, Reset, Latency}, Seed: 7, Latency: DefaultLatency, RetryAfter: DefaultRetryAfter},
		},
		{
			spec:   "rate=1",
			hosted: &Config{Rate: 1, Kinds: AllKinds, Seed: DefaultSeed, Latency: DefaultLatency, RetryAfter: DefaultRetryAfter},
			bg:     &Config{Rate: 1, Kinds: AllKinds, Seed: DefaultSeed, Latency: DefaultLatency, RetryAfter: DefaultRetryAfter},
		},
		{
			// A backend section inherits what it does not set.
			spec:   " rate=0.1 , seed=3 ; hosted: routes=pfc|status , latency=5ms ; bg:rate=0.3,kinds=102|503,retry-after=0",
			hosted: &Config{Rate: 0.1, Kinds: AllKinds, Routes: []string{"pfc", "status"}, Seed: 3, Latency: 5 * time.Millisecond, RetryAfter: DefaultRetryAfter},
			bg:     &Config{Rate: 0.3, Kinds: []Kind{Final102, Status503}, Seed: 3, Latency: DefaultLatency, RetryAfter: 0},
		},
		{
			// Only one backend named, no default: the other gets nothing.
			spec: "bg:rate=0.5,routes=download,kinds=102",
			bg:   &Config{Rate: 0.5, Kinds: []Kind{Final102}, Routes: []string{"download"}, Seed: DefaultSeed, Latency: DefaultLatency, RetryAfter: DefaultRetryAfter},
		},
		{
			// A default route some backend has.
			spec:   "rate=0.2,routes=download|pfc",
			hosted: &Config{Rate: 0.2, Kinds: AllKinds, Routes: []string{"download", "pfc"}, Seed: DefaultSeed, Latency: DefaultLatency, RetryAfter: DefaultRetryAfter},
			bg:     &Config{Rate: 0.2, Kinds: AllKinds, Routes: []string{"download", "pfc"}, Seed: DefaultSeed, Latency: DefaultLatency, RetryAfter: DefaultRetryAfter},
		},
		{
			spec:   "rate=0,seed=18446744073709551615,latency=10s,retry-after=3600",
			hosted: &Config{Rate: 0, Kinds: AllKinds, Seed: 18446744073709551615, Latency: 10 * time.Second, RetryAfter: 3600},
			bg:     &Config{Rate: 0, Kinds: AllKinds, Seed: 18446744073709551615, Latency: 10 * time.Second, RetryAfter: 3600},
		},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			s, err := Parse(tc.spec, testBackends)
			require.NoError(t, err)
			for name, want := range map[string]*Config{"hosted": tc.hosted, "bg": tc.bg} {
				got, ok := s.For(name)
				if want == nil {
					assert.False(t, ok, name)
					continue
				}
				require.True(t, ok, name)
				assert.Equal(t, *want, got, name)
			}
			if tc.hosted != nil || tc.bg != nil {
				assert.Equal(t, tc.spec, s.String())
			} else {
				assert.Nil(t, s, "an empty spec is no spec")
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ spec, want string }{
		{"rate", `section 1: "rate": want name=value`},
		{"rate=", `section 1: rate: "" is not a number from 0 to 1`},
		{"rate=1.5", `rate: "1.5" is not a number from 0 to 1`},
		{"rate=-0.1", `rate: "-0.1" is not a number from 0 to 1`},
		{"rate=NaN", `rate: "NaN" is not a number from 0 to 1`},
		{"rate=0.2,rate=0.3", "rate: given twice"},
		{"rate=0.2,,seed=1", "empty parameter"},
		{"rate=0.2;", "section 2: empty section"},
		{"rate=0.2;rate=0.1", "section 2: a second section without a backend"},
		{"hosted:rate=0.2;hosted:rate=0.1", `section 2: backend "hosted" has a section already`},
		{"container:rate=0.2", `section 1: unknown backend "container" (backends: hosted, bg)`},
		{"rate=0.2,kinds=503|teapot", `kinds: unknown kind "teapot" (kinds: 500, 503, 429, reset, reset-body, reset-after, truncate, latency, 102)`},
		{"rate=0.2,kinds=503|503", `kinds: kind "503" given twice`},
		{"rate=0.2,kinds=", `kinds: unknown kind ""`},
		{"rate=0.2,routes=pfc|", "routes: empty route name"},
		{"rate=0.2,routes=pfc|pfc", `routes: route "pfc" given twice`},
		{"rate=0.2,routes=nowhere", `the default section: routes: no backend has a route "nowhere"`},
		{"hosted:rate=0.2,routes=download", `hosted: routes: unknown route "download" (routes: pfc, status, other)`},
		{"hosted:rate=0.2,kinds=102", "hosted: kinds: 102: no route of hosted answers a final 102"},
		{"kinds=102;hosted:rate=0.2", "the default section: rate is required"},
		{"hosted:seed=4", "hosted: rate is required"},
		{"rate=0.2,seed=-1", `seed: "-1" is not an unsigned decimal integer`},
		{"rate=0.2,seed=0x10", `seed: "0x10" is not an unsigned decimal integer`},
		{"rate=0.2,latency=0s", `latency: "0s" is not a duration from 1ms to 10s`},
		{"rate=0.2,latency=11s", `latency: "11s" is not a duration from 1ms to 10s`},
		{"rate=0.2,latency=fast", `latency: "fast" is not a duration`},
		{"rate=0.2,retry-after=-1", `retry-after: "-1" is not a number of seconds from 0 to 3600`},
		{"rate=0.2,retry-after=1.5", `retry-after: "1.5" is not a number of seconds`},
		{"rate=0.2,speed=3", "speed: unknown parameter (parameters: rate, kinds, routes, seed, latency, retry-after)"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			s, err := Parse(tc.spec, testBackends)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.True(t, errors.Is(err, ErrInvalidSpec))
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestNilSpec(t *testing.T) {
	t.Parallel()
	var s *Spec
	_, ok := s.For("hosted")
	assert.False(t, ok)
	assert.Empty(t, s.String())
	assert.Nil(t, New(s, testBackends[0], nil, nil), "no faults and no observer: no injector")
	assert.NotNil(t, New(s, testBackends[0], nil, func(Event) {}), "an observer alone still sees every request")
}

// TestParseInheritedRoutesAndKinds: a backend's section may inherit
// routes and kinds that only another backend has; they are left out for
// it, as for a backend without a section (which is how hosted gets its own
// seed while the default section targets bg's download).
func TestParseInheritedRoutesAndKinds(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{
		"rate=0.2,routes=download;hosted:seed=2",
		"rate=0.5,kinds=102|503;hosted:seed=3",
	} {
		s, err := Parse(spec, testBackends)
		require.NoError(t, err, spec)
		cfg, ok := s.For("hosted")
		require.True(t, ok, spec)
		assert.NotEqual(t, DefaultSeed, cfg.Seed, spec)
	}
	inj := New(mustParse(t, "rate=1,kinds=102;hosted:seed=3"), testBackends[0], nil, nil)
	for i := range 20 {
		assert.Empty(t, inj.Decide("pfc", uint64(i)), "request %d: hosted has no 102 route", i)
	}
}
