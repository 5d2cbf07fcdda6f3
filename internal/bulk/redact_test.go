package bulk

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/transport"
)

// testKey is the API key the redaction tests' transport knows.
const testKey = "sk-live-0123456789abcdef"

// keyRedactor is the redactor of a client whose API key is testKey.
func keyRedactor(t *testing.T) func(string) string {
	t.Helper()
	tc, err := transport.New(transport.Options{BaseURL: "http://x.test", AuthHeader: "X-API-KEY", AuthValue: testKey})
	require.NoError(t, err)
	return tc.Redact
}

// manifestText returns the manifest at man, checking that it has n
// records, every line parsing, and nothing left for redact.
func manifestText(t *testing.T, man string, n int, redact func(string) string) string {
	t.Helper()
	data, err := os.ReadFile(man)
	require.NoError(t, err)
	text := string(data)
	assert.Equal(t, text, redact(text), "nothing left for the redactor")
	assert.Len(t, readManifest(t, man), n, "every line parses")
	return text
}

// TestManifestPassesTheRedactor: every string of a record, the work's
// error, the summary and the item's names included, passes the client's
// redactor before it reaches the manifest, in every spelling the
// redactor knows (base64 of a raw name too); every line still parses.
func TestManifestPassesTheRedactor(t *testing.T) {
	t.Parallel()
	key, redact := testKey, keyRedactor(t)
	dir := t.TempDir()
	in := writeNamed(t, dir, []string{"a.jpg", "b.jpg", "c-" + key + ".jpg", "\xff" + key + ".jpg"})
	items, err := Dir(in, filepath.Join(dir, "out"), DirOptions{})
	require.NoError(t, err)
	man := filepath.Join(dir, "out", ManifestName)
	w := &copyWork{before: func(_ context.Context, it Item) error {
		if it.ID == "b.jpg" {
			return errors.New("the service said: bad key " + key + ` ("` + key + `")`)
		}
		return nil
	}}
	_, err = Run(context.Background(), slices.Values(items), w.do, Options[string]{
		Manifest: man, Redact: redact,
		Summarize: func(v string) json.RawMessage {
			// A summary echoing the key raw and JSON-escaped.
			b, _ := json.Marshal(map[string]string{"jobId": key, "note": `<` + key + `>`})
			return b
		},
	})
	require.NoError(t, err)
	text := manifestText(t, man, len(items), redact)
	for _, form := range []string{key, hex.EncodeToString([]byte(key)), base64.StdEncoding.EncodeToString([]byte(key)),
		base64.RawStdEncoding.EncodeToString([]byte("\xff" + key))[4:28], strings.ToUpper(key)} {
		assert.NotContains(t, text, form)
	}
	assert.Contains(t, text, transport.Redacted)
}

// TestEncodeRecordKeepsResultJSON: a summary whose redaction breaks its
// JSON (a secret spelled across an escape) is kept as a JSON string of
// the redacted text, so that the line still parses.
func TestEncodeRecordKeepsResultJSON(t *testing.T) {
	t.Parallel()
	redact := func(s string) string { return strings.ReplaceAll(s, `"k`, "REDACTED") }
	line, err := encodeRecord(Record{ID: "a", Status: StatusDone, Result: json.RawMessage(`{"k":1}`)}, redact)
	require.NoError(t, err)
	require.True(t, json.Valid(line), "%s", line)
	var back Record
	require.NoError(t, json.Unmarshal(line, &back))
	assert.JSONEq(t, `"{REDACTED\":1}"`, string(back.Result))
}

// TestEncodeRecordRedactsASecretAcrossFields: a secret that only the
// encoded line spells (across a field boundary) is still kept out: the
// line loses its raw names and result and is redacted whole.
func TestEncodeRecordRedactsASecretAcrossFields(t *testing.T) {
	t.Parallel()
	const secret = `a.jpg","status`
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "REDACTED") }
	line, err := encodeRecord(Record{ID: "a.jpg", Status: StatusDone, Dst: "out/\xff.jpg", Result: json.RawMessage(`{"jobId":"j1"}`)}, redact)
	require.NoError(t, err)
	assert.NotContains(t, string(line), secret)
	assert.NotContains(t, string(line), "j1", "the result is dropped")
	assert.NotContains(t, string(line), "dstRaw", "the raw names are dropped")
}

// TestStartedRecordPassesTheRedactor: a job reference that echoes the key
// (raw or JSON-escaped) reaches the manifest's "started" and "failed"
// records redacted, every line still parsing.
func TestStartedRecordPassesTheRedactor(t *testing.T) {
	t.Parallel()
	key, redact := testKey, keyRedactor(t)
	_, items, man := manifestInputs(t, 2)
	runOK(t, items, Options[string]{
		Manifest: man, Redact: redact,
		Start: func(ctx context.Context, it Item, started Started) (string, error) {
			ref, _ := json.Marshal(map[string]string{"jobId": key, "note": `<` + key + `>`})
			if err := started(ref); err != nil {
				return "", err
			}
			if it.ID == items[1].ID {
				return "", errors.New("failed")
			}
			return (&copyWork{}).do(ctx, it)
		},
	})
	text := manifestText(t, man, 4, redact)
	assert.NotContains(t, text, key)
	assert.Contains(t, text, `"status":"started"`)
}
