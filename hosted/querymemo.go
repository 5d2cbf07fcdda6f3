package hosted

import (
	"net/url"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/pfcparams"
)

// queryMemo is what a Client remembers of the last options it started a
// job with: their query without the file key, as the declaration table
// encoded it, cut where fileKey goes. A bulk run starts every job with the
// same options and a new file key, so StartJob encodes CorrectionOptions
// once, not once per file, and per job only escapes the key.
type queryMemo struct {
	key optionsKey
	// before and after are the encoded parameters whose keys sort before
	// and after "fileKey" (url.Values.Encode sorts by key), each without
	// a leading or trailing '&'.
	before, after string
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

// newQueryMemo encodes o without its file key for the memo of key k.
func newQueryMemo(k optionsKey, o *CorrectionOptions) *queryMemo {
	noKey := *o
	noKey.FileKey = ""
	v := noKey.encode()
	before, after := url.Values{}, url.Values{}
	for name, vals := range v {
		if name < "fileKey" {
			before[name] = vals
		} else {
			after[name] = vals
		}
	}
	return &queryMemo{key: k, before: encodeQuery(before), after: encodeQuery(after)}
}

// startQuery is o.Query() for StartJob: o is validated the same way and the
// result is byte for byte the same. Every field is encoded on its own
// (unset ones left out), so the parameters of o are those of o without its
// file key, plus fileKey when it is set; only the former are remembered
// (see queryMemo), and fileKey is escaped as encodeQuery escapes it.
//
// The memo holds only options that passed Validate, and validity does not
// depend on the file key but for its presence: options equal to the memo's
// with a file key are valid without being checked again.
func (c *Client) startQuery(o *CorrectionOptions) (string, error) {
	k := keyOf(o)
	m := c.queryMemo.Load()
	if hit := m != nil && m.key == k; !hit || fileKeyParam.StringProblem(o.FileKey, true) != "" {
		if err := o.Validate(); err != nil {
			return "", err
		}
		if !hit {
			m = newQueryMemo(k, o)
			c.queryMemo.Store(m)
		}
	}
	if o.FileKey == "" {
		switch {
		case m.before == "":
			return m.after, nil
		case m.after == "":
			return m.before, nil
		}
		return m.before + "&" + m.after, nil
	}
	fileKey := strings.ReplaceAll(url.QueryEscape(o.FileKey), "+", "%20")
	var b strings.Builder
	b.Grow(len(m.before) + len("&fileKey=") + len(fileKey) + 1 + len(m.after))
	if m.before != "" {
		b.WriteString(m.before)
		b.WriteByte('&')
	}
	b.WriteString("fileKey=")
	b.WriteString(fileKey)
	if m.after != "" {
		b.WriteByte('&')
		b.WriteString(m.after)
	}
	return b.String(), nil
}

// fileKeyParam is the declaration of fileKey, the one parameter startQuery
// checks on a memo hit.
var fileKeyParam, _ = pfcparams.Lookup("fileKey")

// validateForUpload is o.ValidateForUpload(), skipped for options equal
// (file key aside) to those of the memo, which passed Validate.
func (c *Client) validateForUpload(o *CorrectionOptions) error {
	if o != nil {
		if m := c.queryMemo.Load(); m != nil && m.key == keyOf(o) {
			return nil
		}
	}
	return o.ValidateForUpload()
}
