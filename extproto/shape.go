package extproto

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A shape is the compiled description of a DTO type, built once per type
// from its Go definition: the JSON names and omitempty of the `json` tag,
// and the schema constraints of the `rx` tag:
//
//	nonempty        string must be non-blank (schema minLength 1)
//	min=N           number must be >= N (schema minimum)
//	externalizable  the member may move to the content store (schema
//	                x-externalizable); a required one may then be null
//
// A member without omitempty is required. Enum types (enumer) contribute
// their value set. Both the strict decoder and the schema generator read
// shapes, so the Go types are the single source of the contract.

type shapeKind uint8

const (
	kindString shapeKind = iota + 1
	kindBool
	kindInt
	kindFloat
	kindStruct
	kindPointer
	kindSlice
	kindMap
	// kindRaw is json.RawMessage: any JSON value, kept verbatim.
	kindRaw
)

type shape struct {
	kind shapeKind
	typ  reflect.Type
	// enum is the sorted value set of an enum string type.
	enum []string
	// elem is the element of a pointer, slice or map.
	elem *shape
	// fields of a struct, in declaration order; required is their mask.
	fields   []field
	required uint64
	// validates is set when *typ has a Validate() error method.
	validates bool
}

type field struct {
	name           string
	index          int
	shape          *shape
	required       bool
	nonempty       bool
	externalizable bool
	hasMin         bool
	min            int64
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	enumerType     = reflect.TypeFor[enumer]()
	validatorType  = reflect.TypeFor[interface{ Validate() error }]()

	shapeCache sync.Map // reflect.Type -> *shape
	shapeMu    sync.Mutex
)

// shapeOf returns the cached shape of t, building it on first use. A type
// the decoder cannot describe is a programming error and panics.
func shapeOf(t reflect.Type) *shape {
	if s, ok := shapeCache.Load(t); ok {
		return s.(*shape)
	}
	shapeMu.Lock()
	defer shapeMu.Unlock()
	building := map[reflect.Type]*shape{}
	s := buildShape(t, building)
	for bt, bs := range building {
		shapeCache.LoadOrStore(bt, bs)
	}
	return s
}

func buildShape(t reflect.Type, building map[reflect.Type]*shape) *shape {
	if s, ok := shapeCache.Load(t); ok {
		return s.(*shape)
	}
	if s, ok := building[t]; ok {
		return s
	}
	s := &shape{typ: t}
	building[t] = s
	switch {
	case t == rawMessageType:
		s.kind = kindRaw
	case t.Kind() == reflect.String:
		s.kind = kindString
		if t.Implements(enumerType) {
			s.enum = reflect.Zero(t).Interface().(enumer).enumValues()
			slices.Sort(s.enum)
		}
	case t.Kind() == reflect.Bool:
		s.kind = kindBool
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64 || t.Kind() == reflect.Int32:
		s.kind = kindInt
	case t.Kind() == reflect.Float64:
		s.kind = kindFloat
	case t.Kind() == reflect.Pointer:
		s.kind = kindPointer
		s.elem = buildShape(t.Elem(), building)
	case t.Kind() == reflect.Slice:
		s.kind = kindSlice
		s.elem = buildShape(t.Elem(), building)
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		s.kind = kindMap
		s.elem = buildShape(t.Elem(), building)
	case t.Kind() == reflect.Struct:
		s.kind = kindStruct
		s.validates = reflect.PointerTo(t).Implements(validatorType)
		buildFields(s, building)
	default:
		panic(fmt.Sprintf("protocol: no shape for type %v", t))
	}
	return s
}

func buildFields(s *shape, building map[reflect.Type]*shape) {
	t := s.typ
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag, ok := sf.Tag.Lookup("json")
		if !ok || tag == "-" || sf.Anonymous {
			panic(fmt.Sprintf("protocol: %v.%s needs a plain json tag", t, sf.Name))
		}
		name, opts, _ := strings.Cut(tag, ",")
		f := field{name: name, index: i, required: true, shape: buildShape(sf.Type, building)}
		switch opts {
		case "":
		case "omitempty":
			f.required = false
		default:
			panic(fmt.Sprintf("protocol: %v.%s: unsupported json tag options %q", t, sf.Name, opts))
		}
		if rx := sf.Tag.Get("rx"); rx != "" {
			for _, opt := range strings.Split(rx, ",") {
				switch {
				case opt == "nonempty":
					f.nonempty = true
				case opt == "externalizable":
					f.externalizable = true
				case strings.HasPrefix(opt, "min="):
					n, err := strconv.ParseInt(opt[len("min="):], 10, 64)
					if err != nil {
						panic(fmt.Sprintf("protocol: %v.%s: bad rx option %q", t, sf.Name, opt))
					}
					f.hasMin, f.min = true, n
				default:
					panic(fmt.Sprintf("protocol: %v.%s: unknown rx option %q", t, sf.Name, opt))
				}
			}
		}
		if len(s.fields) == 64 {
			panic(fmt.Sprintf("protocol: %v has more than 64 members", t))
		}
		if f.required {
			s.required |= 1 << len(s.fields)
		}
		s.fields = append(s.fields, f)
	}
}

// lookup returns the index in s.fields of the member named exactly key
// (case-sensitive, unlike encoding/json), or -1.
func (s *shape) lookup(key []byte) int {
	for i := range s.fields {
		if s.fields[i].name == string(key) {
			return i
		}
	}
	return -1
}

// nullable reports whether the member may be present as null although
// required: only externalizable members may.
func (f *field) nullable() bool { return f.externalizable }
