package hostedjob

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Decode decodes the JSON job record b into j, with the result and the
// error of json.Unmarshal(b, j).
//
// A job record is decoded on every status poll, and encoding/json's
// reflection costs more than the rest of a poll's client work, so the
// records a service sends (one object of the documented keys, plain
// strings, integer counts) are read by a small parser of their own. Input
// it is not sure of (an escape, a null, a key that differs from a field's
// only by case, a repeated key, anything invalid) and a j that is not the
// zero Job go to json.Unmarshal whole: the parser decides nothing that
// encoding/json would decide differently (FuzzDecode checks it).
func Decode(b []byte, j *Job) error {
	if *j == (Job{}) {
		if p := (parser{b: b}); p.job(j) {
			return nil
		}
		*j = Job{} // undo what the parser set: encoding/json starts afresh
	}
	return json.Unmarshal(b, j)
}

// parser reads one JSON value from b[i:]. Its methods report false for
// anything the fast path leaves to encoding/json.
type parser struct {
	b []byte
	i int
}

// maxSkipDepth bounds the nesting of a value skipped unread: deeper input
// goes to encoding/json.
const maxSkipDepth = 32

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// next skips whitespace and consumes c.
func (p *parser) next(c byte) bool {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// peek skips whitespace and returns the next byte (0 at the end).
func (p *parser) peek() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// object reads an object, calling field for each key with the parser at
// its value. Keys must be printable ASCII without escapes (encoding/json
// folds the case of some other characters into ASCII ones), and no key
// may come twice (encoding/json merges repeated objects; left to it).
func (p *parser) object(field func(key []byte) bool) bool {
	if !p.next('{') {
		return false
	}
	if p.next('}') {
		return true
	}
	var seen [16][]byte
	n := 0
	for {
		key, ok := p.key()
		if !ok || !p.next(':') || n == len(seen) {
			return false
		}
		for _, k := range seen[:n] {
			if string(k) == string(key) {
				return false
			}
		}
		seen[n] = key
		n++
		if !field(key) {
			return false
		}
		if p.next(',') {
			continue
		}
		return p.next('}')
	}
}

// key reads a string of printable ASCII without escapes.
func (p *parser) key() ([]byte, bool) {
	if !p.next('"') {
		return nil, false
	}
	for start := p.i; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return p.b[start : p.i-1], true
		case c == '\\' || c < 0x20 || c > 0x7e:
			return nil, false
		}
	}
	return nil, false
}

// unknown reports whether key, which matches none of names exactly, may be
// skipped: it may not match one but for case, as encoding/json would.
func (p *parser) unknown(key []byte, names []string) bool {
	for _, n := range names {
		if asciiEqualFold(n, key) {
			return false
		}
	}
	return p.skip(0)
}

func asciiEqualFold(s string, b []byte) bool {
	if len(s) != len(b) {
		return false
	}
	for i := range len(s) {
		x, y := s[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// plain reads a string without escapes or control characters, of
// printable ASCII or valid UTF-8, which encoding/json returns unchanged,
// and returns its contents.
func (p *parser) plain() ([]byte, bool) {
	if !p.next('"') {
		return nil, false
	}
	start, ascii := p.i, true
	for ; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			return s, ascii || utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, false
}

func (p *parser) str(dst *string) bool {
	s, ok := p.plain()
	if ok {
		*dst = string(s)
	}
	return ok
}

// number reads a JSON number and returns its text.
func (p *parser) number() ([]byte, bool) {
	p.ws()
	b, start := p.b, p.i
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		if i+1 >= len(b) || !isDigit(b[i+1]) {
			return nil, false
		}
		i = digits(b, i+1)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return nil, false
		}
		i = digits(b, i)
	}
	p.i = i
	return b[start:i], true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// integer reads a number into an int; a fraction, an exponent or a value
// out of range is encoding/json's error to give.
func (p *parser) integer(dst *int) bool {
	s, ok := p.number()
	if !ok || bytes.ContainsAny(s, ".eE") {
		return false
	}
	v, err := strconv.Atoi(string(s))
	*dst = v
	return err == nil
}

func (p *parser) float(dst **float64) bool {
	s, ok := p.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseFloat(string(s), 64)
	*dst = &v
	return err == nil
}

// literal consumes lit when it comes next.
func (p *parser) literal(lit string) bool {
	p.ws()
	if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
		p.i += len(lit)
		return true
	}
	return false
}

func (p *parser) boolean(dst **bool) bool {
	var v bool
	switch {
	case p.literal("true"):
		v = true
	case p.literal("false"):
	default:
		return false
	}
	*dst = &v
	return true
}

// timestamp reads a string through Timestamp.UnmarshalJSON, as
// encoding/json would call it.
func (p *parser) timestamp(dst *Timestamp) bool {
	p.ws()
	start := p.i
	_, ok := p.plain()
	return ok && dst.UnmarshalJSON(p.b[start:p.i]) == nil
}

// intObject reads an object of a struct whose keys are known into the
// ints dst[i] of names[i], and the string str of the key strName (when not
// empty), as encoding/json fills the struct.
func (p *parser) intObject(known, names []string, dst []*int, strName string, str *string) bool {
	if p.peek() != '{' {
		return false // null, or not an object: encoding/json's to decide
	}
	return p.object(func(key []byte) bool {
		if strName != "" && string(key) == strName {
			return p.str(str)
		}
		for i, n := range names {
			if string(key) == n {
				return p.integer(dst[i])
			}
		}
		return p.unknown(key, known)
	})
}

// The keys of each struct, from its fields' tags. A key the parser does
// not read is skipped only when it is none of them in any case: a field
// added to a struct and not to the parser sends its records to
// encoding/json instead of being dropped.
var (
	jobKeys       = jsonKeys(reflect.TypeFor[Job]())
	usageKeys     = jsonKeys(reflect.TypeFor[Usage]())
	dimensionKeys = jsonKeys(reflect.TypeFor[Dimensions]())
	cropKeys      = jsonKeys(reflect.TypeFor[CropRect]())
)

// jsonKeys returns the JSON keys of the fields of the struct type t.
func jsonKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case name == "":
			keys = append(keys, f.Name)
		default:
			keys = append(keys, name)
		}
	}
	return keys
}

