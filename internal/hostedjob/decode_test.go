package hostedjob

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serviceRecord is a record as the service sends it on completion.
const serviceRecord = `{"_id":"fcbbc98067da735979f460aa","status":"COMPLETED","statusText":"","code":0,` +
	`"createdAt":"2026-11-27T18:39:57.496Z","updatedAt":"2026-11-27T18:39:57.497Z",` +
	`"correctedFile":"https://files.example.test/fcbbc98067da735979f460aa/corrected.jpg?sig=abc",` +
	`"usage":{"size":"S","imageCorrectionCount":1,"imageResizeCount":0,"classicResizeCount":0,` +
	`"glaresDetectorCount":0,"videoCorrectionCount":0,"removeBackgroundCount":0,"removeGlaresCount":0,` +
	`"autoCropCount":0,"removeGlaresTotalCount":0},"aiserver":true,"timeTaken":0.000722579,` +
	`"originalDimensions":{"width":48,"height":40},"cropRect":{"left":1,"top":2,"width":30,"height":20}}`

// decodeCases are records the parser reads (fast true) or leaves to
// encoding/json; each is checked against json.Unmarshal.
var decodeCases = []struct {
	name, in string
	fast     bool
}{
	{"service record", serviceRecord, true},
	{"pending", `{"_id":"j1","status":"PENDING","statusText":"queued","code":0,"createdAt":"2026-11-27T18:39:57Z","updatedAt":""}`, true},
	{"whitespace", " \n{ \"_id\" : \"j1\" ,\t\"code\" : -12 , \"timeTaken\" : -1.5e-3 , \"aiserver\" : false }\r\n", true},
	{"empty object", `{}`, true},
	{"unknown keys skipped", `{"_id":"j1","extra":{"a":[1,2.5,"x\n\u00e9",true,false,null,{}],"b":[]},"more":"s\"q"}`, true},
	{"detection data", `{"_id":"j1","detectionData":{"facesCount":1,"faces":[{"confidence":90,"leftEye":{"x":1.5,"y":2}}],"warnings":["w"],"noise":"low"}}`, true},
	{"utf-8 value", `{"_id":"j1","statusText":"überprüft"}`, true},
	{"unknown nested key", `{"usage":{"size":"M","bonus":3}}`, true},

	{"escape in value", `{"_id":"j\u0031"}`, false},
	{"escaped slash in url", `{"correctedFile":"https:\/\/x.test\/a.jpg"}`, false},
	{"null value", `{"_id":"j1","usage":null}`, false},
	{"null string", `{"_id":null}`, false},
	{"case-folded key", `{"STATUS":"COMPLETED"}`, false},
	{"case-folded nested key", `{"usage":{"SIZE":"S"}}`, false},
	{"repeated key", `{"_id":"a","_id":"b"}`, false},
	{"repeated object", `{"usage":{"size":"S"},"usage":{"autoCropCount":2}}`, false},
	{"fraction in int", `{"code":1.0}`, false},
	{"exponent in int", `{"code":1e2}`, false},
	{"int overflow", `{"code":99999999999999999999}`, false},
	{"float overflow", `{"timeTaken":1e999}`, false},
	{"string for int", `{"code":"1"}`, false},
	{"number for string", `{"_id":1}`, false},
	{"invalid utf-8", "{\"_id\":\"j\xff\"}", false},
	{"non-ascii key", `{"ſtatus":"PENDING"}`, false},
	{"control character", "{\"_id\":\"a\x01\"}", false},
	{"bad timestamp", `{"createdAt":"yesterday"}`, false},
	{"trailing data", `{"_id":"j1"} {}`, false},
	{"truncated", `{"_id":"j1"`, false},
	{"leading zero", `{"code":01}`, false},
	{"array", `[]`, false},
	{"empty", ``, false},
	{"bad escape in skipped", `{"x":"\q"}`, false},
	{"deep skipped", `{"x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, false},
}

// TestDecode: Decode gives json.Unmarshal's result and error on every case,
// and reads the service's records without encoding/json.
func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkDecode(t, []byte(tc.in))
			var j Job
			p := parser{b: []byte(tc.in)}
			assert.Equal(t, tc.fast, p.job(&j), "read by the fast path")
		})
	}
}

// TestDecodeIntoUsedJob: a Job that is not the zero value is decoded by
// encoding/json, which keeps the fields the record lacks.
func TestDecodeIntoUsedJob(t *testing.T) {
	t.Parallel()
	j := Job{ID: "j1", StatusText: "kept"}
	require.NoError(t, Decode([]byte(`{"_id":"j1","status":"PENDING"}`), &j))
	assert.Equal(t, Job{ID: "j1", Status: StatusPending, StatusText: "kept"}, j)
}

// TestDecodeAllocs: the fast path allocates what the record holds, not
// encoding/json's per-field work.
func TestDecodeAllocs(t *testing.T) {
	b := []byte(serviceRecord)
	allocs := testing.AllocsPerRun(100, func() {
		var j Job
		if err := Decode(b, &j); err != nil {
			t.Fatal(err)
		}
	})
	// Job, Usage, Dimensions, CropRect, the float and its text, four
	// strings and the text of each timestamp (encoding/json: 19).
	assert.LessOrEqual(t, allocs, 13.0)
}

func checkDecode(t *testing.T, b []byte) {
	t.Helper()
	var want, got Job
	wantErr := json.Unmarshal(b, &want)
	gotErr := Decode(b, &got)
	if wantErr != nil {
		require.Error(t, gotErr)
		assert.Equal(t, wantErr.Error(), gotErr.Error())
	} else {
		require.NoError(t, gotErr)
	}
	assert.Equal(t, want, got)
}

// FuzzDecode: whatever the bytes, Decode gives json.Unmarshal's result and
// error, and the fast path accepts only what json.Unmarshal decodes alike.
func FuzzDecode(f *testing.F) {
	for _, tc := range decodeCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecode(t, b)
		var fast, want Job
		if p := (parser{b: b}); p.job(&fast) {
			require.NoError(t, json.Unmarshal(b, &want))
			assert.Equal(t, want, fast)
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	rec := []byte(serviceRecord)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var j Job
			_ = Decode(rec, &j)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var j Job
			_ = json.Unmarshal(rec, &j)
		}
	})
}

// TestDecodeReadsEveryField: a record holding every key of Job and of the
// structs in it is read by the fast path alike, and a key of a struct that
// the parser does not read sends the record to encoding/json rather than
// being skipped (what a field added to Job and not to the parser meets).
func TestDecodeReadsEveryField(t *testing.T) {
	t.Parallel()
	ai, taken := true, 0.25
	at := Timestamp{time.Date(2026, 11, 27, 18, 39, 57, 496e6, time.UTC)}
	full := Job{ID: "j1", Status: StatusCompleted, StatusText: "done", Code: 7, CreatedAt: at, UpdatedAt: at,
		CorrectedFile: "https://files.test/j1.jpg", Usage: &Usage{Size: "S", ImageCorrectionCount: 1},
		AIServer: &ai, TimeTaken: &taken, OriginalDimensions: &Dimensions{Width: 48, Height: 40},
		DetectionData: &DetectionData{FacesCount: 1, Faces: []Face{{Confidence: 90}}}, CropRect: &CropRect{Width: 30}}
	b, err := json.Marshal(full)
	require.NoError(t, err)
	var keys map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &keys))
	for _, k := range jobKeys {
		require.Contains(t, keys, k, "the test's record holds every key of Job")
	}
	var fast Job
	p := parser{b: b}
	require.True(t, p.job(&fast), "read by the fast path")
	var want Job
	require.NoError(t, json.Unmarshal(b, &want))
	assert.Equal(t, want, fast)

	var d Dimensions
	p = parser{b: []byte(`{"width":1,"height":2}`)}
	assert.False(t, p.intObject(dimensionKeys, []string{"width"}, []*int{&d.Width}, "", nil),
		"height is a key of Dimensions the parser was not told to read")
	p = parser{b: []byte(`{"width":1,"depth":2}`)}
	assert.True(t, p.intObject(dimensionKeys, []string{"width"}, []*int{&d.Width}, "", nil),
		"depth is no key of Dimensions: skipped, as encoding/json skips it")
}
