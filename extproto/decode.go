package extproto

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
)

// Decode strictly decodes the JSON document raw into *v, replacing its
// previous contents, and then runs v's Validate method if it has one.
// Validate methods cover their whole value (a DTO's Validate calls its
// members'), so only the document's own runs, once.
//
// Strict means: member names match exactly (case-sensitive), unknown and
// duplicate members are rejected at every level, every required member is
// present, a required member is null only if externalizable, every value
// has the schema's JSON type, enum, minLength (non-blank) and minimum, and
// nothing but white space follows the document. An optional member present
// as null is left at its zero value, as encoding/json does.
//
// A failure is a *FieldError naming the offending member's JSON pointer.
// T must be a DTO type (a struct of the supported member types); any other
// T panics.
func Decode[T any](raw []byte, v *T) error {
	return decodeRoot(shapeOf(reflect.TypeFor[T]()), raw, reflect.ValueOf(v).Elem())
}

func decodeRoot(s *shape, raw []byte, v reflect.Value) error {
	return decodeInto(s, raw, false, v)
}

// decodeInto is decodeRoot; owned says raw is handed over (decoder.owned).
func decodeInto(s *shape, raw []byte, owned bool, v reflect.Value) error {
	v.SetZero()
	d := decoder{data: raw, owned: owned}
	d.skipWS()
	if err := d.value(s, v); err != nil {
		return err
	}
	d.skipWS()
	if d.pos != len(d.data) {
		return &FieldError{Msg: "trailing data after the JSON value"}
	}
	if s.validates {
		if err := v.Addr().Interface().(interface{ Validate() error }).Validate(); err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				return fe
			}
			return &FieldError{Msg: err.Error()}
		}
	}
	return nil
}

// value decodes the value at the cursor into v, which has shape s. A null
// is a type error here; members handle null themselves (see member).
func (d *decoder) value(s *shape, v reflect.Value) *FieldError {
	switch s.kind {
	case kindString:
		if d.peek() != '"' {
			return d.typeError("string")
		}
		b, err := d.str()
		if err != nil {
			return err
		}
		if s.enum == nil {
			v.SetString(d.keep(b))
			return nil
		}
		// Setting the set's own string costs no allocation.
		for _, e := range s.enum {
			if e == string(b) {
				v.SetString(e)
				return nil
			}
		}
		return enumError("", string(b), s.enum)
	case kindBool:
		switch {
		case d.literal("true"):
			v.SetBool(true)
		case d.literal("false"):
			v.SetBool(false)
		default:
			return d.typeError("boolean")
		}
		return nil
	case kindInt:
		return d.integer(v)
	case kindFloat:
		return d.float(v)
	case kindStruct:
		return d.object(s, v)
	case kindPointer:
		if v.IsNil() {
			v.Set(reflect.New(s.elem.typ))
		}
		return d.value(s.elem, v.Elem())
	case kindSlice:
		return d.array(s, v)
	case kindMap:
		return d.mapping(s, v)
	case kindRaw:
		start := d.pos
		if err := d.skipValue(); err != nil {
			return err
		}
		v.SetBytes(append([]byte(nil), d.data[start:d.pos]...))
		return nil
	}
	panic("protocol: unknown shape kind")
}

func (d *decoder) typeError(want string) *FieldError {
	got := d.kindAt()
	if got == "invalid JSON" {
		return d.syntaxError("looking for a value")
	}
	return &FieldError{Msg: "want " + want + ", got " + got}
}

func (d *decoder) integer(v reflect.Value) *FieldError {
	if c := d.peek(); c != '-' && (c < '0' || c > '9') {
		return d.typeError("integer")
	}
	b, isInt, err := d.number()
	if err != nil {
		return err
	}
	if !isInt {
		return &FieldError{Msg: "want integer, got number " + clip(string(b))}
	}
	n, ok := parseInt(b)
	if !ok || v.OverflowInt(n) {
		return &FieldError{Msg: "integer " + clip(string(b)) + " out of range"}
	}
	v.SetInt(n)
	return nil
}

