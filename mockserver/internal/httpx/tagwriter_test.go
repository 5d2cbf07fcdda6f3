package httpx

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestReplicaLogWriter(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := ReplicaLogWriter(&buf, 2)
	for _, line := range []string{`{"msg":"a","n":1}` + "\n", "{}\n", "plain text\n"} {
		if n, err := w.Write([]byte(line)); err != nil || n != len(line) {
			t.Fatalf("Write(%q) = %d, %v", line, n, err)
		}
	}
	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	for i, l := range lines[:2] {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil || m["replica"] != 2.0 {
			t.Fatalf("line %d %q: %v, replica %v", i, l, err, m["replica"])
		}
	}
	if string(lines[2]) != "plain text" {
		t.Fatalf("plain line = %q", lines[2])
	}
}