// job reads a whole record: one object and nothing after it but
// whitespace.
func (p *parser) job(j *Job) bool {
	ok := p.object(func(key []byte) bool {
		switch string(key) {
		case "_id":
			return p.str(&j.ID)
		case "status":
			return p.str((*string)(&j.Status))
		case "statusText":
			return p.str(&j.StatusText)
		case "code":
			return p.integer(&j.Code)
		case "createdAt":
			return p.timestamp(&j.CreatedAt)
		case "updatedAt":
			return p.timestamp(&j.UpdatedAt)
		case "correctedFile":
			return p.str(&j.CorrectedFile)
		case "usage":
			u := new(Usage)
			j.Usage = u
			return p.intObject(usageKeys, []string{"imageCorrectionCount", "imageResizeCount", "classicResizeCount",
				"glaresDetectorCount", "videoCorrectionCount", "removeBackgroundCount", "removeGlaresCount",
				"autoCropCount", "removeGlaresTotalCount"}, []*int{&u.ImageCorrectionCount, &u.ImageResizeCount,
				&u.ClassicResizeCount, &u.GlaresDetectorCount, &u.VideoCorrectionCount, &u.RemoveBackgroundCount,
				&u.RemoveGlaresCount, &u.AutoCropCount, &u.RemoveGlaresTotalCount}, "size", &u.Size)
		case "aiserver":
			return p.boolean(&j.AIServer)
		case "timeTaken":
			return p.float(&j.TimeTaken)
		case "originalDimensions":
			d := new(Dimensions)
			j.OriginalDimensions = d
			return p.intObject(dimensionKeys, []string{"width", "height"}, []*int{&d.Width, &d.Height}, "", nil)
		case "cropRect":
			r := new(CropRect)
			j.CropRect = r
			return p.intObject(cropKeys, []string{"left", "top", "width", "height"},
				[]*int{&r.Left, &r.Top, &r.Width, &r.Height}, "", nil)
		case "detectionData":
			// Rare and nested: its bytes are handed to encoding/json.
			if p.peek() != '{' {
				return false
			}
			start := p.i
			return p.skip(0) && json.Unmarshal(p.b[start:p.i], &j.DetectionData) == nil
		}
		return p.unknown(key, jobKeys)
	})
	p.ws()
	return ok && p.i == len(p.b)
}

// skip reads and checks any JSON value, keeping nothing.
func (p *parser) skip(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	switch c := p.peek(); {
	case c == '{':
		p.i++
		if p.next('}') {
			return true
		}
		for {
			if !p.skipString() || !p.next(':') || !p.skip(depth+1) {
				return false
			}
			if p.next(',') {
				continue
			}
			return p.next('}')
		}
	case c == '[':
		p.i++
		if p.next(']') {
			return true
		}
		for {
			if !p.skip(depth + 1) {
				return false
			}
			if p.next(',') {
				continue
			}
			return p.next(']')
		}
	case c == '"':
		return p.skipString()
	case c == '-' || isDigit(c):
		_, ok := p.number()
		return ok
	}
	return p.literal("true") || p.literal("false") || p.literal("null")
}

// skipString reads a string, escapes included, checking it as
// encoding/json does (an invalid UTF-8 byte is not an error there).
func (p *parser) skipString() bool {
	if !p.next('"') {
		return false
	}
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			p.i++
			if p.i >= len(p.b) {
				return false
			}
			switch p.b[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if p.i+4 >= len(p.b) {
					return false
				}
				for _, h := range p.b[p.i+1 : p.i+5] {
					if !isHex(h) {
						return false
					}
				}
				p.i += 4
			default:
				return false
			}
		}
		p.i++
	}
	return false
}

func isHex(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}
