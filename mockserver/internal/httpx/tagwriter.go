package httpx

import (
	"bytes"
	"io"
	"strconv"
)

// ReplicaLogWriter returns a writer that adds "replica": index as the
// first field of each JSON object line written to w (one line per Write,
// as slog's JSON handler and the container mock's log write them); other
// writes pass through unchanged. A fleet of mock replicas shares one log
// stream with it.
func ReplicaLogWriter(w io.Writer, index int) io.Writer {
	return &replicaWriter{w: w, tag: []byte(`{"replica":` + strconv.Itoa(index))}
}

type replicaWriter struct {
	w   io.Writer
	tag []byte
}

func (r *replicaWriter) Write(p []byte) (int, error) {
	if len(p) < 2 || p[0] != '{' {
		return r.w.Write(p)
	}
	line := make([]byte, 0, len(p)+len(r.tag)+1)
	line = append(line, r.tag...)
	if rest := bytes.TrimLeft(p[1:], " "); len(rest) > 0 && rest[0] != '}' {
		line = append(line, ',')
	}
	line = append(line, p[1:]...)
	if _, err := r.w.Write(line); err != nil {
		return 0, err
	}
	return len(p), nil
}
