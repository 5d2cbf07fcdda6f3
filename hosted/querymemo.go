package hosted

import (
	"maps"
	"net/url"
)

// queryMemo is what a Client remembers of the last options it started a
// job with: their query parameters without the file key, as the
// declaration table encoded them. A bulk run starts every job with the same
// options and a new file key, so StartJob encodes CorrectionOptions once,
// not once per file.
type queryMemo struct {
	key    optionsKey
	values url.Values // read-only once stored
}

// optionsKey is CorrectionOptions without FileKey, with the two *bool
// fields replaced by their values (nil, false, true), so that options equal
// in value compare equal whatever pointers they hold.
type optionsKey struct {
	o                       CorrectionOptions
	cache, preserveMetadata int8
}

func triState(b *bool) int8 {
	switch {
	case b == nil:
		return 0
	case *b:
		return 1
	}
	return -1
}

func keyOf(o *CorrectionOptions) optionsKey {
	k := optionsKey{o: *o, cache: triState(o.Cache), preserveMetadata: triState(o.PreserveMetadata)}
	k.o.FileKey, k.o.Cache, k.o.PreserveMetadata = "", nil, nil
	return k
}

// startQuery is o.Query() for StartJob: o is validated the same way and the
// result is byte for byte the same. Every field is encoded on its own
// (unset ones left out), so the parameters of o are those of o without its
// file key, plus fileKey when it is set; only the former are remembered
// (see queryMemo).
func (c *Client) startQuery(o *CorrectionOptions) (string, error) {
	if err := o.Validate(); err != nil {
		return "", err
	}
	k := keyOf(o)
	m := c.queryMemo.Load()
	if m == nil || m.key != k {
		noKey := *o
		noKey.FileKey = ""
		m = &queryMemo{key: k, values: noKey.encode()}
		c.queryMemo.Store(m)
	}
	v := make(url.Values, len(m.values)+1)
	maps.Copy(v, m.values)
	if o.FileKey != "" {
		v.Set("fileKey", o.FileKey)
	}
	return encodeQuery(v), nil
}
