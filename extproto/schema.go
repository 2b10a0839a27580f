package extproto

import (
	"bytes"
	"crypto/sha256"
	_ "embed" // schema.json is embedded below
	"encoding/hex"
	"encoding/json"
	"slices"
	"sync"
)

//go:generate go run ./internal/gen -o schema.json

// Our own schema artifact. GenerateSchema derives the JSON Schema document
// of the contract from the Go registry (the methods, their DTO shapes, the
// error table, the limits and the hook points); schema.json is its
// committed output, and tests fail when the two drift apart or when the
// document stops being semantically equal to the canonical reference.

// CanonicalSchemaSHA256 is the published identity of the v1 contract: the
// SHA-256 of the canonical schema document in compact form. Nobody sends
// it on the wire; it tells whether two parties hold the same contract.
const CanonicalSchemaSHA256 = "22338e662c66a0cb0f6055263afc18e122640e71f552b601251a1c7899593be3"

//go:embed schema.json
var schemaJSON []byte

// SchemaJSON returns the committed schema document (indented JSON).
func SchemaJSON() []byte { return bytes.Clone(schemaJSON) }

// SchemaSHA256 returns the hex SHA-256 of the committed schema document in
// compact form (keys in lexical order, no insignificant white space), the
// form whose hash is CanonicalSchemaSHA256.
func SchemaSHA256() string { return schemaSHA256() }

var schemaSHA256 = sync.OnceValue(func() string {
	var compact bytes.Buffer
	if err := json.Compact(&compact, schemaJSON); err != nil {
		panic("protocol: embedded schema.json is not JSON: " + err.Error())
	}
	sum := sha256.Sum256(compact.Bytes())
	return hex.EncodeToString(sum[:])
})

// The document's fixed identity members.
const (
	schemaDialect = "https://json-schema.org/draft/2020-12/schema"
	schemaTitle   = "Reasonix Extension Protocol v1"
)

// GenerateSchema returns the schema document derived from the registry,
// indented, keys in lexical order, with a final newline: the exact bytes
// of schema.json.
func GenerateSchema() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(schemaDocument()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func schemaDocument() map[string]any {
	defs := map[string]any{}
	methodsDoc := map[string]any{}
	for _, m := range Methods() {
		var result any
		if !m.Notification {
			result = defRef(m.result, defs)
		}
		methodsDoc[m.Name] = map[string]any{
			"class":        m.Class,
			"direction":    m.Direction,
			"notification": m.Notification,
			"params":       defRef(m.params, defs),
			"result":       result,
		}
	}
	errorsDoc := []any{}
	for _, r := range Reasons() {
		errorsDoc = append(errorsDoc, map[string]any{
			"jsonRpcCode": r.Code,
			"message":     r.Message,
			"reason":      r.Reason,
			"retryable":   r.Retryable,
		})
	}
	return map[string]any{
		"$defs":           defs,
		"$id":             ProtocolID,
		"$schema":         schemaDialect,
		"errors":          errorsDoc,
		"interceptEvents": sortedStrings(enumStrings(HookPoints)),
		"limits": map[string]any{
			"contentRefChunkBytes":  ContentRefChunkBytes,
			"contentRefObjectBytes": ContentRefObjectBytes,
			"externalizeFieldBytes": ExternalizeFieldBytes,
			"frameBytes":            FrameBytes,
		},
		"methods":       methodsDoc,
		"protocol":      ProtocolID,
		"protocolID":    ProtocolID,
		"protocolMajor": ProtocolMajor,
		"title":         schemaTitle,
	}
}

// defRef returns a $ref to the struct s, adding its definition (and those
// of the structs it refers to) to defs. Definitions are named by Go type.
func defRef(s *shape, defs map[string]any) map[string]any {
	name := s.typ.Name()
	if _, ok := defs[name]; !ok {
		defs[name] = nil // placeholder: the type is being defined
		props := map[string]any{}
		required := []string{}
		for i := range s.fields {
			f := &s.fields[i]
			props[f.name] = propertySchema(f, defs)
			if f.required {
				required = append(required, f.name)
			}
		}
		def := map[string]any{
			"additionalProperties": false,
			"properties":           props,
			"type":                 "object",
		}
		if len(required) > 0 {
			def["required"] = sortedStrings(required)
		}
		defs[name] = def
	}
	return map[string]any{"$ref": "#/$defs/" + name}
}

func propertySchema(f *field, defs map[string]any) any {
	t := typeSchema(f.shape, defs)
	if t == true {
		if !f.externalizable {
			return true
		}
		t = map[string]any{}
	}
	m := t.(map[string]any)
	if f.externalizable {
		m["x-externalizable"] = true
	}
	if f.nonempty {
		m["minLength"] = 1
	}
	if f.hasMin {
		m["minimum"] = f.min
	}
	return m
}

// typeSchema is the schema of a value of shape s: a fresh map the caller
// may extend, or true for any JSON value.
func typeSchema(s *shape, defs map[string]any) any {
	switch s.kind {
	case kindString:
		m := map[string]any{"type": "string"}
		if s.enum != nil {
			m["enum"] = sortedStrings(s.enum)
		}
		return m
	case kindBool:
		return map[string]any{"type": "boolean"}
	case kindInt:
		return map[string]any{"type": "integer"}
	case kindFloat:
		return map[string]any{"type": "number"}
	case kindPointer:
		return typeSchema(s.elem, defs)
	case kindSlice:
		return map[string]any{"type": "array", "items": typeSchema(s.elem, defs)}
	case kindMap:
		return map[string]any{"type": "object", "additionalProperties": typeSchema(s.elem, defs)}
	case kindStruct:
		return defRef(s, defs)
	case kindRaw:
		return true
	}
	panic("protocol: unknown shape kind")
}

func sortedStrings(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
