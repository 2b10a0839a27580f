package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func root(t *testing.T) string {
	t.Helper()
	r, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func model(t *testing.T) *Model {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root(t), descPath))
	if err != nil {
		t.Fatal(err)
	}
	m, err := load(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGeneratedFilesAreCurrent regenerates into memory and compares: an
// edit of the description (or of a generated file) without `go generate
// ./internal/bridge/rxproto` fails here.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	t.Parallel()
	files, err := generate(root(t))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range files {
		got, err := os.ReadFile(filepath.Join(root(t), path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what %s generates: run `go generate ./internal/bridge/rxproto`", path, descPath)
		}
		if !bytes.Contains(got, []byte("DO NOT EDIT")) {
			t.Errorf("%s has no DO NOT EDIT header", path)
		}
	}
}

// TestExternalTypesMatchExtproto: the structures the description takes
// from the extension protocol (rx/lm/chat's messages, tools, chunks) list
// exactly the JSON members of the extproto types, optional exactly where
// extproto omits them when empty.
func TestExternalTypesMatchExtproto(t *testing.T) {
	t.Parallel()
	types := map[string]reflect.Type{
		"ProviderMessage":    reflect.TypeFor[extproto.ProviderMessage](),
		"ProviderToolCall":   reflect.TypeFor[extproto.ProviderToolCall](),
		"ProviderToolSchema": reflect.TypeFor[extproto.ProviderToolSchema](),
		"ProviderChunk":      reflect.TypeFor[extproto.ProviderChunk](),
		"ProviderError":      reflect.TypeFor[extproto.ProviderError](),
		"ProviderUsage":      reflect.TypeFor[extproto.ProviderUsage](),
	}
	m := model(t)
	for _, s := range m.Structures {
		if s.External == "" {
			continue
		}
		rt, ok := types[s.Name]
		if !ok || s.External != "extproto" {
			t.Errorf("%s: external %q is not a known extproto type", s.Name, s.External)
			continue
		}
		want := map[string]bool{} // member → omitempty
		for i := range rt.NumField() {
			name, opts, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" {
				want[name] = strings.Contains(opts, "omitempty")
			}
		}
		got := map[string]bool{}
		for _, p := range s.Properties {
			got[p.Name] = p.Optional
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: description %v, extproto %v (member → optional)", s.Name, got, want)
		}
	}
}

// TestLoadRejects: a description with a dangling name does not generate.
func TestLoadRejects(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		`{"version":1,"methods":[{"method":"rx/x","kind":"request","direction":"clientToServer","params":"Nope","result":"Nope","doc":""}],"commands":[],"structures":[],"enumerations":[]}`: `unknown structure "Nope"`,
		`{"version":1,"methods":[],"commands":[],"structures":[{"name":"A","doc":"","properties":[{"name":"a","type":"B[]"}]}],"enumerations":[]}`:                                           `unknown type "B"`,
		`{"version":1,"methods":[],"commands":[],"structures":[{"name":"A","doc":"","properties":[{"name":"a","type":"string"},{"name":"a","type":"string"}]}],"enumerations":[]}`:           `A.a is defined twice`,
		`{"version":1,"methods":[],"commands":[],"structures":[],"enumerations":[],"extra":1}`:                                                                                               `unknown field "extra"`,
	}
	for in, want := range tests {
		if _, err := load([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("load(%s) = %v, want %q", in, err, want)
		}
	}
}