// parseInt parses an integer literal the scanner accepted, without the
// string conversion strconv would need.
func parseInt(b []byte) (int64, bool) {
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var n uint64
	for _, c := range b {
		if n > (1<<63)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	switch {
	case neg && n <= 1<<63:
		return -int64(n), true
	case !neg && n < 1<<63:
		return int64(n), true
	}
	return 0, false
}

func (d *decoder) float(v reflect.Value) *FieldError {
	if c := d.peek(); c != '-' && (c < '0' || c > '9') {
		return d.typeError("number")
	}
	b, _, err := d.number()
	if err != nil {
		return err
	}
	f, perr := strconv.ParseFloat(string(b), 64)
	if perr != nil {
		return &FieldError{Msg: "number " + clip(string(b)) + " out of range"}
	}
	v.SetFloat(f)
	return nil
}

func (d *decoder) object(s *shape, v reflect.Value) *FieldError {
	if d.peek() != '{' {
		return d.typeError("object")
	}
	if err := d.enter(); err != nil {
		return err
	}
	d.pos++
	var seen uint64
	d.skipWS()
	if d.peek() == '}' {
		d.pos++
		d.depth--
		return s.missing(seen)
	}
	for {
		d.skipWS()
		if d.peek() != '"' {
			return d.syntaxError("looking for an object key")
		}
		key, err := d.str()
		if err != nil {
			return err
		}
		i := s.lookup(key)
		if i < 0 {
			return &FieldError{Pointer: "/" + escapePointer(string(key)), Msg: "unknown field"}
		}
		f := &s.fields[i]
		if seen&(1<<i) != 0 {
			return &FieldError{Pointer: "/" + escapePointer(f.name), Msg: "duplicate field"}
		}
		seen |= 1 << i
		d.skipWS()
		if d.peek() != ':' {
			return d.syntaxError("after object key")
		}
		d.pos++
		d.skipWS()
		if err := d.member(f, v.Field(f.index)); err != nil {
			err.Pointer = "/" + escapePointer(f.name) + err.Pointer
			return err
		}
		d.skipWS()
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			d.depth--
			return s.missing(seen)
		default:
			return d.syntaxError("after object member")
		}
	}
}

// missing reports the first required member (in declaration order) that
// the object lacked.
func (s *shape) missing(seen uint64) *FieldError {
	if lack := s.required &^ seen; lack != 0 {
		for i := range s.fields {
			if lack&(1<<i) != 0 {
				return &FieldError{Pointer: "/" + escapePointer(s.fields[i].name), Msg: "required field missing"}
			}
		}
	}
	return nil
}

// member decodes one object member and applies its own constraints.
func (d *decoder) member(f *field, v reflect.Value) *FieldError {
	if d.peek() == 'n' && d.literal("null") {
		switch {
		case f.required && !f.nullable():
			return &FieldError{Msg: "must not be null"}
		case f.shape.kind == kindRaw:
			v.SetBytes([]byte("null"))
		}
		return nil
	}
	if err := d.value(f.shape, v); err != nil {
		return err
	}
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if f.nonempty && strings.TrimSpace(v.String()) == "" {
		return &FieldError{Msg: "must not be blank"}
	}
	if f.hasMin {
		if (v.CanInt() && v.Int() < f.min) || (v.CanFloat() && v.Float() < float64(f.min)) {
			return &FieldError{Msg: "must be >= " + strconv.FormatInt(f.min, 10)}
		}
	}
	return nil
}

func (d *decoder) array(s *shape, v reflect.Value) *FieldError {
	if d.peek() != '[' {
		return d.typeError("array")
	}
	if err := d.enter(); err != nil {
		return err
	}
	d.pos++
	d.skipWS()
	if d.peek() == ']' {
		d.pos++
		d.depth--
		// Present but empty stays distinguishable from absent (nil).
		v.Set(reflect.MakeSlice(s.typ, 0, 0))
		return nil
	}
	for n := 0; ; n++ {
		d.skipWS()
		if v.Len() == v.Cap() {
			v.Grow(1)
		}
		v.SetLen(n + 1)
		if err := d.value(s.elem, v.Index(n)); err != nil {
			err.Pointer = "/" + strconv.Itoa(n) + err.Pointer
			return err
		}
		d.skipWS()
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			d.depth--
			return nil
		default:
			return d.syntaxError("after array element")
		}
	}
}

func (d *decoder) mapping(s *shape, v reflect.Value) *FieldError {
	if d.peek() != '{' {
		return d.typeError("object")
	}
	if err := d.enter(); err != nil {
		return err
	}
	d.pos++
	v.Set(reflect.MakeMap(s.typ))
	d.skipWS()
	if d.peek() == '}' {
		d.pos++
		d.depth--
		return nil
	}
	for {
		d.skipWS()
		if d.peek() != '"' {
			return d.syntaxError("looking for an object key")
		}
		kb, err := d.str()
		if err != nil {
			return err
		}
		key := reflect.ValueOf(string(kb)).Convert(s.typ.Key())
		ptr := "/" + escapePointer(key.String())
		if v.MapIndex(key).IsValid() {
			return &FieldError{Pointer: ptr, Msg: "duplicate key"}
		}
		d.skipWS()
		if d.peek() != ':' {
			return d.syntaxError("after object key")
		}
		d.pos++
		d.skipWS()
		elem := reflect.New(s.elem.typ).Elem()
		if err := d.value(s.elem, elem); err != nil {
			err.Pointer = ptr + err.Pointer
			return err
		}
		v.SetMapIndex(key, elem)
		d.skipWS()
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			d.depth--
			return nil
		default:
			return d.syntaxError("after object member")
		}
	}
}
