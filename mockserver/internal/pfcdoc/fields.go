package pfcdoc

import (
	"fmt"
	"reflect"
	"strings"
)

// Field is a field of a mock's request type that holds one parameter: its
// struct tag `param:"wireName"` names the parameter, and ",mock" after the
// name marks one the mock keeps for itself (it does not reach the engine).
type Field struct {
	// Name is the parameter's wire name.
	Name string
	// Value is the settable field.
	Value reflect.Value
	// MockOnly is true for a field tagged ",mock".
	MockOnly bool
	// GoName is the field's Go name.
	GoName string
}

// Fields returns the parameter fields of the struct ptr points to, in
// declaration order. A mock's parser sets them from the query by their
// table entry's kind, so that a plain parameter is declared by its table
// entry and its tagged field alone.
func Fields(ptr any) []Field {
	v := reflect.ValueOf(ptr).Elem()
	var fs []Field
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		tag, ok := sf.Tag.Lookup("param")
		if !ok {
			continue
		}
		name, opt, _ := strings.Cut(tag, ",")
		fs = append(fs, Field{Name: name, Value: v.Field(i), MockOnly: opt == "mock", GoName: sf.Name})
	}
	return fs
}

// CopyParams copies every parameter field of the struct src points to,
// except the ",mock" ones, to the field of the same Go name of the struct
// dst points to (an engine request). A field dst lacks, or has with
// another type, is an error: a parameter would silently not reach the
// engine.
func CopyParams(dst, src any) error {
	d := reflect.ValueOf(dst).Elem()
	for _, f := range Fields(src) {
		if f.MockOnly {
			continue
		}
		df := d.FieldByName(f.GoName)
		if !df.IsValid() || df.Type() != f.Value.Type() {
			return fmt.Errorf("pfcdoc: %s has no field %s %s for the parameter %s (tag it \",mock\" if the engine does not take it)",
				d.Type(), f.GoName, f.Value.Type(), f.Name)
		}
		df.Set(f.Value)
	}
	return nil
}
